// SPDX-License-Identifier: GPL-2.0
/*
 * plerig tune's search and recommendation against synthetic response
 * curves: a probe that answers each visit from a function of log2(value)
 * with seeded noise, on a clock that advances a second a visit. A clear
 * optimum is found and claimed; a flat curve claims nothing; a noisy one
 * says so; both modes of a bimodal one are refined; a budget too small
 * says nothing is resolvable; the same seed gives the same answer; a best
 * at an end of the range (a monotone curve) is flagged, with the range to
 * search next.
 */
#include <check.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/tune_recommend.h"
#include "model/tune_search.h"
#include "model/tune_space.h"
#include "model/tune_stats.h"
#include "support/check_main.h"

typedef double curve_fn(double e, unsigned shape);

struct synth {
	curve_fn *f;
	double off[TUNE_MAX_SHAPES]; /* per-VM PLE off's figure per shape */
	double noise;		     /* relative stddev of a visit */
	gsl_rng *rng;
	double clock;
	unsigned fail_every; /* every n-th visit fails shape 0; 0 never */
	/* issue 27's second regime: the n-th visit of @odd_value (bit n of @odd_visits) times
	 * @odd_factor */
	uint64_t odd_value;
	unsigned odd_visits;
	double odd_factor;
};

/* How many visits @c had before this one. */
static unsigned visits_before(const struct tune_search *s, const struct tune_candidate *c)
{
	unsigned n = 0;
	for (unsigned i = 0; i < s->nr_visits; i++)
		n += &s->cands[s->visits[i].cand] == c;
	return n;
}

static int synth_measure(void *ctx, const struct tune_search *s, const struct tune_candidate *c,
			 struct tune_visit *v, char *err, size_t errlen)
{
	struct synth *p = ctx;
	(void)err;
	(void)errlen;
	p->clock += 1.0;
	for (unsigned k = 0; k < s->cfg.nr_shapes; k++) {
		double y = (c->roles & TUNE_ROLE_PLE_OFF) ? p->off[k]
			   : c->value == 0		  ? p->f(0.0, k)
							  : p->f(c->log2v, k);
		y *= 1.0 + (p->noise > 0.0 ? gsl_ran_gaussian(p->rng, p->noise) : 0.0);
		if (p->odd_factor > 0.0 && !(c->roles & TUNE_ROLE_PLE_OFF) &&
		    c->value == p->odd_value && visits_before(s, c) < 32 &&
		    (p->odd_visits >> visits_before(s, c)) & 1u)
			y *= p->odd_factor;
		v->ok[k] = true;
		v->y[k] = y;
		for (int f = 0; f < TUNE_FIG_COUNT; f++)
			v->fig[k][f] = NAN;
		v->fig[k][TUNE_FIG_ACQ_PER_S] = y;
	}
	if (p->fail_every && s->nr_visits % p->fail_every == 0) {
		v->ok[0] = false;
		snprintf(v->error, sizeof(v->error), "synthetic failure");
	}
	return 0;
}

static double synth_clock(void *ctx)
{
	return ((struct synth *)ctx)->clock;
}

static double bump(double e, double at, double width)
{
	return exp(-(e - at) * (e - at) / (2.0 * width * width));
}

/* one clear optimum at 2^10, the default (4096) well below it */
static double peaked(double e, unsigned shape)
{
	(void)shape;
	return 100.0 + 1000.0 * bump(e, 10.0, 1.0);
}

static double flat(double e, unsigned shape)
{
	(void)e;
	(void)shape;
	return 1000.0;
}

/* a 3 % bump: real, but far below 30 % noise */
static double slight(double e, unsigned shape)
{
	(void)shape;
	return 1000.0 * (1.0 + 0.03 * bump(e, 10.0, 1.0));
}

/* two modes on the coarse grid, 1.5 % apart in height, a valley between */
static double bimodal(double e, unsigned shape)
{
	(void)shape;
	return 200.0 + 1000.0 * bump(e, 10.0, 1.0) + 985.0 * bump(e, 18.0, 1.0);
}

/* shape 0 at its best near 2^10, shape 1 near 2^14 */
static double two_shapes(double e, unsigned shape)
{
	return 100.0 + 1000.0 * bump(e, shape ? 14.0 : 10.0, 1.5);
}

/* monotone: falling (the gate's shape under emulation), and rising */
static double falling(double e, unsigned shape)
{
	(void)shape;
	return 10000.0 * exp2(-(e - 8.0) / 2.0);
}

/* an optimum between 2^8 and 2^9, 2^8 within 5 % of it: the flat range reaches the lower edge */
static double near_edge(double e, unsigned shape)
{
	(void)shape;
	return 100.0 + 10000.0 * bump(e, 8.5, 2.0);
}

static double rising(double e, unsigned shape)
{
	(void)shape;
	return 100.0 * exp2((e - 8.0) / 2.0);
}

static struct tune_config config(unsigned shapes, double budget)
{
	struct tune_config c;
	char err[256];
	tune_config_defaults(&c);
	ck_assert_int_eq(tune_space_init(&c.space, "ple_window", err, sizeof(err)), 0);
	c.space.has_current = true;
	c.space.current = 4096;
	c.nr_shapes = shapes;
	for (unsigned k = 0; k < shapes; k++) {
		snprintf(c.shapes[k].label, sizeof(c.shapes[k].label), "shape %u", k);
		snprintf(c.shapes[k].family, sizeof(c.shapes[k].family), "ticket pause");
		c.shapes[k].ratio = 1.0 + k;
	}
	c.budget_s = budget;
	c.seed = 7;
	return c;
}

/* Run the search against @p (its noise seeded, per-VM PLE off at 1200 and 300), then recommend. */
static void tune_with(struct tune_search *s, const struct tune_config *c, struct synth *p,
		      struct tune_recommendation *rec)
{
	p->rng = gsl_rng_alloc(gsl_rng_mt19937);
	ck_assert_ptr_nonnull(p->rng);
	gsl_rng_set(p->rng, 12345);
	p->off[0] = 1200.0;
	p->off[1] = 300.0;
	const struct tune_probe probe = {
	    .ctx = p, .measure = synth_measure, .elapsed_s = synth_clock};
	ck_assert_int_eq(tune_search_init(s, c), 0);
	ck_assert_int_eq(tune_search_run(s, &probe), 0);
	tune_recommend(s, rec);
	gsl_rng_free(p->rng);
}

static void tune(struct tune_search *s, const struct tune_config *c, curve_fn *f, double noise,
		 struct tune_recommendation *rec)
{
	struct synth p = {.f = f, .noise = noise};
	tune_with(s, c, &p, rec);
}

static bool in_flat(const struct tune_shape_rec *r, uint64_t v)
{
	for (unsigned i = 0; i < r->nr_flat; i++)
		if (r->flat[i].lo <= v && v <= r->flat[i].hi)
			return true;
	return false;
}

START_TEST(test_space)
{
	struct tune_space sp;
	char err[256];
	ck_assert_int_eq(tune_space_init(&sp, "pause_filter_count", err, sizeof(err)), 0);
	ck_assert_uint_eq(sp.kernel_default, 3000);
	ck_assert_uint_eq(tune_space_value(&sp, 16.0), 65535); /* a ushort in kvm_amd */
	ck_assert_uint_eq(tune_space_value(&sp, 9.5), 724);
	ck_assert_int_eq(tune_space_set_range(&sp, 1024, 70000, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "65535"));
	ck_assert_int_eq(tune_space_set_range(&sp, 2048, 4096, err, sizeof(err)), 0);
	ck_assert(sp.coarse <= 0.5 + 1e-9); /* still three values */
	ck_assert_int_eq(tune_space_init(&sp, "nx_huge_pages", err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "ple_window"));
	ck_assert_int_eq(tune_space_init(&sp, "halt_poll_ns", err, sizeof(err)), 0);
	ck_assert(sp.zero);

	/* the first grid: 2^8..2^20 every 2, 0 for halt polling, the default and the current */
	struct tune_config c = config(1, 100);
	struct tune_search s;
	c.space = sp;
	c.space.has_current = true;
	c.space.current = 50000;
	ck_assert_int_eq(tune_search_init(&s, &c), 0);
	ck_assert_int_eq(tune_search_role(&s, TUNE_ROLE_ZERO) >= 0, 1);
	ck_assert_uint_eq(s.cands[tune_search_role(&s, TUNE_ROLE_DEFAULT)].value, 200000);
	ck_assert_uint_eq(s.cands[tune_search_role(&s, TUNE_ROLE_CURRENT)].value, 50000);
	ck_assert_uint_eq(s.nr_cands, 7 + 3);
	tune_search_free(&s);
}
END_TEST

START_TEST(test_clear_optimum)
{
	struct tune_config c = config(1, 300);
	struct tune_search s;
	struct tune_recommendation rec;
	tune(&s, &c, peaked, 0.01, &rec);
	const struct tune_shape_rec *r = &rec.shapes[0];
	ck_assert_msg(r->resolved, "%s", r->why);
	const uint64_t best = s.cands[r->best].value;
	ck_assert_msg(best >= 724 && best <= 1448, "best %llu", (unsigned long long)best);
	/* refined down to the finest step around it */
	ck_assert_int_ge(s.stage, 2);
	ck_assert_int_eq(r->vs_default.claim, TUNE_CLAIM_GAIN);
	ck_assert(r->vs_default.d.low > 0.0);
	ck_assert(r->vs_default.from_confirm); /* not from the rounds that chose it */
	ck_assert(r->vs_default.p_holm < 0.05);
	/* the current value is the default: the same test, said once */
	ck_assert_int_eq(r->vs_current.claim, TUNE_CLAIM_GAIN);
	ck_assert(in_flat(r, best));
	ck_assert(!in_flat(r, 4096));
	ck_assert(!r->flat_everywhere);
	ck_assert(!r->too_noisy);
	ck_assert_int_eq(rec.mix, r->best);
	ck_assert(rec.change); /* shown better than the host's value: worth applying */
	/* a value far from the optimum stopped being visited */
	unsigned inactive = 0;
	for (unsigned i = 0; i < s.nr_cands; i++)
		inactive += !s.cands[i].active;
	ck_assert_uint_gt(inactive, 0);
	ck_assert(s.elapsed_s <= c.budget_s);
	tune_search_free(&s);
}
END_TEST

START_TEST(test_flat_claims_nothing)
{
	struct tune_config c = config(1, 200);
	struct tune_search s;
	struct tune_recommendation rec;
	tune(&s, &c, flat, 0.01, &rec);
	const struct tune_shape_rec *r = &rec.shapes[0];
	ck_assert_msg(r->resolved, "%s", r->why);
	ck_assert(r->vs_default.claim == TUNE_CLAIM_AS_GOOD ||
		  r->vs_default.claim == TUNE_CLAIM_SAME);
	ck_assert(r->flat_everywhere);
	ck_assert(!rec.change); /* nothing shown better than the host's value: keep it */
	ck_assert_ptr_nonnull(strstr(rec.change_why, "4096"));
	ck_assert_uint_eq(r->nr_flat, 1);
	ck_assert_uint_eq(r->flat[0].lo, 256);
	ck_assert_uint_eq(r->flat[0].hi, 1048576);
	/* nothing to refine in a flat curve: only the first grid (and the current/default) */
	for (unsigned i = 0; i < s.nr_cands; i++)
		ck_assert_uint_eq(s.cands[i].stage, 0);
	tune_search_free(&s);
}
END_TEST

START_TEST(test_noisy_says_so)
{
	struct tune_config c = config(1, 200);
	struct tune_search s;
	struct tune_recommendation rec;
	tune(&s, &c, slight, 0.3, &rec);
	const struct tune_shape_rec *r = &rec.shapes[0];
	ck_assert_msg(r->resolved, "%s", r->why);
	ck_assert_int_ne(r->vs_default.claim, TUNE_CLAIM_GAIN);
	ck_assert_int_ne(r->vs_default.claim, TUNE_CLAIM_AS_GOOD);
	ck_assert(r->too_noisy);
	ck_assert(!rec.change);
	ck_assert(r->spread_pct > 20.0);
	ck_assert_int_eq(s.stop, TUNE_STOP_BUDGET);
	tune_search_free(&s);
}
END_TEST

START_TEST(test_bimodal_refines_both_modes)
{
	struct tune_config c = config(1, 400);
	struct tune_search s;
	struct tune_recommendation rec;
	tune(&s, &c, bimodal, 0.005, &rec);
	const struct tune_shape_rec *r = &rec.shapes[0];
	ck_assert_msg(r->resolved, "%s", r->why);
	const uint64_t best = s.cands[r->best].value;
	ck_assert_msg(best >= 724 && best <= 1448, "best %llu", (unsigned long long)best);
	/* the second mode was looked at closely too: a value between 2^17 and 2^19 off the first
	 * grid */
	bool near_second = false;
	for (unsigned i = 0; i < s.nr_cands; i++)
		near_second |= s.cands[i].stage > 0 && s.cands[i].value >= 131072 &&
			       s.cands[i].value <= 524288;
	ck_assert(near_second);
	/* two flat ranges, the valley between them outside */
	ck_assert_uint_ge(r->nr_flat, 2);
	ck_assert(in_flat(r, 262144));
	ck_assert(!in_flat(r, 16384));
	tune_search_free(&s);
}
END_TEST

START_TEST(test_budget_too_small)
{
	struct tune_config c = config(1, 5);
	struct tune_search s;
	struct tune_recommendation rec;
	tune(&s, &c, peaked, 0.01, &rec);
	ck_assert_int_eq(s.stop, TUNE_STOP_BUDGET);
	ck_assert_uint_eq(s.nr_visits, 5); /* what was measured is kept */
	ck_assert_uint_eq(rec.nr_resolved, 0);
	ck_assert(!rec.shapes[0].resolved);
	ck_assert_ptr_nonnull(strstr(rec.shapes[0].why, "nothing resolvable in this budget"));
	ck_assert_int_eq(rec.mix, -1);
	tune_search_free(&s);
}
END_TEST

START_TEST(test_max_visits)
{
	struct tune_config c = config(1, 1e9);
	struct tune_search s;
	struct tune_recommendation rec;
	c.max_visits = 40;
	tune(&s, &c, peaked, 0.01, &rec);
	ck_assert_uint_le(s.nr_visits, 40);
	ck_assert(s.stop == TUNE_STOP_VISITS || s.stop == TUNE_STOP_RESOLVED);
	tune_search_free(&s);
}
END_TEST

START_TEST(test_same_seed_same_answer)
{
	struct tune_config c = config(2, 300);
	struct tune_search a, b;
	struct tune_recommendation ra, rb;
	tune(&a, &c, two_shapes, 0.02, &ra);
	tune(&b, &c, two_shapes, 0.02, &rb);
	ck_assert_uint_eq(a.nr_visits, b.nr_visits);
	for (unsigned i = 0; i < a.nr_visits; i++) {
		ck_assert_uint_eq(a.visits[i].cand, b.visits[i].cand);
		ck_assert(a.visits[i].y[0] == b.visits[i].y[0]);
	}
	ck_assert_int_eq(ra.mix, rb.mix);
	for (unsigned k = 0; k < 2; k++) {
		ck_assert_int_eq(ra.shapes[k].best, rb.shapes[k].best);
		ck_assert(ra.shapes[k].vs_default.d.low == rb.shapes[k].vs_default.d.low);
	}
	tune_search_free(&a);
	tune_search_free(&b);
}
END_TEST

START_TEST(test_mix_and_ple_off_flip)
{
	struct tune_config c = config(2, 400);
	struct tune_search s;
	struct tune_recommendation rec;
	c.space.ple_off = true;
	c.shapes[0].pinned = true;
	tune(&s, &c, two_shapes, 0.01, &rec);
	for (unsigned k = 0; k < 2; k++)
		ck_assert_msg(rec.shapes[k].resolved, "%s", rec.shapes[k].why);
	const uint64_t b0 = s.cands[rec.shapes[0].best].value;
	const uint64_t b1 = s.cands[rec.shapes[1].best].value;
	ck_assert_msg(b0 >= 512 && b0 <= 2048, "%llu", (unsigned long long)b0);
	ck_assert_msg(b1 >= 8192 && b1 <= 32768, "%llu", (unsigned long long)b1);
	/* one value for both, between their bests, each shape's loss said */
	ck_assert_int_ge(rec.mix, 0);
	const uint64_t m = s.cands[rec.mix].value;
	ck_assert_msg(m > b0 && m < b1, "mix %llu", (unsigned long long)m);
	ck_assert(rec.mix_worst_loss_pct > 0.0);
	ck_assert(rec.shapes[0].mix.gain_pct < 0.0 && rec.shapes[1].mix.gain_pct < 0.0);
	/* PLE off: better at 1:1 (1200 against 1100), worse at 2:1 (300): flips between */
	ck_assert_int_eq(rec.shapes[0].ple_off.claim, TUNE_CLAIM_GAIN);
	ck_assert_int_eq(rec.shapes[1].ple_off.claim, TUNE_CLAIM_LOSS);
	ck_assert_uint_eq(rec.nr_flips, 1);
	ck_assert(rec.flips[0].found);
	ck_assert(rec.flips[0].below == 1.0 && rec.flips[0].above == 2.0);
	tune_search_free(&s);
}
END_TEST

START_TEST(test_deterministic_host)
{
	/* no spread at all (an emulated host): the difference is exact, and claimed */
	struct tune_config c = config(1, 300);
	struct tune_search s;
	struct tune_recommendation rec;
	tune(&s, &c, peaked, 0.0, &rec);
	const struct tune_shape_rec *r = &rec.shapes[0];
	ck_assert_msg(r->resolved, "%s", r->why);
	ck_assert_int_eq(s.stop, TUNE_STOP_RESOLVED);
	ck_assert(r->vs_default.d.exact);
	ck_assert_int_eq(r->vs_default.claim, TUNE_CLAIM_GAIN);
	ck_assert(r->vs_default.d.low == r->vs_default.d.high);
	tune_search_free(&s);
}
END_TEST

/*
 * Seen under kvm_amd on the emulated host: a value whose visits spread
 * (256: mean 5.1k acq/s, 95 % CI [2.5k, 7.8k] over 8 visits) visited twice
 * at one figure in the confirmation rounds (4.0k), 3000 twice at one there
 * too (855). The figures below are made up in that likeness. That is chance, not a
 * deterministic host: no exact difference (it claimed +368.1 % [+368.1,
 * +368.1]); the comparison is over every round, with their spread.
 */
START_TEST(test_identical_confirmation_visits_are_not_exact)
{
	static const struct {
		unsigned cand, round;
		double y;
	} seen[] = {{0, 0, 7800}, {1, 0, 841}, {0, 1, 2500}, {1, 1, 870},
		    {0, 2, 4000}, {1, 2, 855}, {0, 3, 4000}, {1, 3, 855}};
	static struct tune_visit visits[8];
	struct tune_search s;
	struct tune_diff d;
	memset(&s, 0, sizeof(s));
	tune_config_defaults(&s.cfg);
	s.cfg.nr_shapes = 1;
	s.cfg.better = 1;
	s.nr_cands = 2;
	s.cands[0] = (struct tune_candidate){.value = 256, .roles = TUNE_ROLE_GRID, .active = true};
	s.cands[1] = (struct tune_candidate){
	    .value = 3000, .roles = TUNE_ROLE_DEFAULT | TUNE_ROLE_CURRENT, .active = true};
	for (unsigned i = 0; i < 8; i++) {
		visits[i].cand = seen[i].cand;
		visits[i].round = seen[i].round;
		visits[i].ok[0] = true;
		visits[i].y[0] = seen[i].y;
	}
	s.visits = visits;
	s.nr_visits = s.cap = 8;
	s.confirm_round = 2;
	s.round = 4;

	tune_diff(&s, 0, 1, 0, 2, &d);
	ck_assert(!d.valid && !d.exact && d.chance_tie);
	ck_assert_ptr_nonnull(d.why);
	/* over every round: Welch's test, a CI with width, the gain still shown */
	tune_diff(&s, 0, 1, 0, 0, &d);
	ck_assert(d.valid && !d.exact && !d.chance_tie);
	ck_assert(d.high - d.low > 100.0);
	ck_assert(d.low > 0.0);
	ck_assert(tune_search_resolved(&s));

	struct tune_recommendation rec;
	tune_recommend(&s, &rec);
	const struct tune_comparison *c = &rec.shapes[0].vs_default;
	ck_assert_int_eq(c->claim, TUNE_CLAIM_GAIN);
	ck_assert(!c->from_confirm && !c->d.exact);
	ck_assert(c->d.low < c->d.high);

	/* every visit the same, all rounds: a deterministic host, exact */
	for (unsigned i = 0; i < 8; i++)
		visits[i].y[0] = seen[i].cand ? 855 : 4000;
	tune_diff(&s, 0, 1, 0, 2, &d);
	ck_assert(d.valid && d.exact && !d.chance_tie);
	ck_assert(d.low == d.high);
}
END_TEST

START_TEST(test_lower_is_better)
{
	/* wait p99: the valley is the optimum (from 2^14 up the curve is within 0.1 % of its floor)
	 */
	struct tune_config c = config(1, 300);
	struct tune_search s;
	struct tune_recommendation rec;
	c.better = -1;
	tune(&s, &c, peaked, 0.01, &rec);
	const uint64_t best = s.cands[rec.shapes[0].best].value;
	ck_assert_msg(best >= 16384, "best %llu", (unsigned long long)best);
	ck_assert_int_eq(rec.shapes[0].vs_default.claim, TUNE_CLAIM_GAIN);
	ck_assert(rec.shapes[0].vs_default.d.low > 0.0); /* a gain is positive either way */
	tune_search_free(&s);
}
END_TEST

START_TEST(test_failed_visits_are_kept_out)
{
	struct tune_config c = config(1, 300);
	struct tune_search s;
	struct tune_recommendation rec;
	struct synth p = {.f = peaked, .noise = 0.01, .fail_every = 3};
	tune_with(&s, &c, &p, &rec);
	ck_assert(rec.shapes[0].resolved);
	unsigned failed = 0;
	for (unsigned i = 0; i < s.nr_visits; i++)
		failed += !s.visits[i].ok[0];
	ck_assert_uint_gt(failed, 0);
	struct tune_cell cell;
	tune_cell(&s, (unsigned)rec.shapes[0].best, 0, 0, -1, &cell);
	ck_assert(cell.n > 0);
	tune_search_free(&s);
}
END_TEST

/* a probe that stops the search at its 10th visit: Ctrl-C (130), or a setting refused (-1) */
struct stopping {
	struct synth synth;
	int rc;
};

static int stopping_measure(void *ctx, const struct tune_search *s, const struct tune_candidate *c,
			    struct tune_visit *v, char *err, size_t errlen)
{
	struct stopping *p = ctx;
	if (s->nr_visits == 9) {
		if (p->rc < 0)
			snprintf(err, errlen, "cannot change ple_window: refused");
		return p->rc;
	}
	return synth_measure(&p->synth, s, c, v, err, errlen);
}

START_TEST(test_probe_stops)
{
	static const int rcs[] = {130, -1};
	for (int i = 0; i < 2; i++) {
		struct tune_config c = config(1, 300);
		struct tune_search s;
		struct stopping p = {.synth = {.f = peaked}, .rc = rcs[i]};
		const struct tune_probe probe = {
		    .ctx = &p, .measure = stopping_measure, .elapsed_s = synth_clock};
		p.synth.rng = gsl_rng_alloc(gsl_rng_mt19937);
		ck_assert_int_eq(tune_search_init(&s, &c), 0);
		ck_assert_int_eq(tune_search_run(&s, &probe), rcs[i] > 0 ? rcs[i] : 0);
		ck_assert_uint_eq(s.nr_visits, 9); /* what was measured before it stopped */
		ck_assert_int_eq(s.stop, rcs[i] > 0 ? TUNE_STOP_INTERRUPTED : TUNE_STOP_ERROR);
		if (rcs[i] < 0)
			ck_assert_str_eq(s.error, "cannot change ple_window: refused");
		gsl_rng_free(p.synth.rng);
		tune_search_free(&s);
	}
}
END_TEST

START_TEST(test_best_at_an_edge_is_flagged)
{
	struct tune_search s;
	struct tune_recommendation rec;
	char note[512];

	/* falling: the best is the least value, 2^8, the default range's lower end */
	struct tune_config c = config(1, 300);
	tune(&s, &c, falling, 0.01, &rec);
	const struct tune_shape_rec *r = &rec.shapes[0];
	ck_assert_msg(r->resolved, "%s", r->why);
	ck_assert_uint_eq(s.cands[r->best].value, 256);
	ck_assert_int_eq(r->edge, -1);
	ck_assert_uint_eq(r->widen_lo, 16);
	ck_assert_uint_eq(r->widen_hi, 4096);
	tune_edge_note(&s, r, note, sizeof(note));
	ck_assert_str_eq(note,
			 "best at the lower edge 256 of the range searched (2^8..2^20, tune's "
			 "default range for ple_window): the optimum may lie below it; widen "
			 "with --param ple_window=16..4096");
	tune_search_free(&s);

	/* rising: the greatest, 2^20 */
	c = config(1, 300);
	tune(&s, &c, rising, 0.01, &rec);
	r = &rec.shapes[0];
	ck_assert_uint_eq(s.cands[r->best].value, 1048576);
	ck_assert_int_eq(r->edge, 1);
	ck_assert_uint_eq(r->widen_lo, 65536);
	ck_assert_uint_eq(r->widen_hi, 16777216);
	tune_edge_note(&s, r, note, sizeof(note));
	ck_assert_ptr_nonnull(strstr(note, "upper edge 1048576"));
	ck_assert_ptr_nonnull(strstr(note, "may lie above it"));
	tune_search_free(&s);

	/* a range of the user's: named as such */
	char err[256];
	c = config(1, 300);
	ck_assert_int_eq(tune_space_set_range(&c.space, 1024, 16384, err, sizeof(err)), 0);
	tune(&s, &c, falling, 0.01, &rec);
	r = &rec.shapes[0];
	ck_assert_uint_eq(s.cands[r->best].value, 1024);
	tune_edge_note(&s, r, note, sizeof(note));
	ck_assert_ptr_nonnull(strstr(note, "lower edge 1024 of the range searched (1024..16384)"));
	ck_assert_ptr_nonnull(strstr(note, "--param ple_window=64..16384"));
	tune_search_free(&s);

	/* kvm_amd's count at its largest value: nothing beyond to search */
	c = config(1, 300);
	ck_assert_int_eq(tune_space_init(&c.space, "pause_filter_count", err, sizeof(err)), 0);
	tune(&s, &c, rising, 0.01, &rec);
	r = &rec.shapes[0];
	ck_assert_uint_eq(s.cands[r->best].value, 65535);
	ck_assert_int_eq(r->edge, 1);
	ck_assert_uint_eq(r->widen_lo, 0);
	tune_edge_note(&s, r, note, sizeof(note));
	ck_assert_ptr_nonnull(strstr(note, "kvm_amd takes no greater value"));
	tune_search_free(&s);

	/* the best inside, but its flat range reaching the edge: flagged at the edge's value */
	c = config(1, 300);
	tune(&s, &c, near_edge, 0.0, &rec);
	r = &rec.shapes[0];
	ck_assert_uint_eq(s.cands[r->best].value, 362);
	ck_assert_int_eq(r->edge, -1);
	ck_assert_uint_eq(r->edge_value, 256);
	ck_assert_uint_eq(r->widen_lo, 16);
	tune_edge_note(&s, r, note, sizeof(note));
	ck_assert_msg(strstr(note, "best 362 within 5 % of the lower edge 256 of the range "
				   "searched") != NULL,
		      "%s", note);
	tune_search_free(&s);

	/* an optimum inside, and a flat curve: no edge */
	c = config(1, 300);
	tune(&s, &c, peaked, 0.01, &rec);
	ck_assert_int_eq(rec.shapes[0].edge, 0);
	tune_edge_note(&s, &rec.shapes[0], note, sizeof(note));
	ck_assert_str_eq(note, "");
	tune_search_free(&s);
	c = config(1, 200);
	tune(&s, &c, flat, 0.01, &rec);
	ck_assert_int_eq(rec.shapes[0].edge, 0);
	tune_search_free(&s);
}
END_TEST

/* The visits that set another value than the parameter held (reloads), from the visits alone. */
static unsigned writes_of(const struct tune_search *s, uint64_t held)
{
	unsigned n = 0;
	for (unsigned i = 0; i < s->nr_visits; i++) {
		const struct tune_candidate *c = &s->cands[s->visits[i].cand];
		if ((c->roles & TUNE_ROLE_PLE_OFF) || c->value == held)
			continue;
		n++;
		held = c->value;
	}
	return n;
}

/*
 * The gate's shape under emulation, in likeness: throughput falls with the
 * window, every visit the same figure, per-VM PLE off measured. Before the
 * default and PLE off were parked in the refinement stages and a round
 * began at the value the last one ended on, the search made 38 visits, 28
 * of them setting a new value (the real one: 40 visits, one reload each);
 * now 30, 21 (the values in the test, not bounds of taste: the search is
 * deterministic).
 */
START_TEST(test_fewer_visits_and_reloads)
{
	struct tune_config c = config(1, 600);
	struct tune_search s;
	struct tune_recommendation rec;
	c.space.ple_off = true;
	tune(&s, &c, falling, 0.0, &rec);
	const struct tune_shape_rec *r = &rec.shapes[0];
	ck_assert_int_eq(s.stop, TUNE_STOP_RESOLVED);
	ck_assert_uint_eq(s.cands[r->best].value, 256);
	ck_assert_int_eq(r->vs_default.claim, TUNE_CLAIM_GAIN);
	ck_assert(r->vs_default.from_confirm && r->vs_default.d.exact);
	ck_assert_int_eq(r->ple_off.claim, TUNE_CLAIM_LOSS);
	ck_assert(r->ple_off.from_confirm);
	ck_assert_uint_eq(s.nr_visits, 30);
	ck_assert_uint_eq(s.writes, writes_of(&s, 4096));
	ck_assert_uint_eq(s.writes, 22);
	/* the default and PLE off: both coarse rounds, no refinement stage, both confirmations */
	for (unsigned i = 0; i < s.nr_visits; i++) {
		const struct tune_visit *v = &s.visits[i];
		if (s.cands[v->cand].roles & TUNE_ROLES_KEPT)
			ck_assert(v->round < 2 || v->round >= s.confirm_round);
	}
	for (unsigned i = 0; i < s.nr_cands; i++)
		if (s.cands[i].roles & TUNE_ROLES_KEPT) {
			struct tune_cell cell;
			tune_cell(&s, i, 0, 0, -1, &cell);
			ck_assert_uint_eq(cell.n, 4);
		}
	tune_search_free(&s);
}
END_TEST

/*
 * Issue 27's second regime: on a host whose visits at one value agree, one
 * value (65536, at 100 acq/s, far below the optimum 1100 at 1024) has its
 * first visit 30 times higher. By the mean of its two coarse visits (1550)
 * it would be the best; its visits split (no majority), so it is visited
 * again, its figure is that of the visits that agree, and it is not named.
 */
START_TEST(test_split_visits_do_not_win)
{
	struct tune_config c = config(1, 600);
	struct tune_search s;
	struct tune_recommendation rec;
	struct synth p = {.f = peaked, .odd_value = 65536, .odd_visits = 1u, .odd_factor = 30.0};
	tune_with(&s, &c, &p, &rec);
	const struct tune_shape_rec *r = &rec.shapes[0];
	ck_assert_msg(r->resolved, "%s", r->why);
	ck_assert(s.regime[0]);
	ck_assert_uint_eq(s.cands[r->best].value, 1024);
	ck_assert_int_eq(r->vs_default.claim, TUNE_CLAIM_GAIN);
	ck_assert(r->vs_default.d.exact);
	ck_assert(!in_flat(r, 65536));
	ck_assert_uint_eq(r->nr_split, 1);
	int odd = -1;
	for (unsigned i = 0; i < s.nr_cands; i++)
		if (s.cands[i].value == 65536)
			odd = (int)i;
	ck_assert_int_ge(odd, 0);
	struct tune_cell cell;
	tune_cell(&s, (unsigned)odd, 0, 0, -1, &cell);
	ck_assert_uint_eq(cell.other_regime, 1);
	ck_assert_uint_ge(cell.n, 2); /* visited again until most of its visits agreed */
	ck_assert(fabs(cell.mean - peaked(16.0, 0)) < 1e-9);
	ck_assert(!s.cands[odd].active); /* then shown far below the best */

	/* by the mean of its two coarse visits, as the coarse stage saw it, it was the best */
	double coarse = 0.0;
	for (unsigned i = 0; i < s.nr_visits; i++)
		if (s.visits[i].cand == (unsigned)odd && s.visits[i].round < 2)
			coarse += s.visits[i].y[0] / 2.0;
	ck_assert(coarse > r->best_cell.mean);
	tune_search_free(&s);
}
END_TEST

/*
 * A genuine best with consistent visits still wins, and a best that has a
 * visit in the other regime itself (kvm_amd's pause_filter_count=16, +574.7
 * % from fast confirmation visits) is named by the visits that agree, the
 * split said, its gain not inflated by the odd visit.
 */
START_TEST(test_split_best_is_judged_by_its_regime)
{
	struct tune_search s;
	struct tune_recommendation rec;
	const double exact = 100.0 * (falling(8.0, 0) - falling(12.0, 0)) / falling(12.0, 0);

	/* another value (16384) splits: 256 still wins, its gain over 4096 exact */
	struct tune_config c = config(1, 600);
	struct synth p = {.f = falling, .odd_value = 16384, .odd_visits = 2u, .odd_factor = 4.2};
	tune_with(&s, &c, &p, &rec);
	const struct tune_shape_rec *r = &rec.shapes[0];
	ck_assert_uint_eq(s.cands[r->best].value, 256);
	ck_assert_int_eq(r->vs_default.claim, TUNE_CLAIM_GAIN);
	ck_assert(r->vs_default.d.exact && r->vs_default.from_confirm);
	ck_assert(fabs(r->vs_default.d.gain_pct - exact) < 1e-9);
	ck_assert_uint_eq(r->best_cell.other_regime, 0);
	ck_assert_uint_eq(r->nr_split, 1);
	tune_search_free(&s);

	/* the best's own 7th visit (the confirmation's first) 5 times higher: left out of its
	 * figures */
	c = config(1, 600);
	p = (struct synth){
	    .f = falling, .odd_value = 256, .odd_visits = 1u << 6, .odd_factor = 5.0};
	tune_with(&s, &c, &p, &rec);
	r = &rec.shapes[0];
	ck_assert_msg(r->resolved, "%s", r->why);
	ck_assert_uint_eq(s.cands[r->best].value, 256);
	ck_assert_uint_eq(r->best_cell.other_regime, 1);
	ck_assert(fabs(r->best_cell.mean - falling(8.0, 0)) < 1e-9);
	ck_assert_int_eq(r->vs_default.claim, TUNE_CLAIM_GAIN);
	ck_assert(r->vs_default.d.exact);
	ck_assert(fabs(r->vs_default.d.gain_pct - exact) < 1e-9);
	ck_assert_uint_eq(r->nr_split, 1);
	tune_search_free(&s);
}
END_TEST

static Suite *tune_suite(void)
{
	Suite *s = suite_create("tune");
	TCase *tc = tcase_create("search");
	tcase_add_test(tc, test_space);
	tcase_add_test(tc, test_clear_optimum);
	tcase_add_test(tc, test_flat_claims_nothing);
	tcase_add_test(tc, test_noisy_says_so);
	tcase_add_test(tc, test_bimodal_refines_both_modes);
	tcase_add_test(tc, test_budget_too_small);
	tcase_add_test(tc, test_max_visits);
	tcase_add_test(tc, test_same_seed_same_answer);
	tcase_add_test(tc, test_mix_and_ple_off_flip);
	tcase_add_test(tc, test_deterministic_host);
	tcase_add_test(tc, test_identical_confirmation_visits_are_not_exact);
	tcase_add_test(tc, test_lower_is_better);
	tcase_add_test(tc, test_failed_visits_are_kept_out);
	tcase_add_test(tc, test_probe_stops);
	tcase_add_test(tc, test_best_at_an_edge_is_flagged);
	tcase_add_test(tc, test_fewer_visits_and_reloads);
	tcase_add_test(tc, test_split_visits_do_not_win);
	tcase_add_test(tc, test_split_best_is_judged_by_its_regime);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(tune_suite)
