/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `plerig check`'s figures: the per-run values of each scenario x variant
 * x metric gathered over its rounds, tested against this machine's
 * baseline and/or against themselves (A/A, even rounds vs odd rounds),
 * with Holm's correction across every comparison of the check, and
 * recorded as the new baseline.
 */
#ifndef PLERIG_CHECK_FIGURES_H
#define PLERIG_CHECK_FIGURES_H

#include "experiment/check_ctx.h"
#include "model/outcome.h"
#include "stats/sample_stats.h"

enum comparison_kind { VS_BASELINE, AGAINST_ITSELF };

/* One comparison the check tests: the family Holm corrects over. */
struct check_tested {
	struct check_sample *s;
	enum comparison_kind kind;
	struct sample_stats base, cand;
	struct welch_result w;
	double p_adj;
};

/* Add @rep's per-run values of every judged metric to @k's samples. 0, or -1 out of memory. */
int check_gather_figures(struct check_ctx *k, const struct scenario *s, const struct outcome *rep);

/*
 * The suite's other_regime = PCT for @s: per variant, the rounds whose
 * value of a judged metric lies further than PCT % from the median of
 * that metric's rounds (while most lie within: stats/sample_stats.h) are
 * left out of every metric of the variant. *@left counts them; each is
 * appended to @note (its variant, metric, value and the median), which
 * holds a string. 0, or -1 out of memory.
 */
int check_leave_out_other_regime(struct check_ctx *k, const struct scenario *s, unsigned *left,
				 char *note, size_t len);

/* Is every comparison of @s narrower than the threshold (adaptive repeats stop then)? */
int check_scenario_narrow(struct check_ctx *k, const struct scenario *s, bool *narrow);

/* Every comparison tested, Holm-corrected, and its case added. 0, or -1 out of memory. */
int check_judge_figures(struct check_ctx *k);

/*
 * The samples of every complete scenario (uninterrupted, every run ok)
 * into the baseline; the others add nothing. 0, or -1 out of memory.
 */
int check_record_baseline(struct check_ctx *k);

/* The gathered samples freed. */
void check_free_samples(struct check_ctx *k);

#endif
