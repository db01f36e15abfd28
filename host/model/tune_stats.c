// SPDX-License-Identifier: GPL-2.0
#include "model/tune_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/sample_stats.h"

#define CONFIDENCE 0.95

/* The objective of @cand's ok visits for @shape over every round, into @x. */
static unsigned objectives(const struct tune_search *s, unsigned cand, unsigned shape, double *x)
{
	unsigned n = 0;
	for (unsigned i = 0; i < s->nr_visits; i++) {
		const struct tune_visit *v = &s->visits[i];
		if (v->cand == cand && v->ok[shape] && !isnan(v->y[shape]))
			x[n++] = v->y[shape];
	}
	return n;
}

bool tune_visit_other_regime(const struct tune_search *s, const struct tune_visit *v,
			     unsigned shape)
{
	const double m = s->cands[v->cand].regime_median[shape];
	if (!s->regime[shape] || isnan(m))
		return false;
	return fabs(v->y[shape] - m) > TUNE_REGIME_SPLIT_PCT / 100.0 * fabs(m);
}

void tune_search_regimes(struct tune_search *s)
{
	double *x = malloc((s->nr_visits ? s->nr_visits : 1) * sizeof(*x));
	double rel[TUNE_MAX_CANDIDATES];
	struct sample_stats st;
	for (unsigned k = 0; k < s->cfg.nr_shapes && k < TUNE_MAX_SHAPES; k++) {
		unsigned nr = 0;
		s->regime[k] = false;
		for (unsigned c = 0; c < s->nr_cands; c++) {
			s->cands[c].regime_median[k] = NAN;
			unsigned n = x ? objectives(s, c, k, x) : 0;
			if (!n)
				continue;
			sample_stats_compute(x, n, &st);
			s->cands[c].regime_median[k] = st.median;
			if (n >= 2 && st.median != 0.0)
				rel[nr++] = 100.0 * st.mad / fabs(st.median);
		}
		if (!nr)
			continue;
		/* the shape's ordinary spread: the median over its values */
		sample_stats_compute(rel, nr, &st);
		s->regime[k] = st.median <= TUNE_REGIME_QUIET_PCT;
	}
	free(x);
}

/* The values of @cand for @shape from rounds >= @from, into @x (room for every visit). */
static unsigned values(const struct tune_search *s, unsigned cand, unsigned shape, unsigned from,
		       unsigned until, int fig, double *x, unsigned *other)
{
	unsigned n = 0;
	if (other)
		*other = 0;
	for (unsigned i = 0; i < s->nr_visits; i++) {
		const struct tune_visit *v = &s->visits[i];
		if (v->cand != cand || v->round < from || v->round >= until || !v->ok[shape])
			continue;
		if (tune_visit_other_regime(s, v, shape)) {
			if (other)
				++*other;
			continue;
		}
		double y = fig < 0 ? v->y[shape] : v->fig[shape][fig];
		if (!isnan(y))
			x[n++] = y;
	}
	return n;
}

/* tune_cell over rounds from <= round < until */
static void cell_between(const struct tune_search *s, unsigned cand, unsigned shape, unsigned from,
			 unsigned until, int fig, struct tune_cell *out)
{
	double *x = malloc((s->nr_visits ? s->nr_visits : 1) * sizeof(*x));
	struct sample_stats st;
	memset(out, 0, sizeof(*out));
	out->mean = out->sd = out->ci_low = out->ci_high = NAN;
	if (!x)
		return;
	out->n = values(s, cand, shape, from, until, fig, x, &out->other_regime);
	if (out->n) {
		sample_stats_compute(x, out->n, &st);
		out->mean = st.mean;
		out->sd = st.stddev;
		out->bimodal = st.bimodal;
		double h = mean_ci_half_width(st.stddev, out->n, CONFIDENCE);
		out->ci_low = out->mean - h;
		out->ci_high = out->mean + h;
	}
	free(x);
}

void tune_cell(const struct tune_search *s, unsigned cand, unsigned shape, unsigned from, int fig,
	       struct tune_cell *out)
{
	cell_between(s, cand, shape, from, TUNE_NO_ROUND, fig, out);
}

/* Do @cand's visits for @shape over rounds >= @from differ at all? */
static bool spread_from(const struct tune_search *s, unsigned cand, unsigned shape, unsigned from)
{
	struct tune_cell c;
	tune_cell(s, cand, shape, from, -1, &c);
	return c.n > 1 && c.sd > 0.0;
}

double tune_gain_pct(const struct tune_search *s, double a, double b)
{
	if (isnan(a) || isnan(b) || b == 0.0)
		return NAN;
	return 100.0 * s->cfg.better * (a - b) / fabs(b);
}

void tune_diff(const struct tune_search *s, unsigned a, unsigned b, unsigned shape, unsigned from,
	       struct tune_diff *out)
{
	const unsigned cap = s->nr_visits ? s->nr_visits : 1;
	double *xa = malloc(cap * sizeof(*xa)), *xb = malloc(cap * sizeof(*xb));
	memset(out, 0, sizeof(*out));
	out->gain_pct = out->low = out->high = out->p = NAN;
	out->why = "fewer than 2 visits a side";
	if (!xa || !xb)
		goto out;
	out->na = values(s, a, shape, from, TUNE_NO_ROUND, -1, xa, NULL);
	out->nb = values(s, b, shape, from, TUNE_NO_ROUND, -1, xb, NULL);
	if (!out->na || !out->nb)
		goto out;
	struct sample_stats sa, sb;
	sample_stats_compute(xa, out->na, &sa);
	sample_stats_compute(xb, out->nb, &sb);
	out->gain_pct = tune_gain_pct(s, sa.mean, sb.mean);
	if (out->na < 2 || out->nb < 2)
		goto out;
	if (sb.mean == 0.0) {
		out->why = "the other value's mean is 0: a gain has no size in % of it";
		goto out;
	}
	const double scale = 100.0 * s->cfg.better / fabs(sb.mean);
	if (sa.stddev == 0.0 && sb.stddev == 0.0 && from &&
	    (spread_from(s, a, shape, 0) || spread_from(s, b, shape, 0))) {
		out->chance_tie = true;
		out->why = "identical visits in these rounds, not in the others: no spread by "
			   "chance, not a deterministic host";
		goto out;
	}
	if (sa.stddev == 0.0 && sb.stddev == 0.0) {
		/* a deterministic host (the emulated one): every visit the same */
		out->valid = out->exact = true;
		out->why = NULL;
		out->low = out->high = out->gain_pct;
		out->p = out->gain_pct == 0.0 ? 1.0 : 0.0;
		goto out;
	}
	struct welch_result w;
	welch_test(xb, out->nb, xa, out->na, CONFIDENCE, &w);
	if (!w.valid) {
		out->why = "no test: figures past a double's range";
		goto out;
	}
	out->valid = true;
	out->why = NULL;
	out->p = w.p;
	/* Welch's CI is of mean(a) - mean(b); turned into a gain, a lower objective flips it */
	const double l = scale * w.ci_low, h = scale * w.ci_high;
	out->low = fmin(l, h);
	out->high = fmax(l, h);
out:
	free(xa);
	free(xb);
}

static int best_of(const struct tune_search *s, unsigned shape, unsigned from, unsigned until,
		   unsigned min_n, bool active_only)
{
	int best = -1;
	double best_mean = NAN;
	for (unsigned c = 0; c < s->nr_cands; c++) {
		if ((s->cands[c].roles & TUNE_ROLE_PLE_OFF) || (active_only && !s->cands[c].active))
			continue;
		struct tune_cell cell;
		cell_between(s, c, shape, from, until, -1, &cell);
		/* a value whose visits split counts only where most of them agree */
		if (cell.n < min_n || !cell.n || cell.n <= cell.other_regime)
			continue;
		if (best < 0 || s->cfg.better * (cell.mean - best_mean) > 0.0) {
			best = (int)c;
			best_mean = cell.mean;
		}
	}
	return best;
}

int tune_best(const struct tune_search *s, unsigned shape, unsigned from, unsigned min_n)
{
	/* a value eliminated was shown worse than a best: its few visits do not make it one later
	 */
	int best = best_of(s, shape, from, TUNE_NO_ROUND, min_n, true);
	return best >= 0 ? best : best_of(s, shape, from, TUNE_NO_ROUND, min_n, false);
}

int tune_best_chosen(const struct tune_search *s, unsigned shape, unsigned min_n)
{
	int best = -1;
	if (s->confirm_round != TUNE_NO_ROUND) {
		best = best_of(s, shape, 0, s->confirm_round, min_n, true);
		if (best < 0)
			best = best_of(s, shape, 0, s->confirm_round, min_n, false);
	}
	return best >= 0 ? best : tune_best(s, shape, 0, min_n);
}
