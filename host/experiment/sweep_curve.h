/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The result of a sweep: for every parameter combination and every
 * variant of the run matrix, throughput, stalls and PAUSE-loop exits,
 * read back from the runner's JSON, printed as a table, JSON or CSV.
 */
#ifndef PLERIG_SWEEP_CURVE_H
#define PLERIG_SWEEP_CURVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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
	double pause_exits;	   /* NaN: unavailable */
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

/*
 * Add every variant of a `plerig run --json` file (schema versions 1 and
 * 2: a variant's runs are averaged) as points at @set. 0, or -1 with @err.
 */
int sweep_curve_add_results(struct sweep_curve *c, const char *json_path,
			    const struct ple_setting *set, char *err, size_t errlen);
/* A combination that produced no results at all (its run failed). */
int sweep_curve_add_failure(struct sweep_curve *c, const struct ple_setting *set, const char *why);

void sweep_curve_print(FILE *out, const struct sweep_curve *c);
/* "-" is stdout. 0, or -1 with @err. */
int sweep_curve_write_json(const struct sweep_curve *c, const char *path, char *err, size_t errlen);
int sweep_curve_write_csv(const struct sweep_curve *c, const char *path, char *err, size_t errlen);

#endif
