// SPDX-License-Identifier: GPL-2.0
#include "model/tune_recommend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/holm.h"
#include "util/strfmt.h"

#define ALPHA 0.05

const char *tune_claim_name(enum tune_claim c)
{
	switch (c) {
	case TUNE_CLAIM_NONE:
		return "none";
	case TUNE_CLAIM_SAME:
		return "same";
	case TUNE_CLAIM_GAIN:
		return "gain";
	case TUNE_CLAIM_LOSS:
		return "loss";
	case TUNE_CLAIM_AS_GOOD:
		return "as good";
	case TUNE_CLAIM_TOO_NOISY:
		return "too noisy";
	case TUNE_CLAIM_UNRESOLVED:
		return "unresolved";
	}
	return "?";
}

/* @a against @b, from the confirmation rounds where both have 2 visits there. */
static void compare(const struct tune_search *s, int a, int b, unsigned shape,
		    struct tune_comparison *out)
{
	out->p_holm = NAN;
	out->from_confirm = false;
	if (s->confirm_round != TUNE_NO_ROUND) {
		tune_diff(s, (unsigned)a, (unsigned)b, shape, s->confirm_round, &out->d);
		out->from_confirm = out->d.valid;
	}
	if (!out->from_confirm)
		tune_diff(s, (unsigned)a, (unsigned)b, shape, 0, &out->d);
	out->claim = out->d.valid ? TUNE_CLAIM_TOO_NOISY : TUNE_CLAIM_UNRESOLVED;
}

/* the best's gain over @ref: none, the same, or a test */
static void against(const struct tune_search *s, int best, int ref, unsigned shape,
		    struct tune_comparison *out)
{
	memset(out, 0, sizeof(*out));
	out->ref = ref;
	out->p_holm = NAN;
	if (ref < 0)
		out->claim = TUNE_CLAIM_NONE;
	else if (ref == best)
		out->claim = TUNE_CLAIM_SAME;
	else
		compare(s, best, ref, shape, out);
}

/* Grid and other value candidates with visits, ascending by value: the flat ranges. */
static void flat_ranges(const struct tune_search *s, unsigned shape, struct tune_shape_rec *r)
{
	unsigned idx[TUNE_MAX_CANDIDATES], n = 0, inside = 0;
	bool in[TUNE_MAX_CANDIDATES];
	for (unsigned c = 0; c < s->nr_cands; c++) {
		struct tune_cell cell;
		if (s->cands[c].roles & TUNE_ROLE_PLE_OFF)
			continue;
		tune_cell(s, c, shape, 0, -1, &cell);
		if (!cell.n)
			continue;
		unsigned j = n++;
		for (; j > 0 && s->cands[idx[j - 1]].value > s->cands[c].value; j--) {
			idx[j] = idx[j - 1];
			in[j] = in[j - 1];
		}
		idx[j] = c;
		in[j] = tune_gain_pct(s, cell.mean, r->best_cell.mean) >= -s->cfg.tolerance_pct;
	}
	r->nr_flat = 0;
	for (unsigned i = 0; i < n; i++) {
		if (!in[i])
			continue;
		inside++;
		bool start = i == 0 || !in[i - 1];
		if (start && r->nr_flat == TUNE_MAX_FLAT)
			break;
		struct tune_flat *f = &r->flat[start ? r->nr_flat++ : r->nr_flat - 1];
		if (start) {
			f->lo = s->cands[idx[i]].value;
			f->has_best = false;
		}
		f->hi = s->cands[idx[i]].value;
		f->has_best |= (int)idx[i] == r->best;
	}
	r->flat_everywhere = n > 1 && inside == n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The median relative stddev of the visits at one value: how much a single visit tells. */
static double spread(const struct tune_search *s, unsigned shape)
{
	double rel[TUNE_MAX_CANDIDATES];
	unsigned n = 0;
	for (unsigned c = 0; c < s->nr_cands; c++) {
		struct tune_cell cell;
		tune_cell(s, c, shape, 0, -1, &cell);
		if (cell.n >= 2 && cell.mean != 0.0)
			rel[n++] = 100.0 * cell.sd / fabs(cell.mean);
	}
	if (!n)
		return NAN;
	qsort(rel, n, sizeof(rel[0]), cmp_double);
	return n % 2 ? rel[n / 2] : (rel[n / 2 - 1] + rel[n / 2]) / 2.0;
}

static unsigned value_candidates_with(const struct tune_search *s, unsigned shape, unsigned min_n)
{
	unsigned n = 0;
	for (unsigned c = 0; c < s->nr_cands; c++) {
		struct tune_cell cell;
		if (s->cands[c].roles & TUNE_ROLE_PLE_OFF)
			continue;
		tune_cell(s, c, shape, 0, -1, &cell);
		n += cell.n >= min_n;
	}
	return n;
}

/*
 * The best, or the flat range around it, at an end of what was measured (0
 * and PLE off aside: settings of their own), where the curve is not flat
 * everywhere: what lies beyond was not searched, and a value there may be
 * better still. The range to search next spans two coarse steps either side
 * of that end.
 */
static void edge(const struct tune_search *s, unsigned k, struct tune_shape_rec *r)
{
	const struct tune_space *sp = &s->cfg.space;
	const struct tune_flat *f = NULL;
	int lo = -1, hi = -1;
	if (r->flat_everywhere || isnan(s->cands[r->best].log2v))
		return;
	for (unsigned i = 0; i < r->nr_flat && !f; i++)
		if (r->flat[i].has_best)
			f = &r->flat[i];
	for (unsigned i = 0; i < s->nr_cands; i++) {
		const struct tune_candidate *c = &s->cands[i];
		struct tune_cell cell;
		if (isnan(c->log2v))
			continue;
		tune_cell(s, i, k, 0, -1, &cell);
		if (!cell.n)
			continue;
		if (lo < 0 || c->value < s->cands[lo].value)
			lo = (int)i;
		if (hi < 0 || c->value > s->cands[hi].value)
			hi = (int)i;
	}
	if (!f || lo < 0 || lo == hi) /* the only value measured */
		return;
	const uint64_t lv = s->cands[lo].value, hv = s->cands[hi].value;
	const bool least = f->lo <= lv && lv <= f->hi, greatest = f->lo <= hv && hv <= f->hi;
	if (least == greatest) /* neither, or flat from end to end */
		return;
	const struct tune_candidate *e = &s->cands[least ? lo : hi];
	r->edge = least ? -1 : 1;
	r->edge_value = e->value;
	if ((least && e->value <= 1) || (greatest && e->value >= sp->max))
		return; /* the module takes nothing beyond */
	double span = 2.0 * sp->coarse;
	r->widen_lo = tune_space_value(sp, fmax(0.0, e->log2v - span));
	r->widen_hi = tune_space_value(sp, e->log2v + span);
}

/* The values whose visits split by regime. */
static void splits(const struct tune_search *s, unsigned k, struct tune_shape_rec *r)
{
	r->regime_rule = s->regime[k];
	r->nr_split = 0;
	for (unsigned c = 0; c < s->nr_cands && r->regime_rule; c++) {
		struct tune_cell cell;
		tune_cell(s, c, k, 0, -1, &cell);
		if (cell.other_regime)
			r->split[r->nr_split++] = (int)c;
	}
}

static void shape_rec(const struct tune_search *s, unsigned k, struct tune_shape_rec *r)
{
	memset(r, 0, sizeof(*r));
	splits(s, k, r);
	r->best = tune_best_chosen(s, k, 2);
	r->spread_pct = spread(s, k);
	if (r->best < 0 || value_candidates_with(s, k, 2) < 2) {
		unsigned measured = 0;
		for (unsigned i = 0; i < s->nr_visits; i++)
			measured += s->visits[i].ok[k];
		snprintf(r->why, sizeof(r->why),
			 "nothing resolvable in this budget: %u ok visit(s) of this shape, and a "
			 "comparison needs two values with 2 visits each",
			 measured);
		r->best = tune_best(s, k, 0, 1);
		if (r->best >= 0)
			tune_cell(s, (unsigned)r->best, k, 0, -1, &r->best_cell);
		return;
	}
	r->resolved = true;
	tune_cell(s, (unsigned)r->best, k, 0, -1, &r->best_cell);
	against(s, r->best, tune_search_role(s, TUNE_ROLE_CURRENT), k, &r->vs_current);
	against(s, r->best, tune_search_role(s, TUNE_ROLE_DEFAULT), k, &r->vs_default);
	int off = tune_search_role(s, TUNE_ROLE_PLE_OFF);
	memset(&r->ple_off, 0, sizeof(r->ple_off));
	r->ple_off.ref = off;
	r->ple_off.p_holm = NAN;
	if (off < 0)
		r->ple_off.claim = TUNE_CLAIM_NONE;
	else
		compare(s, off, r->best, k, &r->ple_off);
	flat_ranges(s, k, r);
}

void tune_edge_note(const struct tune_search *s, const struct tune_shape_rec *r, char *buf,
		    size_t len)
{
	const struct tune_space *sp = &s->cfg.space;
	buf[0] = '\0';
	if (!r->resolved || !r->edge)
		return;
	const bool lower = r->edge < 0;
	const uint64_t v = s->cands[r->best].value;
	char range[160], widen[160];
	if (sp->lo == sp->info->lo && sp->hi == sp->info->hi)
		snprintf(range, sizeof(range), "2^%g..2^%g, tune's default range for %s", sp->lo,
			 sp->hi, sp->param);
	else
		snprintf(range, sizeof(range), "%llu..%llu",
			 (unsigned long long)tune_space_value(sp, sp->lo),
			 (unsigned long long)tune_space_value(sp, sp->hi));
	if (r->widen_lo)
		snprintf(widen, sizeof(widen), "widen with --param %s=%llu..%llu", sp->param,
			 (unsigned long long)r->widen_lo, (unsigned long long)r->widen_hi);
	else
		snprintf(widen, sizeof(widen), "%s takes no %s value", sp->info->module,
			 lower ? "smaller" : "greater");
	char at[96];
	if (v == r->edge_value)
		snprintf(at, sizeof(at), "best at the");
	else
		snprintf(at, sizeof(at), "best %llu within %g %% of the", (unsigned long long)v,
			 s->cfg.tolerance_pct);
	snprintf(buf, len,
		 "%s %s edge %llu of the range searched (%s): the optimum may lie %s it; %s", at,
		 lower ? "lower" : "upper", (unsigned long long)r->edge_value, range,
		 lower ? "below" : "above", widen);
}

/* Holm over every test of the tune, then each claim: gain, as good, or too noisy. */
static void claims(const struct tune_search *s, struct tune_recommendation *out)
{
	struct tune_comparison *cmp[3 * TUNE_MAX_SHAPES];
	double p[3 * TUNE_MAX_SHAPES] = {0};
	unsigned n = 0;
	for (unsigned k = 0; k < out->nr_shapes; k++) {
		struct tune_shape_rec *r = &out->shapes[k];
		struct tune_comparison *all[3] = {&r->vs_current, &r->vs_default, &r->ple_off};
		for (int i = 0; i < 3; i++) {
			/* the current value and the default are often one: one test, not two */
			if (i == 1 && r->vs_default.ref == r->vs_current.ref)
				continue;
			if (r->resolved && all[i]->d.valid &&
			    all[i]->claim == TUNE_CLAIM_TOO_NOISY) {
				cmp[n] = all[i];
				p[n++] = all[i]->d.p;
			}
		}
	}
	holm_adjust(p, n, p);
	for (unsigned i = 0; i < n; i++) {
		struct tune_comparison *c = cmp[i];
		c->p_holm = p[i];
		if (p[i] < ALPHA && c->d.low > 0.0)
			c->claim = TUNE_CLAIM_GAIN;
		else if (p[i] < ALPHA && c->d.high < 0.0)
			c->claim = TUNE_CLAIM_LOSS;
		else if (c->d.high - c->d.low <= s->cfg.tolerance_pct)
			c->claim = TUNE_CLAIM_AS_GOOD;
	}
	for (unsigned k = 0; k < out->nr_shapes; k++) {
		struct tune_shape_rec *r = &out->shapes[k];
		if (r->vs_default.ref == r->vs_current.ref &&
		    r->vs_current.claim != TUNE_CLAIM_SAME) {
			r->vs_default.claim = r->vs_current.claim;
			r->vs_default.p_holm = r->vs_current.p_holm;
		}
		/* noise kept every comparison of the best from a decision */
		const enum tune_claim a = r->vs_current.claim, b = r->vs_default.claim;
		const bool decided = a == TUNE_CLAIM_GAIN || a == TUNE_CLAIM_LOSS ||
				     a == TUNE_CLAIM_AS_GOOD || b == TUNE_CLAIM_GAIN ||
				     b == TUNE_CLAIM_LOSS || b == TUNE_CLAIM_AS_GOOD;
		r->too_noisy = r->resolved && !decided &&
			       (a == TUNE_CLAIM_TOO_NOISY || b == TUNE_CLAIM_TOO_NOISY);
	}
}

static void change(const struct tune_search *s, struct tune_recommendation *out)
{
	const int current = tune_search_role(s, TUNE_ROLE_CURRENT);
	bool gain = false;
	for (unsigned k = 0; k < out->nr_shapes; k++)
		gain |=
		    out->shapes[k].resolved && out->shapes[k].vs_current.claim == TUNE_CLAIM_GAIN;
	if (current >= 0 && out->mix == current)
		snprintf(out->change_why, sizeof(out->change_why),
			 "the host's value %llu serves the mix best of all values tried",
			 (unsigned long long)s->cands[current].value);
	else if (!gain && current >= 0)
		snprintf(out->change_why, sizeof(out->change_why),
			 "keep the host's value %llu: no value tried was shown better than it for "
			 "any shape",
			 (unsigned long long)s->cands[current].value);
	else
		out->change = true;
}

/* The value whose worst loss against each resolved shape's own best is least. */
static void mix(const struct tune_search *s, struct tune_recommendation *out)
{
	out->mix = -1;
	out->mix_worst_loss_pct = NAN;
	double best_worst = INFINITY, best_sum = INFINITY;
	/* one value every shape's best: the mix loses nothing anywhere (whatever later rounds'
	 * means say of a value as good) */
	int same = -1;
	for (unsigned k = 0; k < out->nr_shapes; k++)
		if (out->shapes[k].resolved)
			same = same == -1 || same == out->shapes[k].best ? out->shapes[k].best : -2;
	if (same >= 0) {
		out->mix = same;
		best_worst = 0.0;
	}
	for (unsigned c = 0; c < s->nr_cands && out->nr_resolved && same < 0; c++) {
		if (s->cands[c].roles & TUNE_ROLE_PLE_OFF)
			continue;
		double worst = -INFINITY, sum = 0.0;
		bool everywhere = true;
		for (unsigned k = 0; k < out->nr_shapes && everywhere; k++) {
			const struct tune_shape_rec *r = &out->shapes[k];
			struct tune_cell cell;
			if (!r->resolved)
				continue;
			tune_cell(s, c, k, 0, -1, &cell);
			everywhere = cell.n >= 2;
			double loss = -tune_gain_pct(s, cell.mean, r->best_cell.mean);
			worst = fmax(worst, loss);
			sum += loss;
		}
		if (!everywhere)
			continue;
		if (worst < best_worst || (worst == best_worst && sum < best_sum)) {
			out->mix = (int)c;
			best_worst = worst;
			best_sum = sum;
		}
	}
	if (out->mix < 0)
		return;
	out->mix_worst_loss_pct = best_worst;
	change(s, out);
	for (unsigned k = 0; k < out->nr_shapes; k++)
		if (out->shapes[k].resolved)
			tune_diff(s, (unsigned)out->mix, (unsigned)out->shapes[k].best, k, 0,
				  &out->shapes[k].mix);
}

static int answer(const struct tune_shape_rec *r)
{
	if (!r->resolved || r->ple_off.ref < 0)
		return 2;
	if (r->ple_off.claim == TUNE_CLAIM_GAIN)
		return +1;
	if (r->ple_off.claim == TUNE_CLAIM_LOSS)
		return -1;
	return r->ple_off.claim == TUNE_CLAIM_AS_GOOD ? 0 : 2;
}

/* Per family of shapes (the same but for over-commit), PLE off's answer by ratio. */
static void flips(const struct tune_search *s, struct tune_recommendation *out)
{
	out->nr_flips = 0;
	if (tune_search_role(s, TUNE_ROLE_PLE_OFF) < 0)
		return;
	for (unsigned k = 0; k < out->nr_shapes; k++) {
		const struct tune_shape *sh = &s->cfg.shapes[k];
		struct tune_flip *f = NULL;
		for (unsigned i = 0; i < out->nr_flips && !f; i++)
			if (!strcmp(out->flips[i].family, sh->family))
				f = &out->flips[i];
		if (!f) {
			f = &out->flips[out->nr_flips++];
			memset(f, 0, sizeof(*f));
			str_copy(f->family, sizeof(f->family), sh->family);
		}
		unsigned j = f->nr++;
		for (; j > 0 && f->ratio[j - 1] > sh->ratio; j--) {
			f->ratio[j] = f->ratio[j - 1];
			f->answer[j] = f->answer[j - 1];
		}
		f->ratio[j] = sh->ratio;
		f->answer[j] = answer(&out->shapes[k]);
	}
	/* off better (or no worse) at the lower ratio, the window better at the higher */
	for (unsigned i = 0; i < out->nr_flips; i++) {
		struct tune_flip *f = &out->flips[i];
		for (unsigned j = 0; j + 1 < f->nr && !f->found; j++) {
			int a = f->answer[j], b = f->answer[j + 1];
			if ((a == +1 && (b == -1 || b == 0)) || (a == 0 && b == -1) ||
			    (a == -1 && (b == +1 || b == 0)) || (a == 0 && b == +1)) {
				f->found = true;
				f->below = f->ratio[j];
				f->above = f->ratio[j + 1];
			}
		}
	}
}

void tune_recommend(const struct tune_search *s, struct tune_recommendation *out)
{
	memset(out, 0, sizeof(*out));
	out->nr_shapes = s->cfg.nr_shapes;
	for (unsigned k = 0; k < out->nr_shapes; k++) {
		shape_rec(s, k, &out->shapes[k]);
		out->nr_resolved += out->shapes[k].resolved;
	}
	claims(s, out);
	for (unsigned k = 0; k < out->nr_shapes; k++)
		if (out->shapes[k].resolved && !out->shapes[k].too_noisy)
			edge(s, k, &out->shapes[k]);
	mix(s, out);
	flips(s, out);
}
