// SPDX-License-Identifier: GPL-2.0
#include "stats/sample_stats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* MAD * 1.4826 estimates the standard deviation of normal data. */
#define MAD_TO_SIGMA   1.4826
#define OUTLIER_SIGMAS 3.0

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
	if (!(se > 0.0))
		return;
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
	out->p = 2.0 * gsl_cdf_tdist_Q(fabs(out->t), out->df);
	const double q = gsl_cdf_tdist_Qinv((1.0 - confidence) / 2.0, out->df);
	out->ci_low = out->diff - q * se;
	out->ci_high = out->diff + q * se;
	out->valid = true;
}
