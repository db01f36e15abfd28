// SPDX-License-Identifier: GPL-2.0
#include "experiment/check_figures.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/check_verdicts.h"
#include "model/verdict.h"
#include "stats/holm.h"
#include "util/strfmt.h"

static int push(double **v, unsigned *n, unsigned *cap, double x)
{
	if (*n == *cap) {
		unsigned c = *cap ? 2 * *cap : 16;
		double *g = realloc(*v, c * sizeof(**v));
		if (!g)
			return -1;
		*v = g;
		*cap = c;
	}
	(*v)[(*n)++] = x;
	return 0;
}

static struct check_sample *sample_for(struct check_ctx *k, const struct scenario *s,
				       const char *variant, const struct metric *m)
{
	for (unsigned i = 0; i < k->nr_samples; i++)
		if (k->samples[i].scenario == s && k->samples[i].metric == m &&
		    !strcmp(k->samples[i].variant, variant))
			return &k->samples[i];
	if (k->nr_samples == k->cap_samples) {
		unsigned cap = k->cap_samples ? 2 * k->cap_samples : 16;
		struct check_sample *g = realloc(k->samples, cap * sizeof(*g));
		if (!g)
			return NULL;
		k->samples = g;
		k->cap_samples = cap;
	}
	struct check_sample *x = &k->samples[k->nr_samples++];
	memset(x, 0, sizeof(*x));
	x->scenario = s;
	x->metric = m;
	snprintf(x->variant, sizeof(x->variant), "%s", variant);
	return x;
}

int check_gather_figures(struct check_ctx *k, const struct scenario *s, const struct outcome *rep)
{
	unsigned nm;
	const struct metric *const *m = check_scenario_metrics(k, s, &nm);
	const struct metric *foreign = &foreign_load_metric;
	char label[160];
	for (unsigned i = 0; i < rep->nr_series; i++) {
		const struct series *se = &rep->series[i];
		double *v = malloc((se->nr_runs + 1) * sizeof(*v));
		if (!v)
			return -1;
		check_variant_label(&se->variant, label, sizeof(label));
		for (unsigned j = 0; j < nm; j++) {
			struct check_sample *x = sample_for(k, s, label, m[j]);
			if (!x) {
				free(v);
				return -1;
			}
			x->contended = se->variant.vcpus > 1;
			unsigned n = series_values(se, m[j], v);
			const char *why = series_metric_why(se, m[j]);
			if (why && !x->why[0])
				snprintf(x->why, sizeof(x->why), "%s", why);
			for (unsigned r = 0; r < n; r++)
				if (push(&x->values, &x->n, &x->cap, v[r])) {
					free(v);
					return -1;
				}
			n = series_values(se, foreign, v);
			for (unsigned r = 0; r < n; r++)
				if (push(&x->foreign, &x->nf, &x->capf, v[r])) {
					free(v);
					return -1;
				}
		}
		free(v);
	}
	return 0;
}

/* Round @r out of @x's values and foreign loads. */
static void drop_round(struct check_sample *x, unsigned r)
{
	memmove(&x->values[r], &x->values[r + 1], (x->n - r - 1) * sizeof(*x->values));
	x->n--;
	if (r < x->nf) {
		memmove(&x->foreign[r], &x->foreign[r + 1], (x->nf - r - 1) * sizeof(*x->foreign));
		x->nf--;
	}
}

/* The rounds of variant @first->variant of @s in another regime, left out (see the header). */
static int leave_out_variant(struct check_ctx *k, const struct scenario *s,
			     const struct check_sample *first, unsigned *left, char *note,
			     size_t len)
{
	const unsigned n = first->n;
	bool *off = calloc(n + 1, sizeof(*off));
	if (!off)
		return -1;
	/* the rounds line up across the variant's metrics only where each has every round */
	for (unsigned i = 0; i < k->nr_samples; i++) {
		const struct check_sample *x = &k->samples[i];
		if (x->scenario == s && !strcmp(x->variant, first->variant) && x->n != n) {
			free(off);
			return 0;
		}
	}
	unsigned far = 0;
	for (unsigned i = 0; i < k->nr_samples; i++) {
		const struct check_sample *x = &k->samples[i];
		if (x->scenario == s && !strcmp(x->variant, first->variant))
			far += sample_other_regime(x->values, n, s->other_regime_pct, off);
	}
	for (unsigned r = n; far && r-- > 0;) {
		if (!off[r])
			continue;
		for (unsigned i = 0; i < k->nr_samples; i++) {
			struct check_sample *x = &k->samples[i];
			if (x->scenario != s || strcmp(x->variant, first->variant))
				continue;
			struct sample_stats st;
			sample_stats_compute(x->values, x->n, &st);
			const size_t used = strlen(note);
			snprintf(
			    note + used, len - used, "%s%s %s %.4g (median %.4g, %+.1f %%)",
			    *note ? "; " : "", x->metric->name, x->variant, x->values[r], st.median,
			    st.median ? 100.0 * (x->values[r] - st.median) / fabs(st.median) : 0.0);
		}
		for (unsigned i = 0; i < k->nr_samples; i++) {
			struct check_sample *x = &k->samples[i];
			if (x->scenario == s && !strcmp(x->variant, first->variant))
				drop_round(x, r);
		}
		(*left)++;
	}
	free(off);
	return 0;
}

int check_leave_out_other_regime(struct check_ctx *k, const struct scenario *s, unsigned *left,
				 char *note, size_t len)
{
	*left = 0;
	if (!(s->other_regime_pct > 0.0))
		return 0;
	for (unsigned i = 0; i < k->nr_samples; i++) {
		const struct check_sample *x = &k->samples[i];
		bool seen = false; /* each variant once: at its first sample */
		for (unsigned j = 0; j < i && !seen; j++)
			seen = k->samples[j].scenario == s &&
			       !strcmp(k->samples[j].variant, x->variant);
		if (x->scenario == s && !seen && leave_out_variant(k, s, x, left, note, len))
			return -1;
	}
	return 0;
}

/* Even rounds against odd rounds: an A/A pair from one scenario's runs. */
static unsigned split_aa(const struct check_sample *x, double *a, unsigned *na, double *b)
{
	unsigned nb = 0;
	*na = 0;
	for (unsigned i = 0; i < x->n; i++) {
		if (i % 2)
			b[nb++] = x->values[i];
		else
			a[(*na)++] = x->values[i];
	}
	return nb;
}

/* @t's test: candidate now against the baseline, or odd rounds against even ones. */
static int test_one(const struct check_ctx *k, struct check_tested *t)
{
	const struct check_sample *x = t->s;
	double *a = malloc((x->n + 1) * sizeof(double)), *b = malloc((x->n + 1) * sizeof(double));
	unsigned na, nb;
	if (!a || !b) {
		free(a);
		free(b);
		return -1;
	}
	if (t->kind == AGAINST_ITSELF) {
		nb = split_aa(x, a, &na, b);
	} else {
		const struct baseline_entry *e =
		    baseline_find(k->c->baseline, x->scenario->name, x->variant, x->metric->name);
		double *g = realloc(a, ((e ? e->n : 0) + 1) * sizeof(double));
		if (!g) {
			free(a);
			free(b);
			return -1;
		}
		a = g;
		na = e ? e->n : 0;
		if (e)
			memcpy(a, e->values, na * sizeof(double));
		memcpy(b, x->values, x->n * sizeof(double));
		nb = x->n;
	}
	sample_stats_compute(a, na, &t->base);
	sample_stats_compute(b, nb, &t->cand);
	welch_test(a, na, b, nb, VERDICT_CONFIDENCE, &t->w);
	t->p_adj = t->w.valid ? t->w.p : NAN;
	free(a);
	free(b);
	return 0;
}

/* Without a comparison (recording only): the width of the CI of the mean itself. */
static double mean_ci_width_pct(const struct check_sample *x)
{
	struct welch_result w;
	if (x->n < 2)
		return INFINITY;
	one_sample_t_test(x->values, x->n, VERDICT_CONFIDENCE, &w);
	double mean = w.diff;
	return w.valid && mean != 0.0 ? 100.0 * (w.ci_high - w.ci_low) / fabs(mean) : INFINITY;
}

int check_scenario_narrow(struct check_ctx *k, const struct scenario *s, bool *narrow)
{
	*narrow = true;
	for (unsigned i = 0; i < k->nr_samples; i++) {
		struct check_sample *x = &k->samples[i];
		/* n/a in every run (a lock that never halts has no kick latency): nothing to narrow
		 */
		if (x->scenario != s || !x->n)
			continue;
		struct check_tested t = {.s = x, .kind = k->c->aa ? AGAINST_ITSELF : VS_BASELINE};
		double width;
		if (k->c->aa ||
		    (k->c->baseline_loaded &&
		     baseline_find(k->c->baseline, s->name, x->variant, x->metric->name))) {
			if (test_one(k, &t))
				return -1;
			width = verdict_ci_width_pct(&t.w, t.base.mean);
		} else {
			width = mean_ci_width_pct(x);
		}
		if (!(width <= k->c->threshold_pct))
			*narrow = false;
	}
	return 0;
}

int check_judge_figures(struct check_ctx *k)
{
	struct check_tested *t = calloc(2 * k->nr_samples + 1, sizeof(*t));
	double *p = calloc(2 * k->nr_samples + 1, sizeof(*p));
	unsigned n = 0;
	int rc = -1;
	if (!t || !p)
		goto out;
	for (unsigned i = 0; i < k->nr_samples; i++) {
		struct check_sample *x = &k->samples[i];
		char name[200];
		(void)pathf(name, sizeof(name), "%s vs baseline: %s", x->metric->name, x->variant);
		/* a figure this variant does not have: n/a with its reason, not a missing baseline
		 */
		if (!x->n) {
			if (check_result_add(k->out, x->scenario->name, name, CHECK_SKIP,
					     "n/a in every run of this variant: %s",
					     x->why[0] ? x->why : "no ok run"))
				goto out;
			continue;
		}
		if (k->c->no_baseline && check_result_add(k->out, x->scenario->name, name,
							  CHECK_SKIP, "%s", k->c->no_baseline))
			goto out;
		if (k->c->baseline_loaded) {
			if (!baseline_find(k->c->baseline, x->scenario->name, x->variant,
					   x->metric->name)) {
				if (check_result_add(k->out, x->scenario->name, name, CHECK_SKIP,
						     "no baseline for this scenario, variant and "
						     "metric on this machine (%s): record one with "
						     "--record",
						     k->out->baseline_key))
					goto out;
			} else {
				t[n] = (struct check_tested){.s = x, .kind = VS_BASELINE};
				if (test_one(k, &t[n++]))
					goto out;
			}
		}
		if (k->c->aa) {
			t[n] = (struct check_tested){.s = x, .kind = AGAINST_ITSELF};
			if (test_one(k, &t[n++]))
				goto out;
		}
	}
	for (unsigned i = 0; i < n; i++)
		p[i] = t[i].p_adj;
	holm_adjust(p, n, p);
	for (unsigned i = 0; i < n; i++) {
		t[i].p_adj = p[i];
		if (check_emit_verdict(k, &t[i]))
			goto out;
	}
	rc = 0;
out:
	free(t);
	free(p);
	return rc;
}

int check_record_baseline(struct check_ctx *k)
{
	for (unsigned j = 0; j < k->nr_samples; j++) {
		const struct check_sample *x = &k->samples[j];
		if (!k->complete[x->scenario - k->c->suite->scenarios] || !x->n)
			continue;
		if (baseline_put(k->c->baseline, x->scenario->name, x->variant, x->metric->name,
				 x->values, x->n))
			return -1;
		/* the host's interference then, so that a later check knows whether it compares
		 * like with like */
		if (x->nf && baseline_put(k->c->baseline, x->scenario->name, x->variant,
					  FOREIGN_LOAD_METRIC, x->foreign, x->nf))
			return -1;
	}
	return 0;
}

void check_free_samples(struct check_ctx *k)
{
	for (unsigned i = 0; i < k->nr_samples; i++) {
		free(k->samples[i].values);
		free(k->samples[i].foreign);
	}
	free(k->samples);
}
