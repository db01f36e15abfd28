/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one rule for "did it get better or worse", used by `plerig run`'s
 * comparisons, `plerig compare` and `plerig check`, so that all three say
 * the same about the same numbers:
 *
 *   worse (better)   significant (p < 0.05, Holm-adjusted where the caller
 *                    corrected for many comparisons) AND the whole 95 %
 *                    confidence interval of the change beyond the threshold
 *                    in the bad (good) direction: the change is shown to be
 *                    at least the threshold, not only estimated to be.
 *   too noisy        neither, and the CI wider than the threshold: the
 *                    runs could not have shown a change of that size.
 *   no change        neither, and the CI narrower: no change of the
 *                    threshold's size (a smaller one may be significant).
 *   untestable       fewer than 2 runs a side, or no spread to test.
 *
 * A metric with no better direction (better = 0, a behaviour figure) is
 * worse by a change either way, and never better.
 *
 * No exception for any threshold or command: with a threshold of 0 every
 * interval is wider than it, so a change not shown significant is too noisy (no runs can show
 * that there is no change at all). A change from a mean of 0 is larger than
 * any threshold in %, so it needs significance only.
 */
#ifndef PLERIG_MODEL_VERDICT_H
#define PLERIG_MODEL_VERDICT_H

#include <stdbool.h>

#include "model/outcome.h"
#include "stats/sample_stats.h"

#define VERDICT_ALPHA	   0.05
#define VERDICT_CONFIDENCE 0.95
/* The threshold of plerig run and plerig compare without --threshold, in %. */
#define VERDICT_DEFAULT_THRESHOLD_PCT  2.0
#define VERDICT_DEFAULT_THRESHOLD_TEXT "2" /* as --help shows it */

/* The rule above as --help prints it (run, compare and check): said once, here. */
#define VERDICT_RULE_HELP                                                                          \
	"Verdicts (one rule for run, compare and check): worse (better) when p < 0.05,\n"          \
	"Holm-adjusted across the comparisons that have a p-value, and the whole 95%\n"            \
	"confidence interval of the change beyond the threshold in the metric's bad\n"             \
	"(good) direction (worse either way for a metric with no better direction);\n"             \
	"too noisy to judge when neither and that interval is wider than the\n"                    \
	"threshold; no significant change otherwise; untestable with fewer than 2\n"               \
	"runs a side or no spread. The threshold is the command's --threshold, printed\n"          \
	"with its verdicts.\n"

enum verdict {
	VERDICT_UNTESTABLE, /* fewer than 2 runs on a side, or no spread to test */
	VERDICT_NO_CHANGE,
	VERDICT_TOO_NOISY, /* not significant, and the CI of the change wider than the threshold */
	VERDICT_BETTER,
	VERDICT_WORSE, /* the last: arrays are indexed up to it */
};

struct judgement {
	enum verdict verdict;
	bool significant; /* a valid test and p < VERDICT_ALPHA */
	double delta;	  /* cand - base mean; NaN when a side has no value */
	double delta_pct; /* 100 * delta / |base mean|; NaN when that mean is 0 (pct_why) */
	/* the change's 95 % CI in % of the base mean (+-INFINITY from a base of 0); NaN: none */
	double ci_low_pct, ci_high_pct;
	double ci_width_pct; /* ci_high_pct - ci_low_pct; NaN: no test, INFINITY: base of 0 */
	const char *why;     /* when there is no p-value: why (NULL otherwise) */
	const char *pct_why; /* when delta_pct is NaN: why (NULL otherwise) */
};

/*
 * Width of @w's 95 % confidence interval of the change (cand - base), in %
 * of @base_mean: what a change must exceed to be told from noise.
 * INFINITY where there is none (no valid test, or a base mean of 0).
 */
double verdict_ci_width_pct(const struct welch_result *w, double base_mean);

/*
 * Judge @cand against @base for a metric whose better direction is
 * @better (+1 higher, -1 lower). @w is welch_test(base values, cand
 * values), its p Holm-adjusted where the caller corrects.
 * @threshold_pct: smallest |change %| that counts (0: any).
 */
void verdict_judge(const struct sample_stats *base, const struct sample_stats *cand,
		   const struct welch_result *w, int better, double threshold_pct,
		   struct judgement *out);

/*
 * The same rule on a paired test: @paired is one_sample_t_test() of the
 * per-round differences (cand - base) of @n interleaved rounds, whose
 * base values have the mean @base_mean.
 */
void verdict_judge_paired(const struct welch_result *paired, unsigned n, double base_mean,
			  int better, double threshold_pct, struct judgement *out);

/*
 * The verdict on @c: from the paired test where runs are paired, else
 * Welch's; significant by the Holm-adjusted p-value where c->holm is set.
 */
void comparison_judge(const struct comparison *c, double threshold_pct, struct judgement *out);

/*
 * "better", "worse", "no significant change", "too noisy to judge",
 * "untestable": the JSON vocabulary.
 */
const char *verdict_name(enum verdict v);

#endif
