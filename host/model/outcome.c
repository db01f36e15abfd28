// SPDX-License-Identifier: GPL-2.0
#include "model/outcome.h"

#include <math.h>
#include <stdlib.h>

unsigned series_values(const struct series *s, const struct metric *m, double *out)
{
	unsigned n = 0;
	for (unsigned i = 0; i < s->nr_runs; i++) {
		if (!s->runs[i].ok)
			continue;
		struct figures f;
		figures_for_variant(&s->runs[i], &f);
		double v = m->get(&f);
		if (!isnan(v))
			out[n++] = v;
	}
	return n;
}

int series_compute_stats(struct series *s)
{
	double *values = calloc(s->nr_runs ? s->nr_runs : 1, sizeof(*values));
	free(s->stats);
	s->stats = calloc(nr_metrics, sizeof(*s->stats));
	if (!values || !s->stats) {
		free(values);
		return -1;
	}
	for (unsigned m = 0; m < nr_metrics; m++)
		sample_stats_compute(values, series_values(s, &metrics[m], values), &s->stats[m]);
	free(values);
	return 0;
}

void series_free(struct series *s)
{
	for (unsigned i = 0; i < s->nr_runs; i++)
		variant_result_free(&s->runs[i]);
	free(s->runs);
	free(s->stats);
	s->runs = NULL;
	s->stats = NULL;
	s->nr_runs = 0;
}

void outcome_free(struct outcome *r)
{
	for (unsigned i = 0; i < r->nr_series; i++)
		series_free(&r->series[i]);
	free(r->series);
	free(r->comparisons);
	r->series = NULL;
	r->comparisons = NULL;
	r->nr_series = r->nr_comparisons = 0;
}
