// SPDX-License-Identifier: GPL-2.0
#include "model/sweep_curve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/sample_stats.h"
#include "util/cpulist.h"
#include "util/strfmt.h"

void sweep_curve_init(struct sweep_curve *c, const struct ple_setting *axes, unsigned nr)
{
	memset(c, 0, sizeof(*c));
	c->nr_params = nr;
	c->rounds = 1;
	for (unsigned i = 0; i < nr; i++)
		str_copy(c->names[i], sizeof(c->names[i]), axes[i].name);
}

void sweep_curve_free(struct sweep_curve *c)
{
	free(c->points);
	c->points = NULL;
	c->n = c->cap = 0;
}

static struct sweep_point *new_point(struct sweep_curve *c, const struct ple_setting *set)
{
	if (c->n == c->cap) {
		unsigned cap = c->cap ? c->cap * 2 : 16;
		struct sweep_point *p = realloc(c->points, cap * sizeof(*p));
		if (!p)
			return NULL;
		c->points = p;
		c->cap = cap;
	}
	struct sweep_point *p = &c->points[c->n++];
	memset(p, 0, sizeof(*p));
	p->round = c->round;
	for (unsigned i = 0; i < c->nr_params; i++)
		str_copy(p->values[i], sizeof(p->values[i]), set[i].value);
	p->acq_per_s = p->stalls = p->stalled_share = p->pause_exits = NAN;
	p->sd[0] = p->sd[1] = p->sd[2] = p->sd[3] = NAN;
	return p;
}

int sweep_curve_add_failure(struct sweep_curve *c, const struct ple_setting *set, const char *why)
{
	struct sweep_point *p = new_point(c, set);
	if (!p)
		return -1;
	str_copy(p->variant, sizeof(p->variant), "(all)");
	str_copy(p->error, sizeof(p->error), why);
	return 0;
}

/* "kvm ticket pause user ple-on 1x4/2": what tells the variants of one run apart */
static void label(const struct variant *v, char *buf, size_t len)
{
	char cpus[PLERIG_MAX_PCPUS * 6];
	cpulist_format(v->pcpus, v->nr_pcpus, cpus, sizeof(cpus));
	/* a long CPU list is cut, as the label is only for people */
	char poll[48];
	int n =
	    snprintf(buf, len, "%s %s %s %s ple-%s%s %ux%u/", backend_name(v->backend),
		     lock_name(v->lock), relax_name(v->relax), ring_name(v->ring), ple_name(v->ple),
		     halt_poll_label(v, poll, sizeof(poll)), v->vms, v->vcpus);
	if (n > 0 && (size_t)n < len)
		str_copy(buf + n, len - (size_t)n, cpus);
}

/* A variant's ok runs, averaged: the point's figures; the first failure otherwise. */
static void add_series(struct sweep_point *p, const struct series *s)
{
	double sums[4] = {0}, squares[4] = {0}; /* acq_per_s, stalls, stalled_share, pause exits */
	unsigned counts[4] = {0};
	label(&s->variant, p->variant, sizeof(p->variant));
	for (unsigned i = 0; i < s->nr_runs; i++) {
		const struct variant_result *r = &s->runs[i];
		if (!r->ok) {
			if (!p->error[0])
				str_copy(p->error, sizeof(p->error),
					 r->error[0] ? r->error : "run failed");
			continue;
		}
		struct figures f;
		figures_for_variant(r, &f);
		const double v[4] = {f.acq_per_s, (double)f.stalls, f.stalled_share,
				     f.pause_loop_exits_valid ? (double)f.pause_loop_exits : NAN};
		for (int k = 0; k < 4; k++)
			if (!isnan(v[k])) {
				sums[k] += v[k];
				squares[k] += v[k] * v[k];
				counts[k]++;
			}
		p->runs++;
		if (!f.pause_loop_exits_valid)
			str_copy(p->pause_exits_why, sizeof(p->pause_exits_why),
				 r->ple_why[0] ? r->ple_why : "not counted for every vCPU");
	}
	p->ok = p->runs > 0;
	double *out[4] = {&p->acq_per_s, &p->stalls, &p->stalled_share, &p->pause_exits};
	for (int k = 0; k < 4; k++)
		*out[k] = counts[k] ? sums[k] / counts[k] : NAN;
	for (int k = 0; k < 4; k++)
		p->sd[k] = counts[k] >= 2
			       ? sqrt(fmax(squares[k] - sums[k] * *out[k], 0.0) / (counts[k] - 1))
			       : NAN;
	if (!p->ok && !p->error[0])
		str_copy(p->error, sizeof(p->error), "no run completed");
}

int sweep_curve_add_report(struct sweep_curve *c, const struct outcome *rep,
			   const struct ple_setting *set)
{
	for (unsigned i = 0; i < rep->nr_series; i++) {
		struct sweep_point *p = new_point(c, set);
		if (!p)
			return -1;
		add_series(p, &rep->series[i]);
	}
	return 0;
}

static bool same_point(const struct sweep_curve *c, const struct sweep_summary *s,
		       const struct sweep_point *p)
{
	for (unsigned i = 0; i < c->nr_params; i++)
		if (strcmp(s->values[i], p->values[i]))
			return false;
	return !strcmp(s->variant, p->variant);
}

static void stat_of(const double *x, unsigned n, struct sweep_stat *out)
{
	struct sample_stats st;
	sample_stats_compute(x, n, &st);
	out->n = n;
	out->mean = n ? st.mean : NAN;
	out->stddev = n ? st.stddev : NAN;
	double h = mean_ci_half_width(st.stddev, n, 0.95);
	out->ci95_low = out->mean - h;
	out->ci95_high = out->mean + h;
}

/* Values compared as numbers, axis by axis; then the variant's first appearance. */
static const struct sweep_curve *sort_curve;
static int by_values(const void *a, const void *b)
{
	const struct sweep_summary *x = a, *y = b;
	for (unsigned i = 0; i < sort_curve->nr_params; i++) {
		unsigned long long u = strtoull(x->values[i], NULL, 10);
		unsigned long long v = strtoull(y->values[i], NULL, 10);
		if (u != v)
			return u < v ? -1 : 1;
	}
	return x->visits < y->visits ? -1 : x->visits > y->visits; /* first index, see below */
}

struct sweep_summary *sweep_curve_summarize(const struct sweep_curve *c, unsigned *nr)
{
	struct sweep_summary *sum = calloc(c->n ? c->n : 1, sizeof(*sum));
	unsigned *first = calloc(c->n ? c->n : 1, sizeof(*first));
	double *x = calloc(c->n ? c->n : 1, 4 * sizeof(*x));
	unsigned n = 0;
	*nr = 0;
	if (!sum || !first || !x) {
		free(sum);
		free(first);
		free(x);
		return NULL;
	}
	for (unsigned k = 0; k < c->n; k++) {
		unsigned j = 0;
		while (j < n && !same_point(c, &sum[j], &c->points[k]))
			j++;
		if (j == n) {
			memcpy(sum[j].values, c->points[k].values, sizeof(sum[j].values));
			str_copy(sum[j].variant, sizeof(sum[j].variant), c->points[k].variant);
			first[j] = k;
			n++;
		}
	}
	for (unsigned j = 0; j < n; j++) {
		struct sweep_summary *s = &sum[j];
		unsigned cnt[4] = {0};
		for (unsigned k = 0; k < c->n; k++) {
			const struct sweep_point *p = &c->points[k];
			if (!same_point(c, s, p))
				continue;
			s->visits++;
			if (!p->ok) {
				if (!s->error[0])
					str_copy(s->error, sizeof(s->error), p->error);
				continue;
			}
			s->ok++;
			const double v[4] = {p->acq_per_s, p->stalls, p->stalled_share,
					     p->pause_exits};
			for (int m = 0; m < 4; m++)
				if (!isnan(v[m]))
					x[m * c->n + cnt[m]++] = v[m];
			if (p->pause_exits_why[0])
				str_copy(s->pause_exits_why, sizeof(s->pause_exits_why),
					 p->pause_exits_why);
		}
		struct sweep_stat *out[4] = {&s->acq_per_s, &s->stalls, &s->stalled_share,
					     &s->pause_exits};
		for (int m = 0; m < 4; m++)
			stat_of(&x[m * c->n], cnt[m], out[m]);
	}
	/* sort on a copy whose visits field holds the first index, then put it back */
	unsigned *visits = calloc(c->n ? c->n : 1, sizeof(*visits));
	if (visits) {
		for (unsigned j = 0; j < n; j++) {
			visits[first[j]] = sum[j].visits;
			sum[j].visits = first[j];
		}
		sort_curve = c;
		qsort(sum, n, sizeof(*sum), by_values);
		for (unsigned j = 0; j < n; j++)
			sum[j].visits = visits[sum[j].visits];
	}
	free(visits);
	free(first);
	free(x);
	*nr = n;
	return sum;
}
