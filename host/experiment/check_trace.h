/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `expect = ftrace-counts`: while a scenario's first round runs, ftrace
 * histograms in a tracing instance of the check's own count, per thread,
 * every kvm_exit (by exit reason) and every kvm_ple_window_update; then
 * each vCPU's counts over its whole life (the exits stat, plerig's
 * PAUSE-loop exits and window updates) must equal ftrace's for its thread.
 * Private to experiment/check_*.c.
 */
#ifndef PLERIG_CHECK_TRACE_H
#define PLERIG_CHECK_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "measure/trace_hist.h"
#include "model/results.h"

struct check_trace {
	bool active;   /* histograms are counting */
	bool read;     /* exits and windows hold the counts */
	char why[512]; /* why there are none ("" when there are) */
	struct trace_hist hist;
	struct trace_hist_table exits;	 /* keys: thread, exit reason */
	struct trace_hist_table windows; /* key: thread */
};

/* Remove the tracing instances of killed checks under @tracefs, a line on @say each. */
void check_trace_sweep(const char *tracefs, FILE *say);

/*
 * Start counting for @scenario (a failure leaves t->why: the expectation is
 * skipped with it); not where it runs on another host (@elsewhere).
 */
void check_trace_begin(struct check_trace *t, const char *scenario, bool elsewhere);

/* Read the counts and remove the instance. */
void check_trace_collect(struct check_trace *t);
void check_trace_free(struct check_trace *t);

enum trace_verdict { TRACE_AGREES, TRACE_DIFFERS, TRACE_UNJUDGED };

/*
 * Every vCPU of run @r against @t's counts. TRACE_DIFFERS with @detail
 * naming the vCPU, thread and both counts of the first difference;
 * TRACE_UNJUDGED with @detail saying why nothing could be compared;
 * TRACE_AGREES with @detail giving the counts of the first vCPU.
 */
enum trace_verdict check_trace_judge_run(const struct check_trace *t,
					 const struct variant_result *r, char *detail, size_t len);

#endif
