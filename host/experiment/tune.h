/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `plerig tune` on this host: the search of model/tune_search measured by
 * the experiment engine, one visit a run of the plan (every variant a
 * shape of guest) at one value of the parameter, set through the sweep's
 * parameter session (ple/param_session): the sweep lock held throughout,
 * the originals saved before the first change and put back at the end,
 * on error and after Ctrl-C; after a kill -9 `plerig sweep --restore`
 * (or tune --restore) puts them back, and a new tune or sweep refuses to
 * start until then.
 */
#ifndef PLERIG_EXPERIMENT_TUNE_H
#define PLERIG_EXPERIMENT_TUNE_H

#include <stdbool.h>
#include <stdint.h>

#include "model/plan.h"
#include "model/sweep_curve.h"
#include "model/tune_result.h"

struct tune_request {
	const struct run_plan *plan; /* the shapes; PLE on, as the host is set */
	const char *guest_path;
	const char *param; /* NULL: the host's window, or halt polling where that is all */
	bool range_given;
	uint64_t lo, hi;
	const struct metric *metric;
	double tolerance_pct, budget_s;
	unsigned max_visits;
	unsigned long long seed;
	bool ple_off; /* measure per-VM PLE off too, where the host and the backends have it */
	bool quiet;   /* no progress on stderr */
	const char *command_line;
};

/* How many shapes (variants) @plan makes. */
unsigned tune_plan_shapes(const struct run_plan *plan);

/*
 * Run the tune into @out (and every value visit into @curve, for the
 * report's charts; both freed by the caller, also after a failure).
 * Returns the exit status: 0 an answer, 1 nothing resolvable, a run or a
 * restore failed, 128+N after signal N; or TUNE_REFUSED when it never
 * began (@err says why: a parameter this host lacks or cannot change,
 * another sweep or tune running, an unrestored one), nothing changed.
 */
#define TUNE_REFUSED (-1)
int tune_run(const struct tune_request *req, struct tune_result *out, struct sweep_curve *curve,
	     char *err, size_t errlen);

#endif
