/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Machine-readable results ("plerig-results", schema_version 1): every
 * figure, counter and non-empty histogram bucket of every vCPU, for
 * analysis that the table cannot do.
 *
 * {schema, schema_version, plerig_version, command_line, host: {kernel,
 *  cpus, cpus_online}, variants: [{backend, lock, relax, ring, vms, vcpus,
 *  pcpus, pin, cs_cycles, think_cycles, stall_us, warmup_s, duration_s,
 *  ok, error (only when !ok), interval_s, tsc_khz, timing: {...},
 *  summary: {struct figures} (null when !ok),
 *  vm_results: [{vm, protected_counter, vcpus: [{vcpu, host_cpu (null
 *  when floating), tid, ..., exits (null when unknown), kvm_stats: {name:
 *  value}, wait_histogram/hold_histogram: {unit: "tsc_cycles", buckets:
 *  [[low, count], ...]}}]}]}]}
 */
#ifndef PLERIG_JSON_REPORT_H
#define PLERIG_JSON_REPORT_H

#include <stddef.h>

#include "experiment/results.h"

#define JSON_REPORT_SCHEMA	   "plerig-results"
#define JSON_REPORT_SCHEMA_VERSION 1

/*
 * Write @nr results to @path ("-": stdout). The file appears complete or
 * not at all: it is written next to @path under a temporary name and
 * renamed over it. @command_line may be NULL. Returns 0, or -1 with a
 * message naming the path in @err.
 */
int json_report_write(const char *path, const struct variant_result *results, unsigned nr,
		      const char *command_line, char *err, size_t errlen);

#endif
