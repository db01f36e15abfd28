// SPDX-License-Identifier: GPL-2.0
#include "stats/sample_stats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* MAD * 1.4826 estimates the standard deviation of normal data. */
#define MAD_TO_SIGMA   1.4826
#define OUTLIER_SIGMAS 3.0

/*
 * A group must hold this share of the runs, and no fewer than three, to be
 * a mode: two runs far from four others are as likely two outliers.
 */
#define MODE_MIN_SHARE 0.2
/* The gap between the groups must exceed this many times their summed stddevs. */
#define MODE_SEPARATION 4.0

/*
 * Split @sorted at its widest gap; two modes when both sides are big
 * enough, and the gap dwarfs the spread inside each side.
 */
static void find_modes(const double *sorted, unsigned n, struct sample_stats *out)
{
	const unsigned min_side = n * MODE_MIN_SHARE > 3 ? (unsigned)(n * MODE_MIN_SHARE) : 3;
	unsigned split = 0;
	double gap = 0.0;
	for (unsigned i = min_side; i + min_side <= n; i++) {
		if (sorted[i] - sorted[i - 1] > gap) {
			gap = sorted[i] - sorted[i - 1];
			split = i;
		}
	}
	if (!split)
		return;
	const double sd_low = gsl_stats_sd(sorted, 1, split);
	const double sd_high = gsl_stats_sd(sorted + split, 1, n - split);
	if (gap <= MODE_SEPARATION * (sd_low + sd_high))
		return;
	out->bimodal = true;
	out->n_low = split;
	out->n_high = n - split;
	out->low_mean = gsl_stats_mean(sorted, 1, split);
	out->high_mean = gsl_stats_mean(sorted + split, 1, n - split);
}

#define DRIFT_ALPHA   0.01
#define DRIFT_MIN_REL 0.02

/* Least squares of x against its index; significant slopes only. */
static void find_drift(const double *x, unsigned n, struct sample_stats *out)
{
	double *t = malloc(n * sizeof(*t));
	double c0, c1, cov00, cov01, cov11, sumsq;
	if (!t)
		return;
	for (unsigned i = 0; i < n; i++)
		t[i] = i;
	const int rc = gsl_fit_linear(t, 1, x, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
	free(t);
	if (rc || !(cov11 > 0.0) || out->mean == 0.0)
		return;
	out->drift_rel = c1 * (n - 1) / fabs(out->mean);
	out->drift_p = 2.0 * gsl_cdf_tdist_Q(fabs(c1 / sqrt(cov11)), n - 2);
	out->drift = out->drift_p < DRIFT_ALPHA && fabs(out->drift_rel) >= DRIFT_MIN_REL;
}

void sample_stats_compute(const double *x, unsigned n, struct sample_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->n = n;
	if (n == 0)
		return;
	double *sorted = malloc(n * sizeof(*sorted));
	double *work = malloc(n * sizeof(*work));
	if (!sorted || !work) {
		free(sorted);
		free(work);
		out->n = 0;
		return;
	}
	memcpy(sorted, x, n * sizeof(*sorted));
	gsl_sort(sorted, 1, n);
	out->mean = gsl_stats_mean(x, 1, n);
	out->stddev = n > 1 ? gsl_stats_sd_m(x, 1, n, out->mean) : 0.0;
	out->rel = out->mean != 0.0 ? out->stddev / fabs(out->mean) : 0.0;
	out->min = sorted[0];
	out->max = sorted[n - 1];
	out->median = gsl_stats_median_from_sorted_data(sorted, 1, n);
	out->mad = gsl_stats_mad0(x, 1, n, work);
	const double limit = OUTLIER_SIGMAS * MAD_TO_SIGMA * out->mad;
	for (unsigned i = 0; i < n; i++)
		if (out->mad > 0.0 && fabs(x[i] - out->median) > limit)
			out->outliers++;
	if (n >= 4) {
		find_modes(sorted, n, out);
		find_drift(x, n, out);
	}
	free(sorted);
	free(work);
}

void one_sample_t_test(const double *d, unsigned n, double confidence, struct welch_result *out)
{
	memset(out, 0, sizeof(*out));
	if (n == 0)
		return;
	out->diff = gsl_stats_mean(d, 1, n);
	if (n < 2)
		return;
	const double se = gsl_stats_sd_m(d, 1, n, out->diff) / sqrt((double)n);
	if (!(se > 0.0) || !isfinite(se) || !isfinite(out->diff))
		return; /* no spread, or figures past double's range: nothing to test */
	out->t = out->diff / se;
	out->df = n - 1;
	out->p = 2.0 * gsl_cdf_tdist_Q(fabs(out->t), out->df);
	const double q = gsl_cdf_tdist_Qinv((1.0 - confidence) / 2.0, out->df);
	out->ci_low = out->diff - q * se;
	out->ci_high = out->diff + q * se;
	out->valid = true;
}

void welch_test(const double *a, unsigned na, const double *b, unsigned nb, double confidence,
		struct welch_result *out)
{
	memset(out, 0, sizeof(*out));
	if (na == 0 || nb == 0)
		return;
	const double ma = gsl_stats_mean(a, 1, na), mb = gsl_stats_mean(b, 1, nb);
	out->diff = mb - ma;
	out->rel = ma != 0.0 ? out->diff / fabs(ma) : 0.0;
	if (na < 2 || nb < 2)
		return;
	const double va = gsl_stats_variance_m(a, 1, na, ma) / na;
	const double vb = gsl_stats_variance_m(b, 1, nb, mb) / nb;
	const double se2 = va + vb;
	if (!(se2 > 0.0))
		return;
	const double se = sqrt(se2);
	out->t = out->diff / se;
	out->df = se2 * se2 / (va * va / (na - 1) + vb * vb / (nb - 1));
	/* a variance past double's range makes df NaN: untestable, never an abort */
	if (!isfinite(out->t) || !isfinite(out->df) || !(out->df > 0.0) || !isfinite(out->rel))
		return;
	out->p = 2.0 * gsl_cdf_tdist_Q(fabs(out->t), out->df);
	const double q = gsl_cdf_tdist_Qinv((1.0 - confidence) / 2.0, out->df);
	out->ci_low = out->diff - q * se;
	out->ci_high = out->diff + q * se;
	out->valid = true;
}

double mean_ci_half_width(double stddev, unsigned n, double confidence)
{
	if (n < 2)
		return NAN;
	return gsl_cdf_tdist_Pinv(0.5 + confidence / 2, n - 1) * stddev / sqrt(n);
}

unsigned sample_other_regime(const double *x, unsigned n, double pct, bool *off)
{
	if (n < 3 || !(pct > 0.0))
		return 0;
	double *sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return 0;
	memcpy(sorted, x, n * sizeof(*sorted));
	gsl_sort(sorted, 1, n);
	const double median = gsl_stats_median_from_sorted_data(sorted, 1, n);
	free(sorted);
	const double reach = fabs(median) * pct / 100.0;
	unsigned far = 0;
	for (unsigned i = 0; i < n; i++)
		far += !(fabs(x[i] - median) <= reach); /* NaN is far */
	/* a zero median has no scale; and the regime is the majority's, or none */
	if (median == 0.0 || isnan(median) || !far || 2 * (n - far) <= n)
		return 0;
	for (unsigned i = 0; i < n; i++)
		if (!(fabs(x[i] - median) <= reach))
			off[i] = true;
	return far;
}
