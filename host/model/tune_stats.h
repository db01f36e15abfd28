/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tune's visits as statistics: per candidate and shape the objective's
 * mean and 95 % CI, and the difference of two candidates in % (Welch's
 * test, the one run, compare and check use), oriented so that a positive
 * gain is better whichever way the objective points.
 */
#ifndef PLERIG_TUNE_STATS_H
#define PLERIG_TUNE_STATS_H

#include <stdbool.h>

#include "model/tune_search.h"

/*
 * Issue 27's second throughput regime: where a shape's visits at one value
 * otherwise agree (their median relative MAD, the median over the values,
 * at most TUNE_REGIME_QUIET_PCT), a visit more than TUNE_REGIME_SPLIT_PCT
 * from its value's median is in another regime: left out of that value's
 * statistics and counted (tests/ple/assert-results' REGIME_SPLIT is the same
 * 10 %).
 */
#define TUNE_REGIME_SPLIT_PCT 10.0
#define TUNE_REGIME_QUIET_PCT 2.0

/* Find each shape's regimes again after a visit (the medians, and whether its visits agree). */
void tune_search_regimes(struct tune_search *s);
/* Is visit @v in another regime than most visits of its value, for @shape (left out)? */
bool tune_visit_other_regime(const struct tune_search *s, const struct tune_visit *v,
			     unsigned shape);

struct tune_cell {
	unsigned n;	       /* ok visits (in the value's main regime) */
	unsigned other_regime; /* ok visits left out: in another regime */
	double mean, sd;
	double ci_low, ci_high; /* of the mean; NaN for n < 2 */
	bool bimodal;		/* its visits fall into two tight groups (sample_stats) */
};

/*
 * Candidate @cand for shape @shape over the visits of rounds >= @from
 * (0: all); fig < 0 is the objective, else that figure of the cost curve.
 */
void tune_cell(const struct tune_search *s, unsigned cand, unsigned shape, unsigned from, int fig,
	       struct tune_cell *out);

struct tune_diff {
	bool valid; /* n >= 2 on both sides, and a test (or no spread at all) */
	bool exact; /* no spread on either side: the difference is the CI */
	/*
	 * no spread on either side in these rounds, but some in the others:
	 * identical visits by chance (a bimodal value visited twice in one
	 * mode), not a deterministic host; no test (not valid): the rounds
	 * before have the spread
	 */
	bool chance_tie;
	unsigned na, nb;
	double gain_pct;  /* how much better @a is than @b, in % of |mean b| */
	double low, high; /* its 95 % CI */
	double p;	  /* two-sided; 0 or 1 when exact */
	const char *why;  /* when not valid: why there is no test */
};

/* @a against @b for @shape over rounds >= @from. */
void tune_diff(const struct tune_search *s, unsigned a, unsigned b, unsigned shape, unsigned from,
	       struct tune_diff *out);

/*
 * The best value candidate of @shape by its mean over rounds >= @from,
 * among those with at least @min_n visits there in their main regime and
 * more there than in another (never per-VM PLE off: that is no value of
 * the parameter); among the candidates still visited where one qualifies
 * (an eliminated value was shown worse than a best); -1 when none.
 */
int tune_best(const struct tune_search *s, unsigned shape, unsigned from, unsigned min_n);

/*
 * The best the answer names: by the rounds before the confirmation where
 * there is one (so that the confirmation rounds, which claims come from,
 * did not choose it), else by every round; as tune_best otherwise.
 */
int tune_best_chosen(const struct tune_search *s, unsigned shape, unsigned min_n);

/* how much better @a's mean is than @b's, in % of |b| (point estimate; NaN without data) */
double tune_gain_pct(const struct tune_search *s, double a, double b);

#endif
