// SPDX-License-Identifier: GPL-2.0
#include "experiment/comparisons.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/holm.h"
#include "util/errbuf.h"

#define CONFIDENCE 0.95

static bool contains(const unsigned *list, unsigned n, unsigned value)
{
	for (unsigned i = 0; i < n; i++)
		if (list[i] == value)
			return true;
	return false;
}

/* The axis' values in the matrix, as unsigned. */
static unsigned axis_values(const struct run_plan *o, enum reference_axis axis, unsigned *out)
{
	unsigned n = 0;
	switch (axis) {
	case REFERENCE_BACKEND:
		for (unsigned i = 0; i < o->nr_backends; i++)
			out[n++] = o->backends[i];
		break;
	case REFERENCE_LOCK:
		for (unsigned i = 0; i < o->nr_locks; i++)
			out[n++] = o->locks[i];
		break;
	case REFERENCE_RELAX:
		for (unsigned i = 0; i < o->nr_relaxes; i++)
			out[n++] = o->relaxes[i];
		break;
	case REFERENCE_VCPUS:
		for (unsigned i = 0; i < o->nr_vcpu_counts; i++)
			out[n++] = o->vcpu_counts[i];
		break;
	case REFERENCE_PLE:
		for (unsigned i = 0; i < o->nr_ples; i++)
			out[n++] = o->ples[i];
		break;
	case REFERENCE_AUTO:
		break;
	}
	return n;
}

const char *reference_describe(enum reference_axis axis, unsigned value, char *buf, size_t len)
{
	switch (axis) {
	case REFERENCE_BACKEND:
		snprintf(buf, len, "backend=%s", backend_name(value));
		break;
	case REFERENCE_LOCK:
		snprintf(buf, len, "lock=%s", lock_name(value));
		break;
	case REFERENCE_RELAX:
		snprintf(buf, len, "relax=%s", relax_name(value));
		break;
	case REFERENCE_VCPUS:
		snprintf(buf, len, "vcpus=%u", value);
		break;
	case REFERENCE_PLE:
		snprintf(buf, len, "ple=%s", ple_name(value));
		break;
	case REFERENCE_AUTO:
		snprintf(buf, len, "none");
		break;
	}
	return buf;
}

int reference_resolve(const struct run_plan *o, enum reference_axis *axis, unsigned *value,
		      char *err, size_t errlen)
{
	unsigned values[PLAN_MAX_VCPU_COUNTS + PLERIG_RELAX_COUNT + BACKEND_COUNT + PLE_COUNT];
	if (o->reference_axis != REFERENCE_AUTO) {
		unsigned n = axis_values(o, o->reference_axis, values);
		char desc[48];
		reference_describe(o->reference_axis, o->reference_value, desc, sizeof(desc));
		if (!contains(values, n, o->reference_value))
			return errbuf_printf(err, errlen,
					     "--reference %s: no variant has that value", desc);
		*axis = o->reference_axis;
		*value = o->reference_value;
		return 0;
	}
	/* a VM against the bare metal is the comparison that says what virtualisation costs */
	for (unsigned i = 0; o->nr_backends > 1 && i < o->nr_backends; i++) {
		if (o->backends[i] == BACKEND_NATIVE) {
			*axis = REFERENCE_BACKEND;
			*value = BACKEND_NATIVE;
			return 0;
		}
	}
	static const enum reference_axis order[] = {REFERENCE_RELAX, REFERENCE_PLE, REFERENCE_LOCK,
						    REFERENCE_VCPUS, REFERENCE_BACKEND};
	for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (axis_values(o, order[i], values) > 1) {
			*axis = order[i];
			*value = values[0];
			return 0;
		}
	}
	*axis = REFERENCE_AUTO;
	return 0;
}

static unsigned axis_of(const struct variant *v, enum reference_axis axis)
{
	switch (axis) {
	case REFERENCE_BACKEND:
		return v->backend;
	case REFERENCE_LOCK:
		return v->lock;
	case REFERENCE_RELAX:
		return v->relax;
	case REFERENCE_VCPUS:
		return v->vcpus;
	case REFERENCE_PLE:
		return v->ple;
	case REFERENCE_AUTO:
		break;
	}
	return 0;
}

/* On one host, equal in everything but @axis (the ring follows the backend, so it is ignored then).
 */
static bool partners(const struct variant *a, const struct variant *b, enum reference_axis axis)
{
	/* hosts are never compared with each other here: `plerig compare` can, when asked */
	return a->host == b->host && (axis == REFERENCE_BACKEND || a->backend == b->backend) &&
	       (axis == REFERENCE_LOCK || a->lock == b->lock) &&
	       (axis == REFERENCE_RELAX || a->relax == b->relax) &&
	       (axis == REFERENCE_VCPUS || a->vcpus == b->vcpus) &&
	       (axis == REFERENCE_PLE || a->ple == b->ple) && a->halt_poll_ns == b->halt_poll_ns &&
	       (axis == REFERENCE_BACKEND || a->ring == b->ring) && a->vms == b->vms;
}

/* The value of @m in run @i of @s, NaN where that run has none. */
static double run_value(const struct series *s, unsigned i, const struct metric *m)
{
	struct figures f;
	if (i >= s->nr_runs || !s->runs[i].ok)
		return NAN;
	figures_for_variant(&s->runs[i], &f);
	return m->get(&f);
}

/*
 * Run i of every variant ran in round i: pair them, and test the
 * per-round differences (cand - base), which cancel the drift that moves
 * both runs of a round. Every round is kept, a 0 too (counts such as
 * holder preemptions are often 0, and a ratio test would have to drop
 * those rounds and could then point the other way than the means do).
 * Paired only when every value of either side has its partner: then the
 * mean of the differences is the difference of the means, and the paired
 * change can never contradict them. Otherwise Welch's test on all runs.
 */
static void compare_paired(struct comparison *c, const struct series *base,
			   const struct series *cand, const struct metric *m, double *d)
{
	unsigned n = 0;
	for (unsigned i = 0; i < base->nr_runs && i < cand->nr_runs; i++) {
		const double x = run_value(base, i, m), y = run_value(cand, i, m);
		if (isfinite(x) && isfinite(y))
			d[n++] = y - x;
	}
	if (n < 2 || n != c->base.n || n != c->cand.n)
		return;
	c->paired_n = n;
	one_sample_t_test(d, n, CONFIDENCE, &c->paired);
}

static void compare_metric(struct comparison *c, const struct outcome *rep,
			   const struct series *base, const struct series *cand,
			   const struct metric *m, double *a, double *b)
{
	unsigned na = series_values(base, m, a);
	unsigned nb = series_values(cand, m, b);
	c->metric = m;
	sample_stats_compute(a, na, &c->base);
	sample_stats_compute(b, nb, &c->cand);
	welch_test(a, na, b, nb, CONFIDENCE, &c->welch);
	if (rep->order != ORDER_SEQUENTIAL)
		compare_paired(c, base, cand, m, a);
}

/* Holm's correction over the p-values the verdicts rest on: the report is one family. */
static int adjust_holm(struct outcome *rep)
{
	double *p = calloc(rep->nr_comparisons + 1, sizeof(*p));
	if (!p)
		return -1;
	for (unsigned i = 0; i < rep->nr_comparisons; i++) {
		const struct comparison *c = &rep->comparisons[i];
		const struct welch_result *t = c->paired_n ? &c->paired : &c->welch;
		p[i] = t->valid ? t->p : NAN;
	}
	holm_adjust(p, rep->nr_comparisons, p);
	for (unsigned i = 0; i < rep->nr_comparisons; i++) {
		rep->comparisons[i].p_holm = p[i];
		rep->comparisons[i].holm = true;
	}
	free(p);
	return 0;
}

int comparisons_build(struct outcome *rep, enum reference_axis axis, unsigned value)
{
	rep->nr_comparisons = 0;
	if (axis == REFERENCE_AUTO)
		return 0;
	unsigned max_runs = 1;
	for (unsigned i = 0; i < rep->nr_series; i++)
		if (rep->series[i].nr_runs > max_runs)
			max_runs = rep->series[i].nr_runs;
	double *a = calloc(max_runs, sizeof(*a)), *b = calloc(max_runs, sizeof(*b));
	rep->comparisons = calloc((size_t)rep->nr_series * nr_metrics, sizeof(*rep->comparisons));
	if (!a || !b || !rep->comparisons) {
		free(a);
		free(b);
		return -1;
	}
	for (unsigned c = 0; c < rep->nr_series; c++) {
		const struct variant *cv = &rep->series[c].variant;
		if (axis_of(cv, axis) == value)
			continue;
		for (unsigned s = 0; s < rep->nr_series; s++) {
			const struct variant *bv = &rep->series[s].variant;
			if (axis_of(bv, axis) != value || !partners(bv, cv, axis))
				continue;
			for (unsigned m = 0; m < nr_metrics; m++) {
				struct comparison *cmp = &rep->comparisons[rep->nr_comparisons++];
				cmp->reference = s;
				cmp->candidate = c;
				compare_metric(cmp, rep, &rep->series[s], &rep->series[c],
					       &metrics[m], a, b);
			}
			break;
		}
	}
	free(a);
	free(b);
	return adjust_holm(rep);
}
