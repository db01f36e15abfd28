/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Machine-readable results ("plerig-results", schema_version 2): every
 * run of every variant with every figure, counter and non-empty histogram
 * bucket of every vCPU, the statistics over the runs, the comparisons
 * against the reference, and the conditions needed to judge them (host,
 * PLE parameters, repeat count, order, seed). docs/results.schema.json is
 * the contract; `plerig compare` reads these files.
 *
 * {schema, schema_version, plerig_version, command_line,
 *  host: {kernel, kvm_module, cpu_model, cpus, cpus_online,
 *         ple_params: {name: value}},
 *  repeat, discard_rounds, order, seed (null unless shuffle),
 *  reference ("relax=pause" or null; baseline, its old name, beside it),
 *  interrupted,
 *  variants: [{backend, lock, relax, ring, vms, vcpus, pcpus, pin,
 *    cs_cycles, think_cycles, stall_us, warmup_s, duration_s,
 *    runs: [{repeat, ok, error (only when !ok), interval_s, tsc_khz,
 *            timing: {...}, summary: {struct figures} (null when !ok),
 *            vm_results: [{vm, protected_counter, vcpus: [{...}]}]}],
 *    stats: {metric: {n, mean, stddev, rel, min, max, median, mad,
 *            outliers}}}],
 *  comparisons: [{reference, candidate, metric, better, reference_mean,
 *    (baseline and baseline_mean, the old names, beside them)
 *    candidate_mean, delta, delta_pct, p_value, ci95_low, ci95_high,
 *    significant, verdict}]}
 *
 * NaN and infinities are not JSON: they are written as null.
 */
#ifndef PLERIG_OUTPUT_JSON_REPORT_H
#define PLERIG_OUTPUT_JSON_REPORT_H

#include <json-c/json.h>
#include <stddef.h>

#include "model/outcome.h"

#define JSON_REPORT_SCHEMA	   "plerig-results"
#define JSON_REPORT_SCHEMA_VERSION 2

/* @rep as the plerig-results document (the caller puts it). */
json_object *json_results_document(const struct outcome *rep);

/*
 * Write @rep to @path ("-": stdout). The file appears complete or not at
 * all (util/atomic_file.h). Returns 0, or -1 with a message naming the
 * path in @err.
 */
int json_results_write(const char *path, const struct outcome *rep, char *err, size_t errlen);

#endif
