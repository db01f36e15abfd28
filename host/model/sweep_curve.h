/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The result of a sweep: for every parameter combination and every
 * variant of the run matrix, throughput, stalls and PAUSE-loop exits,
 * averaged over the variant's ok runs (report/sweep_report writes it).
 */
#ifndef PLERIG_SWEEP_CURVE_H
#define PLERIG_SWEEP_CURVE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/series.h"
#include "ple/host_params.h"

struct sweep_point {
	char values[PLE_MAX_PARAMS][PLE_VALUE_LEN]; /* one per axis, in axis order */
	char variant[160];			    /* "kvm ticket pause user 1x4/2" */
	bool ok;
	char error[256]; /* when !ok */
	unsigned runs;	 /* runs averaged (--repeat) */
	double acq_per_s;
	double stalls;
	double stalled_share;
	double pause_exits; /* NaN: unavailable */
	/* sample stddev over the runs of acq_per_s, stalls, stalled_share, pause_exits; NaN < 2 */
	double sd[4];
	char pause_exits_why[160]; /* why unavailable, when the runner said */
};

struct sweep_curve {
	unsigned nr_params;
	char names[PLE_MAX_PARAMS][PLE_NAME_LEN];
	unsigned n, cap;
	struct sweep_point *points;
};

void sweep_curve_init(struct sweep_curve *c, const struct ple_setting *axes, unsigned nr);
void sweep_curve_free(struct sweep_curve *c);

/* Every variant of one experiment's report as a point at @set. 0, or -1 out of memory. */
int sweep_curve_add_report(struct sweep_curve *c, const struct report *rep,
			   const struct ple_setting *set);
/* A combination that produced no results at all (its run failed). */
int sweep_curve_add_failure(struct sweep_curve *c, const struct ple_setting *set, const char *why);

#endif
