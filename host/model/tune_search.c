// SPDX-License-Identifier: GPL-2.0
#include "model/tune_search.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/tune_stats.h"

/* peaks of one shape's curve refined per stage: a second mode, and a third for noise */
#define MAX_PEAKS 3

static const char *const fig_names[TUNE_FIG_COUNT] = {
    "acq_per_s",
    "wait_p99_ns",
    "holder_preemptions_per_s",
    "ple_exits_per_s",
    "yields_attempted_per_s",
    "yields_successful_per_s",
    "halts_per_s",
    "kicks_per_s",
};

const char *tune_fig_name(enum tune_fig f)
{
	return f < TUNE_FIG_COUNT ? fig_names[f] : "?";
}

const char *tune_stop_name(enum tune_stop s)
{
	switch (s) {
	case TUNE_STOP_NONE:
		return "not stopped";
	case TUNE_STOP_RESOLVED:
		return "resolved";
	case TUNE_STOP_BUDGET:
		return "budget spent";
	case TUNE_STOP_VISITS:
		return "visits spent";
	case TUNE_STOP_INTERRUPTED:
		return "interrupted";
	case TUNE_STOP_ERROR:
		return "error";
	}
	return "?";
}

void tune_config_defaults(struct tune_config *c)
{
	memset(c, 0, sizeof(*c));
	c->better = +1;
	c->tolerance_pct = 5.0;
	c->stage_rounds = 2;
	c->min_confirm_rounds = 2;
	c->budget_s = 600.0;
	c->seed = 1;
}

/* The candidate of @value with @roles added, new when there is none: its index, or -1 (full). */
static int add_value(struct tune_search *s, uint64_t value, unsigned roles)
{
	for (unsigned i = 0; i < s->nr_cands; i++) {
		struct tune_candidate *c = &s->cands[i];
		if (!(c->roles & TUNE_ROLE_PLE_OFF) && c->value == value &&
		    !(roles & TUNE_ROLE_PLE_OFF)) {
			c->roles |= roles;
			c->active = true;
			return (int)i;
		}
	}
	if (s->nr_cands == TUNE_MAX_CANDIDATES)
		return -1;
	struct tune_candidate *c = &s->cands[s->nr_cands];
	memset(c, 0, sizeof(*c));
	c->value = value;
	c->roles = roles;
	c->log2v = value && !(roles & TUNE_ROLE_PLE_OFF) ? log2((double)value) : NAN;
	c->stage = s->stage;
	c->active = true;
	for (unsigned k = 0; k < TUNE_MAX_SHAPES; k++)
		c->regime_median[k] = NAN;
	return (int)s->nr_cands++;
}

int tune_search_role(const struct tune_search *s, unsigned role)
{
	for (unsigned i = 0; i < s->nr_cands; i++)
		if (s->cands[i].roles & role)
			return (int)i;
	return -1;
}

int tune_search_init(struct tune_search *s, const struct tune_config *cfg)
{
	const struct tune_space *sp = &cfg->space;
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	s->step = sp->coarse;
	s->confirm_round = TUNE_NO_ROUND;
	s->holding = sp->has_current;
	s->held = sp->current;
	if (cfg->nr_shapes == 0 || cfg->nr_shapes > TUNE_MAX_SHAPES || !(sp->coarse > 0.0) ||
	    !(sp->fine > 0.0) || sp->hi < sp->lo)
		return -1;
	/* the grid from lo, and hi itself where the step does not land on it */
	for (double e = sp->lo; e < sp->hi + 1e-9; e += sp->coarse)
		if (add_value(s, tune_space_value(sp, e), TUNE_ROLE_GRID) < 0)
			return -1;
	if (add_value(s, tune_space_value(sp, sp->hi), TUNE_ROLE_GRID) < 0)
		return -1;
	if (sp->zero && add_value(s, 0, TUNE_ROLE_ZERO) < 0)
		return -1;
	if (add_value(s, sp->kernel_default, TUNE_ROLE_DEFAULT) < 0)
		return -1;
	if (sp->has_current && add_value(s, sp->current, TUNE_ROLE_CURRENT) < 0)
		return -1;
	if (sp->ple_off &&
	    add_value(s, sp->has_current ? sp->current : sp->kernel_default, TUNE_ROLE_PLE_OFF) < 0)
		return -1;
	return 0;
}

void tune_search_free(struct tune_search *s)
{
	free(s->visits);
	s->visits = NULL;
	s->nr_visits = s->cap = 0;
}

/*
 * Shown worse than the best of every shape by more than the tolerance: no
 * more visits; a kept candidate is parked instead, until the confirmation.
 */
void tune_search_eliminate(struct tune_search *s)
{
	int best[TUNE_MAX_SHAPES];
	for (unsigned k = 0; k < s->cfg.nr_shapes; k++)
		best[k] = tune_best(s, k, 0, 2);
	for (unsigned c = 0; c < s->nr_cands; c++) {
		struct tune_candidate *cand = &s->cands[c];
		if (!cand->active)
			continue;
		bool worse_everywhere = true;
		for (unsigned k = 0; k < s->cfg.nr_shapes && worse_everywhere; k++) {
			struct tune_diff d;
			if (best[k] < 0 || best[k] == (int)c) {
				worse_everywhere = false;
				continue;
			}
			tune_diff(s, c, (unsigned)best[k], k, 0, &d);
			worse_everywhere = d.valid && d.high < -s->cfg.tolerance_pct;
		}
		if (worse_everywhere && (cand->roles & TUNE_ROLES_KEPT))
			cand->parked = true;
		else if (worse_everywhere)
			cand->active = false;
	}
}

/* Grid candidates with data for @shape, ascending by value, into @idx; their means into @m. */
static unsigned grid_curve(const struct tune_search *s, unsigned shape, unsigned *idx, double *m)
{
	unsigned n = 0;
	for (unsigned c = 0; c < s->nr_cands; c++) {
		const struct tune_candidate *cand = &s->cands[c];
		if (!(cand->roles & TUNE_ROLE_GRID) || isnan(cand->log2v))
			continue;
		struct tune_cell cell;
		tune_cell(s, c, shape, 0, -1, &cell);
		if (!cell.n)
			continue;
		unsigned j = n++;
		while (j > 0 && s->cands[idx[j - 1]].value > cand->value) {
			idx[j] = idx[j - 1];
			m[j] = m[j - 1];
			j--;
		}
		idx[j] = c;
		m[j] = cell.mean;
	}
	return n;
}

/*
 * The peaks of @shape worth a closer look: local maxima of its grid curve
 * within the tolerance of its best, the highest first, at most MAX_PEAKS.
 * None where the whole curve is within the tolerance (flat: a finer grid
 * cannot tell its values apart either).
 */
static unsigned peaks(const struct tune_search *s, unsigned shape, unsigned *out)
{
	unsigned idx[TUNE_MAX_CANDIDATES], n, np = 0, flat = 0;
	double m[TUNE_MAX_CANDIDATES], height[MAX_PEAKS], top = NAN;
	const double b = s->cfg.better, tol = s->cfg.tolerance_pct;
	n = grid_curve(s, shape, idx, m);
	for (unsigned i = 0; i < n; i++)
		if (isnan(top) || b * (m[i] - top) > 0.0)
			top = m[i];
	for (unsigned i = 0; i < n; i++)
		flat += tune_gain_pct(s, m[i], top) >= -tol;
	if (n < 2 || flat == n)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		bool left = i == 0 || b * (m[i] - m[i - 1]) >= 0.0;
		bool right = i + 1 == n || b * (m[i] - m[i + 1]) >= 0.0;
		if (!left || !right || tune_gain_pct(s, m[i], top) < -tol)
			continue;
		/* kept in order of height, the lowest dropped when full */
		unsigned j = np < MAX_PEAKS ? np++ : MAX_PEAKS;
		for (; j > 0 && b * (m[i] - height[j - 1]) > 0.0; j--)
			if (j < MAX_PEAKS) {
				out[j] = out[j - 1];
				height[j] = height[j - 1];
			}
		if (j < MAX_PEAKS) {
			out[j] = idx[i];
			height[j] = m[i];
		}
	}
	return np;
}

unsigned tune_search_refine(struct tune_search *s, double step)
{
	const struct tune_space *sp = &s->cfg.space;
	unsigned added = 0;
	for (unsigned k = 0; k < s->cfg.nr_shapes; k++) {
		unsigned pk[MAX_PEAKS];
		unsigned np = peaks(s, k, pk);
		for (unsigned i = 0; i < np; i++) {
			const double e = s->cands[pk[i]].log2v;
			const double side[2] = {e - step, e + step};
			for (int j = 0; j < 2; j++) {
				if (side[j] < sp->lo - 1e-9 || side[j] > sp->hi + 1e-9)
					continue;
				unsigned before = s->nr_cands;
				if (add_value(s, tune_space_value(sp, side[j]), TUNE_ROLE_GRID) >=
					0 &&
				    s->nr_cands > before)
					added++;
			}
		}
	}
	return added;
}

/*
 * Every decision made: for each shape each active candidate is shown
 * better or worse than its best (the CI excludes 0), or shown within the
 * tolerance of it (the CI narrower than the tolerance), over the
 * confirmation rounds; over every round where both had identical visits
 * there by chance (tune_diff's chance_tie), since the spread is before.
 */
bool tune_search_resolved(const struct tune_search *s)
{
	if (s->confirm_round == TUNE_NO_ROUND)
		return false;
	for (unsigned k = 0; k < s->cfg.nr_shapes; k++) {
		int b = tune_best(s, k, s->confirm_round, 2);
		if (b < 0)
			return false;
		for (unsigned c = 0; c < s->nr_cands; c++) {
			if (!s->cands[c].active || (int)c == b)
				continue;
			struct tune_diff d;
			tune_diff(s, c, (unsigned)b, k, s->confirm_round, &d);
			if (d.chance_tie) /* the spread is in the rounds before: judged there */
				tune_diff(s, c, (unsigned)b, k, 0, &d);
			if (!d.valid)
				return false;
			bool decided =
			    d.low > 0.0 || d.high < 0.0 || d.high - d.low <= s->cfg.tolerance_pct;
			if (!decided)
				return false;
		}
	}
	return true;
}

/* Active, and not parked in a search stage. */
static bool visited_now(const struct tune_search *s, unsigned c)
{
	return s->cands[c].active && !(s->cands[c].parked && s->kind == TUNE_STAGE_SEARCH);
}

static unsigned nr_visited_now(const struct tune_search *s)
{
	unsigned n = 0;
	for (unsigned c = 0; c < s->nr_cands; c++)
		n += visited_now(s, c);
	return n;
}

static bool measured_anything(const struct tune_search *s)
{
	for (unsigned i = 0; i < s->nr_visits; i++)
		for (unsigned k = 0; k < s->cfg.nr_shapes; k++)
			if (s->visits[i].ok[k])
				return true;
	return false;
}

static double visit_cost(const struct tune_search *s)
{
	double t = 0.0;
	for (unsigned i = 0; i < s->nr_visits; i++)
		t += s->visits[i].seconds;
	return s->nr_visits ? t / s->nr_visits : 0.0;
}

/* Would @visits more visits still fit in the budget, by what visits took so far? */
static bool fits(const struct tune_search *s, unsigned visits)
{
	return s->elapsed_s + visits * visit_cost(s) <= s->cfg.budget_s;
}

static int measure(struct tune_search *s, const struct tune_probe *p, unsigned c)
{
	if (s->cfg.max_visits && s->nr_visits >= s->cfg.max_visits) {
		s->stop = TUNE_STOP_VISITS;
		return 1;
	}
	if (s->nr_visits && !fits(s, 1)) {
		s->stop = TUNE_STOP_BUDGET;
		return 1;
	}
	if (s->nr_visits == s->cap) {
		unsigned cap = s->cap ? 2 * s->cap : 64;
		struct tune_visit *v = realloc(s->visits, cap * sizeof(*v));
		if (!v) {
			s->stop = TUNE_STOP_ERROR;
			snprintf(s->error, sizeof(s->error), "out of memory for the visits");
			return 1;
		}
		s->visits = v;
		s->cap = cap;
	}
	struct tune_visit *v = &s->visits[s->nr_visits];
	memset(v, 0, sizeof(*v));
	v->cand = c;
	v->round = s->round;
	v->stage = s->stage;
	const bool off = s->cands[c].roles & TUNE_ROLE_PLE_OFF;
	v->write = !off && !(s->holding && s->held == s->cands[c].value);
	const double t0 = p->elapsed_s(p->ctx);
	int rc = p->measure(p->ctx, s, &s->cands[c], v, s->error, sizeof(s->error));
	s->elapsed_s = p->elapsed_s(p->ctx);
	v->seconds = s->elapsed_s - t0;
	if (rc < 0) {
		s->stop = TUNE_STOP_ERROR;
		return 1;
	}
	if (rc > 0) {
		s->stop = TUNE_STOP_INTERRUPTED;
		s->status = rc;
		return 1;
	}
	if (v->write) {
		s->writes++;
		s->holding = true;
		s->held = s->cands[c].value;
	}
	s->nr_visits++;
	tune_search_regimes(s);
	if (p->progress)
		p->progress(p->ctx, s, v);
	return 0;
}

/*
 * One round: every candidate visited now once, in a new shuffled order;
 * but the first round of a stage (@first) begins at the value the
 * parameter holds (the last stage's last), so that it needs no new setting
 * (no reload). Within a stage two visits of one value are never adjacent.
 * 0, or 1 when stopped.
 */
static int round_of_visits(struct tune_search *s, const struct tune_probe *p, gsl_rng *rng,
			   bool first)
{
	unsigned order[TUNE_MAX_CANDIDATES], n = 0;
	for (unsigned c = 0; c < s->nr_cands; c++)
		if (visited_now(s, c))
			order[n++] = c;
	gsl_ran_shuffle(rng, order, n, sizeof(order[0]));
	for (unsigned i = 0; i < n && s->holding && first; i++) {
		const struct tune_candidate *c = &s->cands[order[i]];
		if (!(c->roles & TUNE_ROLE_PLE_OFF) && c->value == s->held) {
			const unsigned t = order[0];
			order[0] = order[i];
			order[i] = t;
			break;
		}
	}
	for (unsigned i = 0; i < n; i++)
		if (measure(s, p, order[i]))
			return 1;
	s->round++;
	return 0;
}

/*
 * The next search stage (its candidates added, so active), if the budget
 * leaves room for it and for the confirmation after it: a refinement measured in fewer than two
 * rounds of confirmation would leave every claim to the rounds that chose it. The confirmation is
 * counted as every candidate active now (the parked ones too): what the stage will eliminate is
 * not known before it, and under noise it may be nothing.
 */
static bool next_stage_fits(const struct tune_search *s)
{
	unsigned active = 0;
	for (unsigned c = 0; c < s->nr_cands; c++)
		active += s->cands[c].active;
	unsigned stage = s->cfg.stage_rounds * nr_visited_now(s);
	unsigned confirm = s->cfg.min_confirm_rounds * active;
	if (s->cfg.max_visits && s->nr_visits + stage + confirm > s->cfg.max_visits)
		return false;
	return fits(s, stage + confirm);
}

int tune_search_run(struct tune_search *s, const struct tune_probe *p)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng) {
		s->stop = TUNE_STOP_ERROR;
		snprintf(s->error, sizeof(s->error), "out of memory for the random order");
		return s->status;
	}
	gsl_rng_set(rng, (unsigned long)s->cfg.seed);
	s->kind = TUNE_STAGE_SEARCH;
	unsigned in_stage = 0;
	for (;;) {
		if (round_of_visits(s, p, rng, in_stage == 0))
			break;
		if (!measured_anything(s)) {
			s->stop = TUNE_STOP_ERROR;
			snprintf(s->error, sizeof(s->error), "a whole round measured nothing: %s",
				 s->nr_visits ? s->visits[0].error : "no visit");
			break;
		}
		in_stage++;
		if (s->kind == TUNE_STAGE_SEARCH && in_stage < s->cfg.stage_rounds)
			continue;
		tune_search_eliminate(s);
		if (s->kind == TUNE_STAGE_SEARCH) {
			const double step = s->step / 2.0;
			const unsigned before = s->nr_cands;
			s->stage++;
			if (step >= s->cfg.space.fine - 1e-9 && tune_search_refine(s, step) &&
			    next_stage_fits(s)) {
				s->step = step;
				in_stage = 0;
				continue;
			}
			/* nothing new, or no room to measure it and confirm: confirm what there is
			 */
			s->nr_cands = before;
			s->kind = TUNE_STAGE_CONFIRM; /* the parked ones visited again */
			s->confirm_round = s->round;
			in_stage = 0;
			continue;
		}
		if (in_stage >= s->cfg.min_confirm_rounds && tune_search_resolved(s)) {
			s->stop = TUNE_STOP_RESOLVED;
			break;
		}
	}
	gsl_rng_free(rng);
	return s->status;
}
