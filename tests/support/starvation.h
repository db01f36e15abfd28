/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether each vCPU (or native thread) of a run got the lock, for the tests
 * that require it of a fair lock. A shared runner (often a VM itself) can
 * hold a thread off its CPU for a whole short run, so such a test repeats
 * a run in which one starved, up to STARVATION_RUNS times: a lock that
 * starves a thread starves it every time, a busy host does not.
 */
#ifndef PLERIG_TESTS_STARVATION_H
#define PLERIG_TESTS_STARVATION_H

#include <stddef.h>
#include <stdint.h>

#include "model/results.h"

#define STARVATION_RUNS 3

/* Acquisitions over the whole run, warm-up included. */
uint64_t unit_progress(const struct plerig_vcpu_result *g);

/*
 * The first record of @r that never acquired, or -1: described in @why
 * with what its thread got of its CPU in the measured interval, so that a
 * failure says whether the lock starved it or the host did.
 */
int starved_unit(const struct variant_result *r, char *why, size_t len);

/* Runs @v into @r and asserts what must hold of any run; @r is the caller's to free. */
typedef void (*checked_run_fn)(const struct variant *v, struct variant_result *r);

/*
 * Runs @v with @run until no unit starved, at most STARVATION_RUNS
 * times, and fails the test if one starved in every run.
 */
void assert_fair_lock_starves_nobody(const struct variant *v, checked_run_fn run);

#endif
