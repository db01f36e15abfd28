/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One rule for "did it get better or worse", shared by the comparisons
 * `plerig run` writes and by `plerig compare`, so that both say the same
 * about the same numbers. A change counts only when Welch's test finds it
 * (p < 0.05) and it is at least a threshold in size: with enough runs any
 * difference becomes significant, and a 0.3% one is still not a finding.
 * Nor does a non-finding count as "no change" when the 95 % confidence
 * interval of the change is wider than the threshold: the runs could not
 * have told a change of the threshold's size, so that is "too noisy to
 * judge" (on a busy host, more runs or a quieter host).
 */
#ifndef PLERIG_MODEL_VERDICT_H
#define PLERIG_MODEL_VERDICT_H

#include <stdbool.h>

#include "model/outcome.h"
#include "stats/sample_stats.h"

#define VERDICT_ALPHA	   0.05
#define VERDICT_CONFIDENCE 0.95

enum verdict {
	VERDICT_UNTESTABLE, /* fewer than 2 runs on a side, or no spread to test */
	VERDICT_NO_CHANGE,
	VERDICT_TOO_NOISY, /* no finding, and the CI of the change wider than the threshold */
	VERDICT_BETTER,
	VERDICT_WORSE, /* the last: arrays are indexed up to it */
};

struct judgement {
	enum verdict verdict;
	bool significant; /* Welch valid and p < VERDICT_ALPHA */
	double delta;	  /* cand - base mean; NaN when a side has no value */
	double delta_pct; /* 100 * delta / |base mean|; NaN when that mean is 0 */
	double
	    ci_width_pct; /* width of the change's 95 % CI, in the units of delta_pct; NaN: none */
	const char *why;  /* when there is no p-value: why (NULL otherwise) */
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
 * values). @threshold_pct: smallest |delta %| that counts (0: any).
 */
void verdict_judge(const struct sample_stats *base, const struct sample_stats *cand,
		   const struct welch_result *w, int better, double threshold_pct,
		   struct judgement *out);

/*
 * The same rule on a paired test: @paired is one_sample_t_test() of the
 * per-round relative differences (cand / base - 1) of interleaved runs.
 */
void verdict_judge_paired(const struct welch_result *paired, unsigned n, int better,
			  double threshold_pct, struct judgement *out);

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
