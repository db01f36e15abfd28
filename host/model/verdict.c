// SPDX-License-Identifier: GPL-2.0
#include "model/verdict.h"

#include <math.h>
#include <string.h>

/* No finding: no change, unless the CI could not have shown one of the threshold's size. */
static enum verdict no_finding(const struct judgement *j, double threshold_pct)
{
	return threshold_pct > 0.0 && j->ci_width_pct > threshold_pct ? VERDICT_TOO_NOISY
								      : VERDICT_NO_CHANGE;
}

void verdict_judge_paired(const struct welch_result *paired, unsigned n, int better,
			  double threshold_pct, struct judgement *out)
{
	memset(out, 0, sizeof(*out));
	out->delta = NAN; /* relative only: rounds differ in scale, their ratios do not */
	out->delta_pct = n ? 100.0 * paired->diff : NAN;
	out->ci_width_pct = NAN;
	if (n < 2) {
		out->verdict = VERDICT_UNTESTABLE;
		out->why = "fewer than 2 rounds with both runs ok";
		return;
	}
	if (!paired->valid) {
		out->verdict = paired->diff == 0.0 ? VERDICT_NO_CHANGE : VERDICT_UNTESTABLE;
		out->why = "no spread: every round gave the same ratio";
		return;
	}
	out->significant = paired->p < VERDICT_ALPHA;
	out->ci_width_pct = 100.0 * (paired->ci_high - paired->ci_low);
	if (!out->significant || fabs(out->delta_pct) < threshold_pct || paired->diff == 0.0) {
		out->verdict = no_finding(out, threshold_pct);
		return;
	}
	/* no better direction (a behaviour figure): a change is flagged as worse either way */
	out->verdict =
	    better && (paired->diff > 0.0) == (better > 0) ? VERDICT_BETTER : VERDICT_WORSE;
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
	memset(out, 0, sizeof(*out));
	out->delta = NAN;
	out->delta_pct = NAN;
	out->ci_width_pct = NAN;
	if (base->n && cand->n) {
		out->delta = cand->mean - base->mean;
		if (out->delta == 0.0)
			out->delta_pct = 0.0;
		else if (base->mean != 0.0)
			out->delta_pct = 100.0 * out->delta / fabs(base->mean);
	}
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
	out->significant = w->p < VERDICT_ALPHA;
	if (base->mean != 0.0)
		out->ci_width_pct = verdict_ci_width_pct(w, base->mean);
	/* from 0 to anything is larger than any threshold */
	const double size = isnan(out->delta_pct) ? INFINITY : fabs(out->delta_pct);
	if (!out->significant || size < threshold_pct || out->delta == 0.0) {
		out->verdict = no_finding(out, threshold_pct);
		return;
	}
	out->verdict =
	    better && (out->delta > 0.0) == (better > 0) ? VERDICT_BETTER : VERDICT_WORSE;
}

void comparison_judge(const struct comparison *c, double threshold_pct, struct judgement *out)
{
	/* significance after Holm's correction, where the report made one */
	struct welch_result paired = c->paired, welch = c->welch;
	if (c->holm && !isnan(c->p_holm))
		paired.p = welch.p = c->p_holm;
	if (c->paired_n)
		verdict_judge_paired(&paired, c->paired_n, c->metric->better, threshold_pct, out);
	else
		verdict_judge(&c->base, &c->cand, &welch, c->metric->better, threshold_pct, out);
}
