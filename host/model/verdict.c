// SPDX-License-Identifier: GPL-2.0
#include "model/verdict.h"

#include <math.h>
#include <string.h>

static const char *const BASE_OF_ZERO = "the base mean is 0: a change has no size in % of it";

/* An end of the change's CI in % of @base_mean; from a base of 0, only its sign counts. */
static double ci_end_pct(double end, double base_mean)
{
	if (base_mean != 0.0)
		return 100.0 * end / fabs(base_mean);
	return end > 0.0 ? INFINITY : end < 0.0 ? -INFINITY : 0.0;
}

/*
 * The rule of verdict.h, on a valid test @w (absolute change, p as the
 * caller wants it weighed) of a change from @base_mean.
 */
static void decide(const struct welch_result *w, double base_mean, int better, double threshold_pct,
		   struct judgement *out)
{
	out->significant = w->p < VERDICT_ALPHA;
	out->ci_low_pct = ci_end_pct(w->ci_low, base_mean);
	out->ci_high_pct = ci_end_pct(w->ci_high, base_mean);
	out->ci_width_pct = verdict_ci_width_pct(w, base_mean);
	/* the whole CI below -threshold, or above +threshold */
	const bool down =
	    out->significant && out->ci_high_pct < 0.0 && -out->ci_high_pct >= threshold_pct;
	const bool up =
	    out->significant && out->ci_low_pct > 0.0 && out->ci_low_pct >= threshold_pct;
	/* no better direction (a behaviour figure): a change either way is worse */
	if (better > 0 ? down : better < 0 ? up : down || up)
		out->verdict = VERDICT_WORSE;
	else if (better > 0 ? up : better < 0 ? down : false)
		out->verdict = VERDICT_BETTER;
	else if (out->ci_width_pct > threshold_pct)
		out->verdict = VERDICT_TOO_NOISY;
	else
		out->verdict = VERDICT_NO_CHANGE;
}

static void start(struct judgement *out)
{
	memset(out, 0, sizeof(*out));
	out->delta = out->delta_pct = NAN;
	out->ci_low_pct = out->ci_high_pct = out->ci_width_pct = NAN;
}

static void set_delta(struct judgement *out, double delta, double base_mean)
{
	out->delta = delta;
	if (base_mean != 0.0)
		out->delta_pct = 100.0 * delta / fabs(base_mean);
	else
		out->pct_why = BASE_OF_ZERO;
}

void verdict_judge_paired(const struct welch_result *paired, unsigned n, double base_mean,
			  int better, double threshold_pct, struct judgement *out)
{
	start(out);
	if (n)
		set_delta(out, paired->diff, base_mean);
	if (n < 2) {
		out->verdict = VERDICT_UNTESTABLE;
		out->why = "fewer than 2 rounds with both runs ok";
		return;
	}
	if (!paired->valid) {
		out->verdict = paired->diff == 0.0 ? VERDICT_NO_CHANGE : VERDICT_UNTESTABLE;
		out->why = "no spread: every round gave the same difference";
		return;
	}
	decide(paired, base_mean, better, threshold_pct, out);
}

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_UNTESTABLE:
		return "untestable";
	case VERDICT_NO_CHANGE:
		return "no significant change";
	case VERDICT_TOO_NOISY:
		return "too noisy to judge";
	case VERDICT_BETTER:
		return "better";
	case VERDICT_WORSE:
		return "worse";
	}
	return "?";
}

double verdict_ci_width_pct(const struct welch_result *w, double base_mean)
{
	if (!w->valid || base_mean == 0.0)
		return INFINITY;
	return 100.0 * (w->ci_high - w->ci_low) / fabs(base_mean);
}

void verdict_judge(const struct sample_stats *base, const struct sample_stats *cand,
		   const struct welch_result *w, int better, double threshold_pct,
		   struct judgement *out)
{
	start(out);
	if (base->n && cand->n)
		set_delta(out, cand->mean - base->mean, base->mean);
	if (base->n < 2 || cand->n < 2) {
		out->verdict = VERDICT_UNTESTABLE;
		out->why = "fewer than 2 ok runs";
		return;
	}
	if (!w->valid) {
		/*
		 * Every run gave the same value on both sides (quantised
		 * figures such as wait percentiles do): equal is no change,
		 * but a t-test cannot weigh a difference without any spread.
		 */
		out->verdict = out->delta == 0.0 ? VERDICT_NO_CHANGE : VERDICT_UNTESTABLE;
		out->why = "no spread: every run gave the same value";
		return;
	}
	decide(w, base->mean, better, threshold_pct, out);
}

void comparison_judge(const struct comparison *c, double threshold_pct, struct judgement *out)
{
	/* significance after Holm's correction, where the report made one */
	struct welch_result paired = c->paired, welch = c->welch;
	if (c->holm && !isnan(c->p_holm))
		paired.p = welch.p = c->p_holm;
	if (c->paired_n)
		verdict_judge_paired(&paired, c->paired_n, c->base.mean, c->metric->better,
				     threshold_pct, out);
	else
		verdict_judge(&c->base, &c->cand, &welch, c->metric->better, threshold_pct, out);
}
