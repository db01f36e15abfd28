/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sweep engine: for every combination of host PLE parameter values,
 * set them (ple/param_session), run the plan through the experiment
 * engine in this process, and add its report to the curve; the original
 * values go back at the end, after an error and after Ctrl-C.
 */
#ifndef PLERIG_SWEEP_H
#define PLERIG_SWEEP_H

#include "model/plan.h"
#include "model/sweep_curve.h"
#include "model/sweep_grid.h"

/*
 * @curve is initialised here and freed by the caller. Every combination
 * is visited @rounds times (1: once, in grid order; more: in a new order
 * each round, shuffled from @seed). Returns the exit
 * status so far: 0, 1 (a point failed, or the parameters could not be
 * set or restored) or 128+N after signal N; or SWEEP_REFUSED when it never
 * started (a parameter this host cannot change, another sweep running, an
 * unrestored one): nothing changed, nothing measured, nothing to write.
 */
#define SWEEP_REFUSED (-1)

int sweep_run(const struct sweep_grid *grid, const struct run_plan *plan, const char *guest_path,
	      unsigned rounds, unsigned long long seed, struct sweep_curve *curve);

#endif
