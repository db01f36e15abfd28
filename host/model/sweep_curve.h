/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The result of a sweep: for every parameter combination and every
 * variant of the run matrix, throughput, stalls and PAUSE-loop exits,
 * averaged over the variant's ok runs (output/sweep_writer writes it).
 * With rounds (plerig sweep --rounds N) every combination is visited N
 * times: a point per visit, and their summary per combination and variant.
 */
#ifndef PLERIG_SWEEP_CURVE_H
#define PLERIG_SWEEP_CURVE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/outcome.h"
#include "ple/host_params.h"

struct sweep_point {
	unsigned round;				    /* the visit, 0 .. rounds - 1 */
	char values[PLE_MAX_PARAMS][PLE_VALUE_LEN]; /* one per axis, in axis order */
	char variant[160];			    /* "kvm ticket pause user 1x4/2" */
	bool ok;
	char error[512]; /* when !ok */
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
	unsigned rounds;	 /* visits of every combination (1) */
	unsigned long long seed; /* of their shuffled order, when rounds > 1 */
	unsigned round;		 /* the visit points are added to now */
	unsigned n, cap;
	struct sweep_point *points; /* in time order */
};

/* One figure over the rounds' ok points; NaN where there is none. */
struct sweep_stat {
	unsigned n;
	double mean, stddev;	    /* sample stddev; 0 for n = 1 */
	double ci95_low, ci95_high; /* of the mean (t distribution); NaN for n < 2 */
};

/* A combination and variant over the rounds. */
struct sweep_summary {
	char values[PLE_MAX_PARAMS][PLE_VALUE_LEN];
	char variant[160];
	unsigned visits, ok; /* points, ok points */
	char error[512];     /* the first failure, if any */
	struct sweep_stat acq_per_s, stalls, stalled_share, pause_exits;
	char pause_exits_why[160];
};

void sweep_curve_init(struct sweep_curve *c, const struct ple_setting *axes, unsigned nr);
void sweep_curve_free(struct sweep_curve *c);

/* Every variant of one experiment's report as a point at @set. 0, or -1 out of memory. */
int sweep_curve_add_report(struct sweep_curve *c, const struct outcome *rep,
			   const struct ple_setting *set);
/* A combination that produced no results at all (its run failed). */
int sweep_curve_add_failure(struct sweep_curve *c, const struct ple_setting *set, const char *why);

/*
 * The points summarised per combination and variant, combinations in
 * ascending order of their values, variants in the order first seen:
 * malloc'ed, *nr of them (NULL and 0 when out of memory or empty).
 */
struct sweep_summary *sweep_curve_summarize(const struct sweep_curve *c, unsigned *nr);

#endif
