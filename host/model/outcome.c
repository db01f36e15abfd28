// SPDX-License-Identifier: GPL-2.0
#include "model/outcome.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/printable.h"
#include "util/strfmt.h"

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

const char *series_metric_why(const struct series *s, const struct metric *m)
{
	for (unsigned i = 0; i < s->nr_runs; i++) {
		if (!s->runs[i].ok)
			continue;
		struct figures f;
		figures_for_variant(&s->runs[i], &f);
		if (isnan(m->get(&f)))
			return metric_why(m, &f);
	}
	return NULL;
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

void run_hosts_label(struct run_host *hosts, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		bool shared = false;
		const char *name = hosts[i].info.name[0] ? hosts[i].info.name : "host";
		for (unsigned j = 0; j < n; j++)
			shared |= j != i && !strcmp(hosts[j].info.name, hosts[i].info.name);
		if (shared || !hosts[i].info.name[0])
			snprintf(hosts[i].label, sizeof(hosts[i].label), "%.*s(%u)",
				 (int)printable_cut(name, 50), name, i + 1);
		else
			snprintf(hosts[i].label, sizeof(hosts[i].label), "%.*s",
				 (int)printable_cut(name, sizeof(hosts[i].label) - 1), name);
	}
}

void outcome_label_hosts(struct outcome *r)
{
	run_hosts_label(r->hosts, r->nr_hosts);
}

const char *outcome_host_label(const struct outcome *r, const struct variant *v)
{
	return r->nr_hosts > 1 && v->host < r->nr_hosts ? r->hosts[v->host].label : "";
}

const char *outcome_host_name(const struct outcome *r, const struct variant *v)
{
	return v->host < r->nr_hosts ? r->hosts[v->host].label : r->host.name;
}

void outcome_free(struct outcome *r)
{
	free(r->hosts);
	r->hosts = NULL;
	r->nr_hosts = 0;
	for (unsigned i = 0; i < r->nr_series; i++)
		series_free(&r->series[i]);
	free(r->series);
	free(r->comparisons);
	r->series = NULL;
	r->comparisons = NULL;
	r->nr_series = r->nr_comparisons = 0;
}
