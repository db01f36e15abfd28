/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Time in KVM exits (--exit-times) in every output: a JSON object per vCPU
 * and per run, CSV fields per vCPU, and a line per variant with the
 * human-readable tables. Unavailable figures are null, empty, or "n/a"
 * with the reason.
 */
#ifndef PLERIG_OUTPUT_EXIT_TIMES_REPORT_H
#define PLERIG_OUTPUT_EXIT_TIMES_REPORT_H

#include <json-c/json.h>
#include <stdio.h>

#include "model/exit_time_figures.h"
#include "model/outcome.h"

/* Adds "exit_times" (object or null) and, for a run, "exit_times_unavailable". */
void exit_times_json_add(json_object *o, const struct variant_result *r,
			 const struct vcpu_record *rec);

/*
 * One vCPU's CSV fields (text, "" = empty), in csv_writer.c's column order:
 * exits_timed, exit_ns, ple_exits_timed, ple_exit_ns, exit_records_lost,
 * exit_reasons_top ("reason:count:ns" by time, space-separated).
 */
#define EXIT_TIMES_CSV_COLUMNS 6
void exit_times_csv_fields(const struct variant_result *r, const struct vcpu_record *rec,
			   char fields[EXIT_TIMES_CSV_COLUMNS][256]);

/* "exit-times ..." lines, one per variant that asked for them (first run of each). */
void exit_times_print(FILE *f, const struct outcome *rep);

#endif
