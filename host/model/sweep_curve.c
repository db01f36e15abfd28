// SPDX-License-Identifier: GPL-2.0
#include "model/sweep_curve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cpulist.h"
#include "util/strfmt.h"

void sweep_curve_init(struct sweep_curve *c, const struct ple_setting *axes, unsigned nr)
{
	memset(c, 0, sizeof(*c));
	c->nr_params = nr;
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
	int n = snprintf(buf, len, "%s %s %s %s ple-%s %ux%u/", backend_name(v->backend),
			 lock_name(v->lock), relax_name(v->relax), ring_name(v->ring),
			 ple_name(v->ple), v->vms, v->vcpus);
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

int sweep_curve_add_report(struct sweep_curve *c, const struct report *rep,
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
