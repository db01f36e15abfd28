/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `plerig check`'s expectations (progress, stalls, PAUSE-loop exits,
 * directed yields, ftrace counts, the halt path) judged on a scenario's
 * runs: one case each.
 */
#ifndef PLERIG_CHECK_EXPECT_H
#define PLERIG_CHECK_EXPECT_H

#include "experiment/check_ctx.h"
#include "model/outcome.h"

/* A case per expectation of @s: passed, failed or skipped with why. 0, or -1 out of memory. */
int check_judge_expectations(struct check_ctx *k, const struct scenario *s,
			     const struct outcome *rep);

/* A failed case for @s's first failed run, if any. 0, or -1 out of memory. */
int check_note_failed_runs(struct check_ctx *k, const struct scenario *s,
			   const struct outcome *rep);

#endif
