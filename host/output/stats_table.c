// SPDX-License-Identifier: GPL-2.0
#include "output/stats_table.h"

#include "util/cpulist.h"

#include <math.h>
#include <string.h>

#include "model/backend_limits.h"
#include "model/plan.h"
#include "output/units.h"
#include "model/verdict.h"
#include "util/printable.h"

/*
 * A metric's value in the unit people read it in. Wait percentiles come
 * from a log-linear histogram, true to its buckets' 12.5 %: two
 * significant digits, as the results table prints them; a third would
 * claim what the bucket cannot tell.
 */
static const char *format_value(const struct metric *m, double v, char *buf, size_t len)
{
	if (strstr(m->name, "_share"))
		return units_percent(v, buf, len);
	if (strstr(m->name, "_p50_ns") || strstr(m->name, "_p99_ns"))
		return units_duration_ns_2sig(v, buf, len);
	if (strstr(m->name, "_ns"))
		return units_duration_ns(v, buf, len);
	return units_count(v, buf, len);
}

/* "hostA: kvm ticket/pause ...": the host first where the outcome has several. */
static void variant_title(const struct outcome *rep, const struct variant *v, char *buf, size_t len)
{
	char cpus[64];
	cpulist_format(v->pcpus, v->nr_pcpus, cpus, sizeof(cpus));
	char poll[48];
	const char *host = outcome_host_label(rep, v);
	snprintf(buf, len, "%s%s%s %s/%s ring %s PLE %s%s %ux%u on %s", host, *host ? ": " : "",
		 backend_name(v->backend), lock_name(v->lock), relax_name(v->relax),
		 ring_name(v->ring), variant_ple_na(v) ? "n/a" : ple_name(v->ple),
		 halt_poll_label(v, poll, sizeof(poll)), v->vms, v->vcpus, cpus);
}

/* A relative stddev in %, 5 characters wide however large: 12.34, 123.4, 1234 */
static const char *rel_text(double rel, char *buf, size_t len)
{
	double pct = 100.0 * rel;
	snprintf(buf, len, pct < 99.995 ? "%.2f" : pct < 999.95 ? "%.1f" : "%.0f", pct);
	return buf;
}

void stats_table_print(FILE *f, const struct outcome *rep)
{
	for (unsigned i = 0; i < rep->nr_series; i++) {
		const struct series *s = &rep->series[i];
		char title[240];
		unsigned ok = 0;
		for (unsigned r = 0; r < s->nr_runs; r++)
			ok += s->runs[r].ok;
		variant_title(rep, &s->variant, title, sizeof(title));
		printable_printf(f, "\n %s  (%u of %u runs ok)\n", title, ok, s->nr_runs);
		for (unsigned m = 0; s->stats && m < nr_metrics; m++) {
			const struct sample_stats *st = &s->stats[m];
			char mean[UNITS_BUF_SIZE], lo[UNITS_BUF_SIZE], hi[UNITS_BUF_SIZE];
			char rel[16];
			/* a figure no run measured is said to be n/a, not left out unseen */
			if (st->n == 0) {
				const char *why = series_metric_why(s, &metrics[m]);
				if (ok)
					printable_printf(f,
							 "   %10s %-10s measured in none of the %u "
							 "ok runs%s%s\n",
							 "n/a", metrics[m].label, ok,
							 why ? ": " : "", why ? why : "");
				continue;
			}
			printable_printf(f, "   %10s %-10s +- %5s%%   [%s .. %s]",
					 format_value(&metrics[m], st->mean, mean, sizeof(mean)),
					 metrics[m].label, rel_text(st->rel, rel, sizeof(rel)),
					 format_value(&metrics[m], st->min, lo, sizeof(lo)),
					 format_value(&metrics[m], st->max, hi, sizeof(hi)));
			if (st->outliers)
				printable_printf(f, "  %u outlier%s (> 3 MAD)", st->outliers,
						 st->outliers > 1 ? "s" : "");
			if (st->drift)
				fprintf(f, "  drift %+.1f%% first to last run",
					100.0 * st->drift_rel);
			if (st->bimodal)
				printable_printf(
				    f, "  two modes: %u near %s, %u near %s", st->n_low,
				    format_value(&metrics[m], st->low_mean, lo, sizeof(lo)),
				    st->n_high,
				    format_value(&metrics[m], st->high_mean, hi, sizeof(hi)));
			fputc('\n', f);
		}
		for (unsigned r = 0; r < s->nr_runs; r++)
			if (!s->runs[r].ok)
				printable_printf(f, "   run %u FAILED: %s\n", r, s->runs[r].error);
	}
}

static void short_title(const struct outcome *rep, const struct variant *v, char *buf, size_t len)
{
	char poll[48];
	const char *host = outcome_host_label(rep, v);
	snprintf(buf, len, "%s%s%s %s/%s%s%s %ux%u", host, *host ? ": " : "",
		 backend_name(v->backend), lock_name(v->lock), relax_name(v->relax),
		 v->ple == PLE_OFF ? " ple-off" : "", halt_poll_label(v, poll, sizeof(poll)),
		 v->vms, v->vcpus);
}

/*
 * delta, p and CI as text, as @j judged them: of the paired test where there
 * is one, and p Holm-adjusted where it was, as the verdict beside it weighs it.
 */
static void test_cells(const struct comparison *c, const struct judgement *j, char *delta, char *p,
		       char *ci, size_t len)
{
	const struct welch_result *w = c->paired_n ? &c->paired : &c->welch;
	const double pv = c->holm && !isnan(c->p_holm) ? c->p_holm : w->p;

	if (!isnan(j->delta_pct))
		snprintf(delta, len, "%+.2f%%", j->delta_pct);
	else
		snprintf(delta, len, "-");
	if (!w->valid)
		snprintf(p, len, "-");
	else if (pv < 0.001)
		snprintf(p, len, "<0.001");
	else
		snprintf(p, len, "%.3f", pv);
	if (w->valid && isfinite(j->ci_low_pct) && isfinite(j->ci_high_pct))
		snprintf(ci, len, "[%+.2f%%, %+.2f%%]", j->ci_low_pct, j->ci_high_pct);
	else
		snprintf(ci, len, "-");
}

void comparison_table_print(FILE *f, const struct outcome *rep)
{
	if (!rep->nr_comparisons)
		return;
	printable_printf(
	    f, "\n reference %s, %u run(s) per variant; %s\n", rep->reference, rep->repeat,
	    rep->order == ORDER_SEQUENTIAL
		? "Welch's t-test"
		: "paired t-test on the per-round differences (interleaved runs cancel drift)");
	/* the rule of every verdict plerig prints, with this run's threshold (model/verdict.h) */
	fprintf(f,
		" worse/better: p < %.2f after Holm's correction and the whole 95%% CI beyond "
		"%g%%;\n too noisy to judge: neither, and the CI wider than %g%% (--threshold)\n",
		VERDICT_ALPHA, rep->threshold_pct, rep->threshold_pct);
	printable_printf(f, " %-26s %-26s %-10s %10s %10s %8s %9s  %-20s %s\n", "candidate",
			 "reference", "metric", "reference", "candidate", "delta", "p (Holm)",
			 "95% CI of delta", "verdict");
	for (unsigned i = 0; i < rep->nr_comparisons; i++) {
		const struct comparison *c = &rep->comparisons[i];
		const struct metric *m = c->metric;
		char cand[128], base[128], bv[UNITS_BUF_SIZE], cv[UNITS_BUF_SIZE], ci[48], p[48],
		    delta[48];
		if (c->base.n == 0 || c->cand.n == 0 || !m->headline)
			continue;
		short_title(rep, &rep->series[c->candidate].variant, cand, sizeof(cand));
		short_title(rep, &rep->series[c->reference].variant, base, sizeof(base));
		struct judgement j;
		comparison_judge(c, rep->threshold_pct, &j);
		test_cells(c, &j, delta, p, ci, sizeof(delta));
		printable_printf(f, " %-26s %-26s %-10s %10s %10s %8s %9s  %-20s %s\n", cand, base,
				 m->label, format_value(m, c->base.mean, bv, sizeof(bv)),
				 format_value(m, c->cand.mean, cv, sizeof(cv)), delta, p, ci,
				 verdict_name(j.verdict));
	}
}
