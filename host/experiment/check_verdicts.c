// SPDX-License-Identifier: GPL-2.0
#include "experiment/check_verdicts.h"

#include <math.h>

#include "model/verdict.h"
#include "output/units.h"
#include "util/strfmt.h"

/*
 * The least share of the CPU time the vCPUs had when the baseline was
 * recorded that they must have now for a contended scenario's drop to be
 * evidence: on a busier host the holder (or the next ticket's owner) is
 * preempted by foreign work while the others spin on their CPUs, so even
 * acquisitions per CPU-second fall. Measured here against a quiet
 * baseline with both CPUs loaded by stress-ng: 2 vCPUs on 2 CPUs had 53 %
 * instead of 100 % and fell by 77 %; 4 vCPUs on 1 CPU had 20 % instead of
 * 25 % and fell by 20 %. A drop under such a change is "not comparable",
 * not a regression.
 */
#define COMPARABLE_CPU_SHARE 0.9

/* The metric whose per-run values are the host's interference: kept with each baseline. */

static double pct(double v, double base)
{
	return base != 0.0 ? 100.0 * v / fabs(base) : NAN;
}

static double mean_of(const double *v, unsigned n)
{
	double s = 0.0;
	for (unsigned i = 0; i < n; i++)
		s += v[i];
	return n ? s / n : 0.0;
}

/*
 * A contended variant judged against the baseline, whose vCPUs had less
 * than COMPARABLE_CPU_SHARE of the CPU share they had then (both run
 * delays returned). False where either run delay is unknown.
 */
static bool host_busier_than_baseline(const struct check_ctx *k, const struct check_tested *t,
				      double *delay_then, double *delay_now)
{
	const struct check_sample *x = t->s;
	if (t->kind != VS_BASELINE || !x->contended || !x->nd)
		return false;
	const struct baseline_entry *then =
	    baseline_find(k->c->baseline, x->scenario->name, x->variant, RUN_DELAY_METRIC);
	if (!then || !then->n)
		return false;
	*delay_then = mean_of(then->values, then->n);
	*delay_now = mean_of(x->run_delay, x->nd);
	return 1.0 - *delay_now < COMPARABLE_CPU_SHARE * (1.0 - *delay_then);
}

int check_emit_verdict(struct check_ctx *k, const struct check_tested *t)
{
	const struct check_sample *x = t->s;
	const double thr = k->c->threshold_pct;
	char name[160], a[32], b[32], delay[32];
	(void)pathf(name, sizeof(name), "%s%s: %s", x->metric->name,
		    t->kind == AGAINST_ITSELF ? " A/A" : " vs baseline", x->variant);
	const char *against =
	    t->kind == AGAINST_ITSELF ? "odd rounds vs even rounds" : "now vs baseline";
	if (t->base.n < 2 || t->cand.n < 2)
		return check_result_add(k->out, x->scenario->name, name, CHECK_SKIP,
					"untestable: %u vs %u ok runs with a value (needs 2 each)",
					t->base.n, t->cand.n);
	const double d = pct(t->w.diff, t->base.mean), lo = pct(t->w.ci_low, t->base.mean),
		     hi = pct(t->w.ci_high, t->base.mean),
		     width = verdict_ci_width_pct(&t->w, t->base.mean);
	char figures[512];
	snprintf(figures, sizeof(figures),
		 "%s: %s %s -> %s (%+.1f %%, 95 %% CI [%+.1f %%, %+.1f %%], p %.3g, Holm %.3g; "
		 "%u vs %u runs, +- %.1f %% / %.1f %%; threshold %.3g %%)",
		 against, x->metric->name, units_count(t->base.mean, a, sizeof(a)),
		 units_count(t->cand.mean, b, sizeof(b)), d, lo, hi, t->w.p, t->p_adj, t->base.n,
		 t->cand.n, 100.0 * t->base.rel, 100.0 * t->cand.rel, thr);
	if (!t->w.valid)
		return check_result_add(k->out, x->scenario->name, name,
					t->w.diff == 0.0 ? CHECK_PASS : CHECK_NOISY,
					"no spread: every run gave the same value (%s -> %s)",
					units_count(t->base.mean, a, sizeof(a)),
					units_count(t->cand.mean, b, sizeof(b)));
	/* a metric with no better direction (behaviour) is harmed by a change either way */
	const int better = x->metric->better ? x->metric->better : (d < 0.0 ? 1 : -1);
	const bool bad = better > 0 ? d < 0.0 : d > 0.0;
	const char *scenario = x->scenario->name;
	int rc;
	/*
	 * A regression larger than the threshold, shown: significant after
	 * Holm, and even the favourable end of the 95 % CI beyond the
	 * threshold. A point estimate just past it is what drift between
	 * invocations makes of a few percent.
	 */
	const double near = better > 0 ? -hi : lo; /* the smallest harm the CI allows */
	const bool regressed = t->p_adj < VERDICT_ALPHA && bad && near >= thr;
	double delay_then, delay_now;
	if (regressed && host_busier_than_baseline(k, t, &delay_then, &delay_now)) {
		char then[32];
		units_percent(delay_now, delay, sizeof(delay));
		units_percent(delay_then, then, sizeof(then));
		rc = check_result_add(
		    k->out, scenario, name, CHECK_NOISY,
		    "not comparable: the vCPUs waited for a CPU %s of the time now (run delay), "
		    "%s when the baseline was recorded; on a busier host lock holders are "
		    "preempted by other work while the waiters spin, which no per-CPU rate "
		    "subtracts: judge on a host as quiet as the baseline's, or record the baseline "
		    "under the same load; %s",
		    delay, then, figures);
		check_result_brief(k->out, "%+.1f %%, not comparable (run delay %s now, %s then)",
				   d, delay, then);
	} else if (regressed) {
		rc =
		    check_result_add(k->out, scenario, name, CHECK_FAIL, "regression: %s", figures);
	} else if (width > thr) {
		units_percent(mean_of(x->run_delay, x->nd), delay, sizeof(delay));
		rc = check_result_add(k->out, scenario, name, CHECK_NOISY,
				      "too noisy to judge: the CI is %.1f %% wide, wider than the "
				      "threshold; the vCPUs waited for a CPU %s of the time (run "
				      "delay); %s",
				      width, delay, figures);
		check_result_brief(k->out, "%+.1f %%, CI %.1f %% wide > %.3g %% (run delay %s)", d,
				   width, thr, delay);
	} else {
		rc = check_result_add(
		    k->out, scenario, name, CHECK_PASS, "%s%s", figures,
		    t->p_adj < VERDICT_ALPHA && !bad && fabs(d) >= thr ? " (better)" : "");
		check_result_brief(k->out, "%+.1f %%, 95 %% CI [%+.1f %%, %+.1f %%]", d, lo, hi);
	}
	return rc;
}
