/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The experiment engine: a run plan in, every measured run, the
 * statistics and the comparisons out, as a struct outcome in memory.
 * `plerig run` writes that report; `plerig sweep` runs one per point of
 * its parameter grid and reads the figures straight out of it.
 */
#ifndef PLERIG_EXPERIMENT_H
#define PLERIG_EXPERIMENT_H

#include <stddef.h>
#include <stdio.h>

#include "model/plan.h"
#include "model/outcome.h"

struct experiment_output {
	/*
	 * With --repeat 1 a table row per run as it finishes (after the
	 * header); NULL: none. `run` gives stdout, `sweep` stderr (its stdout
	 * is the curve).
	 */
	FILE *rows;
	/* What is happening, on stderr unless the plan is quiet. */
	const char *who; /* "plerig run": prefix of progress and warnings */
};

/*
 * Checks the plan against itself before anything boots: a --baseline
 * that names no variant is bad input. 0, or -1 with @err (exit 2).
 */
int experiment_check(const struct run_plan *plan, char *err, size_t errlen);

/*
 * Open the backends the plan needs, run every variant --repeat times in
 * the planned order, then summarise and compare, into @rep (which the
 * caller frees with report_free, also after a failure). Ctrl-C stops
 * between runs and leaves rep->interrupted set with what was measured.
 * Returns 0 when the schedule ran (single runs may have failed: see
 * experiment_status), -1 with @err when it could not start, -2 with @err
 * when its only host refused what it was given (the emulated host's
 * --module-params: bad input).
 */
int experiment_run(const struct run_plan *plan, const char *guest_path, const char *command_line,
		   const struct experiment_output *out, struct outcome *rep, char *err,
		   size_t errlen);

/* The exit status a finished experiment earns: 0, 1 (a run failed), 128+N (signal N). */
int experiment_status(const struct outcome *rep);

#endif
