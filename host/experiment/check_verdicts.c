// SPDX-License-Identifier: GPL-2.0
#include "experiment/check_verdicts.h"

#include <math.h>

#include "model/verdict.h"
#include "output/units.h"
#include "util/strfmt.h"

/*
 * How much more of the CPUs' time other work may take now than when the
 * baseline was recorded before a drop stops being evidence: on a busier
 * host lock holders are preempted by foreign work while the waiters spin,
 * so even acquisitions per CPU-second fall (measured against a quiet
 * baseline with both CPUs loaded by stress-ng: 2 vCPUs on 2 CPUs fell by
 * 77 %, 4 vCPUs on 1 CPU by 20 %). The foreign load is read from
 * /proc/stat in 10 ms ticks, +-7 % of a CPU per 0.3 s run, a few % over
 * a scenario's runs: 5 points is past that noise and far below what a
 * loaded runner shows (50-90 %). It is not the vCPUs' own run delay: a
 * hypervisor change that makes vCPUs wait longer raises that, and must
 * not excuse itself.
 */
#define FOREIGN_LOAD_MARGIN 0.05

static double mean_of(const double *v, unsigned n)
{
	double s = 0.0;
	for (unsigned i = 0; i < n; i++)
		s += v[i];
	return n ? s / n : 0.0;
}

/*
 * A contended variant judged against the baseline while other work took
 * more than FOREIGN_LOAD_MARGIN more of its CPUs' time than then (both
 * foreign loads returned). False where either is unknown: a baseline
 * recorded before plerig measured the foreign load, a remote QEMU. One
 * vCPU alone has no holder to preempt: its acquisitions per CPU-second
 * held under load (no false alarm in 20 loaded checks), so a drop there
 * is judged whatever the load. Nor on a host the suite says runs nothing
 * else: a foreign load it reads is a misreading there, and must not excuse
 * a regression; unless another host of --connect runs VMs on this machine
 * at the same time, which is other work indeed.
 */
static bool host_busier_than_baseline(const struct check_ctx *k, const struct check_tested *t,
				      double *foreign_then, double *foreign_now)
{
	const struct check_sample *x = t->s;
	struct check_place place;
	check_scenario_place(k, x->scenario, &place);
	if (k->c->suite->host_runs_nothing_else && place.here <= 1)
		return false;
	if (t->kind != VS_BASELINE || !x->contended || !x->nf)
		return false;
	const struct baseline_entry *then =
	    baseline_find(k->c->baseline, x->scenario->name, x->variant, FOREIGN_LOAD_METRIC);
	if (!then || !then->n)
		return false;
	*foreign_then = mean_of(then->values, then->n);
	*foreign_now = mean_of(x->foreign, x->nf);
	return *foreign_now > *foreign_then + FOREIGN_LOAD_MARGIN;
}

int check_emit_verdict(struct check_ctx *k, const struct check_tested *t)
{
	const struct check_sample *x = t->s;
	const double thr = k->c->threshold_pct;
	char name[160], a[32], b[32], load[32];
	(void)pathf(name, sizeof(name), "%s%s: %s", x->metric->name,
		    t->kind == AGAINST_ITSELF ? " A/A" : " vs baseline", x->variant);
	const char *against =
	    t->kind == AGAINST_ITSELF ? "odd rounds vs even rounds" : "now vs baseline";
	if (t->base.n < 2 || t->cand.n < 2)
		return check_result_add(k->out, x->scenario->name, name, CHECK_SKIP,
					"untestable: %u vs %u ok runs with a value (needs 2 each)",
					t->base.n, t->cand.n);
	if (!t->w.valid)
		return check_result_add(k->out, x->scenario->name, name,
					t->w.diff == 0.0 ? CHECK_PASS : CHECK_NOISY,
					"no spread: every run gave the same value (%s -> %s)",
					units_count(t->base.mean, a, sizeof(a)),
					units_count(t->cand.mean, b, sizeof(b)));
	/* the one rule (model/verdict.h), significance after Holm across the check */
	struct welch_result w = t->w;
	struct judgement j;
	w.p = t->p_adj;
	verdict_judge(&t->base, &t->cand, &w, x->metric->better, thr, &j);
	const double d = j.delta_pct, lo = j.ci_low_pct, hi = j.ci_high_pct;
	char figures[512];
	snprintf(figures, sizeof(figures),
		 "%s: %s %s -> %s (%+.1f %%, 95 %% CI [%+.1f %%, %+.1f %%], p %.3g, Holm %.3g; "
		 "%u vs %u runs, +- %.1f %% / %.1f %%; threshold %.3g %%)",
		 against, x->metric->name, units_count(t->base.mean, a, sizeof(a)),
		 units_count(t->cand.mean, b, sizeof(b)), d, lo, hi, t->w.p, t->p_adj, t->base.n,
		 t->cand.n, 100.0 * t->base.rel, 100.0 * t->cand.rel, thr);
	const char *scenario = x->scenario->name;
	int rc;
	double foreign_then, foreign_now;
	if (j.verdict == VERDICT_WORSE &&
	    host_busier_than_baseline(k, t, &foreign_then, &foreign_now)) {
		char then[32];
		units_percent(foreign_now, load, sizeof(load));
		units_percent(foreign_then, then, sizeof(then));
		rc = check_result_add(
		    k->out, scenario, name, CHECK_NOISY,
		    "not comparable: other work took %s of the CPUs' time now (foreign load), %s "
		    "when the baseline was recorded; on a busier host lock holders are preempted "
		    "by other work while the waiters spin, which no per-CPU rate subtracts: judge "
		    "on a host as quiet as the baseline's, or record the baseline under the same "
		    "load; %s",
		    load, then, figures);
		check_result_brief(k->out,
				   "%+.1f %%, not comparable (foreign load %s now, %s then)", d,
				   load, then);
	} else if (j.verdict == VERDICT_WORSE) {
		rc =
		    check_result_add(k->out, scenario, name, CHECK_FAIL, "regression: %s", figures);
	} else if (j.verdict == VERDICT_TOO_NOISY && isnan(d)) {
		/* from a baseline of 0 (pvqspin's PAUSE-loop exits) a change has no size in % */
		rc = check_result_add(
		    k->out, scenario, name, CHECK_NOISY,
		    "too noisy to judge: not significant from a baseline of 0; %s", figures);
		check_result_brief(k->out, "%s -> %s, not significant (a baseline of 0)", a, b);
	} else if (j.verdict == VERDICT_TOO_NOISY) {
		if (x->nf)
			units_percent(mean_of(x->foreign, x->nf), load, sizeof(load));
		else
			snprintf(load, sizeof(load), "n/a");
		rc = check_result_add(k->out, scenario, name, CHECK_NOISY,
				      "too noisy to judge: the CI is %.1f %% wide, wider than the "
				      "threshold; other work took %s of the CPUs' time (foreign "
				      "load); %s",
				      j.ci_width_pct, load, figures);
		check_result_brief(k->out, "%+.1f %%, CI %.1f %% wide > %.3g %% (foreign load %s)",
				   d, j.ci_width_pct, thr, load);
	} else {
		rc = check_result_add(k->out, scenario, name, CHECK_PASS, "%s%s", figures,
				      j.verdict == VERDICT_BETTER ? " (better)" : "");
		check_result_brief(k->out, "%+.1f %%, 95 %% CI [%+.1f %%, %+.1f %%]", d, lo, hi);
	}
	return rc;
}
