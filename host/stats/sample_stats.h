/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics over repeated runs, the way a kernel maintainer reads them:
 * mean ± sample stddev, the spread (min, max, median, MAD) that stddev
 * hides, outliers counted rather than dropped, and Welch's t-test with a
 * confidence interval for the difference of two variants. Distributions
 * come from GSL.
 */
#ifndef PLERIG_SAMPLE_STATS_H
#define PLERIG_SAMPLE_STATS_H

#include <stdbool.h>

struct sample_stats {
	unsigned n;
	double mean;
	double stddev; /* sample (n - 1); 0 for n < 2 */
	double rel;    /* stddev / |mean|; 0 when the mean is 0 */
	double min;
	double max;
	double median;
	double mad;	   /* median absolute deviation, unscaled */
	unsigned outliers; /* |x - median| > 3 * 1.4826 * MAD: never dropped, only counted */
	/*
	 * Two modes: the runs fall into two groups, each tight, far apart,
	 * as when the host switches state (a noisy neighbour, the VM's CPUs
	 * moved between cache domains) between runs. The mean and stddev of
	 * such runs describe neither group; the paired test still holds.
	 */
	bool bimodal;
	unsigned n_low, n_high;
	double low_mean, high_mean;
	/*
	 * Drift: a straight line through the values in the order they were
	 * taken (the caller's order is time order), its slope significant
	 * (p < 0.01) and worth DRIFT_MIN_REL of the mean end to end. drift_rel
	 * is the fitted change from the first run to the last, over the mean.
	 */
	bool drift;
	double drift_rel;
	double drift_p;
};

/* n may be 0 (everything 0). */
void sample_stats_compute(const double *x, unsigned n, struct sample_stats *out);

/*
 * Rounds in another regime: those of @x's @n further than @pct % of the
 * median from the median, where at least 3 rounds were run and more than
 * half lie within it (the regime is the majority's; without one, none is
 * another's). Sets off[i] for each (leaves the others as they were) and
 * returns how many; 0 for a zero median (no scale to measure by).
 */
unsigned sample_other_regime(const double *x, unsigned n, double pct, bool *off);

/*
 * Half the width of the @confidence (e.g. 0.95) interval of the mean of
 * @n values with sample stddev @stddev (t distribution, n - 1 degrees of
 * freedom); NaN for n < 2.
 */
double mean_ci_half_width(double stddev, unsigned n, double confidence);

struct welch_result {
	bool valid;  /* needs n >= 2 on both sides and some variance */
	double diff; /* mean(b) - mean(a) */
	double rel;  /* diff / |mean(a)|, 0 when mean(a) is 0 */
	double t;
	double df;     /* Welch-Satterthwaite */
	double p;      /* two-sided */
	double ci_low; /* confidence interval of diff */
	double ci_high;
};

/*
 * One-sample t-test of mean(d) against 0, e.g. on the per-round
 * differences of two interleaved variants (a paired test): the drift that
 * moves both runs of a round cancels in their difference. Fills @out as
 * welch_test does (diff = mean(d), rel = 0, df = n - 1); valid for n >= 2
 * with some variance.
 */
void one_sample_t_test(const double *d, unsigned n, double confidence, struct welch_result *out);

/* Welch's unequal-variance t-test of b against a; @confidence e.g. 0.95. */
void welch_test(const double *a, unsigned na, const double *b, unsigned nb, double confidence,
		struct welch_result *out);

#endif
