// SPDX-License-Identifier: GPL-2.0
#include "output/tune_writer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/tune_apply.h"
#include "model/tune_stats.h"
#include "output/units.h"
#include "util/printable.h"

#ifndef PLERIG_VERSION
#define PLERIG_VERSION "unknown"
#endif

/* "+52.1 % [+48.0, +56.3]" */
static const char *pct_ci(const struct tune_diff *d, char *buf, size_t len)
{
	if (isnan(d->gain_pct))
		snprintf(buf, len, "n/a");
	else if (!d->valid)
		snprintf(buf, len, "%+.1f %%", d->gain_pct);
	else if (d->exact)
		snprintf(buf, len, "%+.1f %% (every visit the same)", d->gain_pct);
	else
		snprintf(buf, len, "%+.1f %% [%+.1f, %+.1f]", d->gain_pct, d->low, d->high);
	return buf;
}

static const char *value_text(const struct tune_search *s, int c, char *buf, size_t len)
{
	if (c < 0)
		snprintf(buf, len, "n/a");
	else if (s->cands[c].roles & TUNE_ROLE_PLE_OFF)
		snprintf(buf, len, "PLE off per VM");
	else
		snprintf(buf, len, "%llu", (unsigned long long)s->cands[c].value);
	return buf;
}

/* One comparison of the best with the current value or the default. */
static void print_claim(FILE *out, const struct tune_result *r, const char *what,
			const struct tune_comparison *c, bool is_default)
{
	const struct tune_search *s = &r->search;
	char ref[32], ci[96];
	value_text(s, c->ref, ref, sizeof(ref));
	pct_ci(&c->d, ci, sizeof(ci));
	printable_printf(out, "  %-12s %s: ", what, ref);
	switch (c->claim) {
	case TUNE_CLAIM_NONE:
		fprintf(out, "n/a: the host's value could not be read\n");
		return;
	case TUNE_CLAIM_SAME:
		fprintf(out, "the best value itself\n");
		return;
	case TUNE_CLAIM_GAIN:
		printable_printf(out, "%s: a gain (p %.2g after Holm)", ci, c->p_holm);
		break;
	case TUNE_CLAIM_LOSS:
		printable_printf(
		    out, "%s: it did better than the best in the confirmation rounds; keep it", ci);
		break;
	case TUNE_CLAIM_AS_GOOD:
		printable_printf(out, "%s: %s (no difference of %g %%)", ci,
				 is_default ? "the defaults are as good as anything tried"
					    : "as good as anything tried",
				 s->cfg.tolerance_pct);
		break;
	case TUNE_CLAIM_TOO_NOISY:
		printable_printf(out,
				 "%s: too noisy to tell (the CI is wider than the %g %% tolerance)",
				 ci, s->cfg.tolerance_pct);
		break;
	case TUNE_CLAIM_UNRESOLVED:
		printable_printf(out, "%s: not resolvable: %s\n", ci,
				 c->d.why ? c->d.why : "no test");
		return;
	}
	printable_printf(out, "%s\n",
			 c->from_confirm ? "" : " [from the rounds that chose the best]");
}

/* ple_window 1024 is about 24 PAUSEs here; pause_filter_count 3000 about 130k TSC cycles */
static void window_here(const struct tune_result *r, uint64_t value, char *buf, size_t len)
{
	const struct tune_param_info *p = r->search.cfg.space.info;
	buf[0] = '\0';
	if (!p->window || !r->pause.valid || r->pause.tsc_cycles <= 0.0)
		return;
	char num[UNITS_BUF_SIZE];
	if (!strcmp(p->unit, "PAUSEs"))
		snprintf(buf, len, " (about %s TSC cycles of PAUSE here)",
			 units_count((double)value * r->pause.tsc_cycles, num, sizeof(num)));
	else
		snprintf(buf, len, " (about %s PAUSEs here)",
			 units_count((double)value / r->pause.tsc_cycles, num, sizeof(num)));
}

static void fig_text(double v, char *buf, size_t len)
{
	char num[UNITS_BUF_SIZE];
	snprintf(buf, len, "%s", isnan(v) ? "n/a" : units_count(v, num, sizeof(num)));
}

/* The cost curve of shape @k: every value (ascending), per-VM PLE off last. */
static void print_curve(FILE *out, const struct tune_result *r, unsigned k)
{
	const struct tune_search *s = &r->search;
	unsigned order[TUNE_MAX_CANDIDATES], n = 0;
	for (unsigned c = 0; c < s->nr_cands; c++) {
		unsigned j = n++;
		for (; j > 0; j--) {
			const struct tune_candidate *a = &s->cands[order[j - 1]], *b = &s->cands[c];
			bool after = (a->roles & TUNE_ROLE_PLE_OFF) ||
				     (!(b->roles & TUNE_ROLE_PLE_OFF) && a->value > b->value);
			if (!after)
				break;
			order[j] = order[j - 1];
		}
		order[j] = c;
	}
	printable_printf(out, "  %-14s %6s %22s %9s %8s %11s %15s %8s %8s\n", s->cfg.space.param,
			 "visits", "acq/s [95% CI]", "wait-p99", "lhp/s", "ple-exits/s",
			 "yields ok/att/s", "halts/s", "kicks/s");
	for (unsigned i = 0; i < n; i++) {
		const unsigned c = order[i];
		struct tune_cell y, f[TUNE_FIG_COUNT];
		char val[32], acq[112], a[UNITS_BUF_SIZE], b[UNITS_BUF_SIZE], m[UNITS_BUF_SIZE];
		char col[TUNE_FIG_COUNT][UNITS_BUF_SIZE];
		tune_cell(s, c, k, 0, TUNE_FIG_ACQ_PER_S, &y);
		unsigned visits = 0;
		for (unsigned v = 0; v < s->nr_visits; v++)
			visits += s->visits[v].cand == c;
		if (!visits)
			continue;
		for (int g = 0; g < TUNE_FIG_COUNT; g++) {
			tune_cell(s, c, k, 0, g, &f[g]);
			fig_text(f[g].mean, col[g], sizeof(col[g]));
		}
		if (!isnan(f[TUNE_FIG_WAIT_P99_NS].mean))
			units_duration_ns_2sig(f[TUNE_FIG_WAIT_P99_NS].mean,
					       col[TUNE_FIG_WAIT_P99_NS], sizeof(col[0]));
		if (y.n >= 2)
			snprintf(acq, sizeof(acq), "%s [%s, %s]", units_count(y.mean, m, sizeof(m)),
				 units_count(y.ci_low, a, sizeof(a)),
				 units_count(y.ci_high, b, sizeof(b)));
		else
			snprintf(acq, sizeof(acq), "%s",
				 y.n ? units_count(y.mean, m, sizeof(m)) : "-");
		char yields[2 * UNITS_BUF_SIZE + 2], ok[24];
		if (isnan(f[TUNE_FIG_YIELDS_ATTEMPTED_PER_S].mean))
			snprintf(yields, sizeof(yields), "n/a");
		else
			snprintf(yields, sizeof(yields), "%s/%s",
				 col[TUNE_FIG_YIELDS_SUCCESSFUL_PER_S],
				 col[TUNE_FIG_YIELDS_ATTEMPTED_PER_S]);
		snprintf(ok, sizeof(ok), "%u/%u", y.n, visits);
		char odd[80] = "";
		if (y.other_regime)
			snprintf(odd, sizeof(odd), "  (%u in another regime, left out)",
				 y.other_regime);
		value_text(s, (int)c, val, sizeof(val));
		printable_printf(out, "  %-14s %6s %22s %9s %8s %11s %15s %8s %8s%s%s%s\n", val, ok,
				 acq, col[TUNE_FIG_WAIT_P99_NS], col[TUNE_FIG_LHP_PER_S],
				 col[TUNE_FIG_PLE_EXITS_PER_S], yields, col[TUNE_FIG_HALTS_PER_S],
				 col[TUNE_FIG_KICKS_PER_S],
				 (int)c == r->rec.shapes[k].best ? "  <- best" : "",
				 y.bimodal ? "  (two groups of visits)" : "", odd);
	}
}

/* The values whose visits split by regime: left out, or no majority yet. */
static void print_regimes(FILE *out, const struct tune_result *r, unsigned k)
{
	const struct tune_search *s = &r->search;
	const struct tune_shape_rec *rec = &r->rec.shapes[k];
	char val[32];
	if (!rec->nr_split)
		return;
	printable_printf(out,
			 "  regimes      visits more than %g %% from their value's median left "
			 "out (issue 27's second regime; the other visits agree): ",
			 TUNE_REGIME_SPLIT_PCT);
	for (unsigned i = 0; i < rec->nr_split; i++) {
		struct tune_cell cell;
		tune_cell(s, (unsigned)rec->split[i], k, 0, -1, &cell);
		printable_printf(out, "%s%s %u of %u%s", i ? ", " : "",
				 value_text(s, rec->split[i], val, sizeof(val)), cell.other_regime,
				 cell.n + cell.other_regime,
				 cell.n > cell.other_regime ? "" : " (no majority: no figure)");
	}
	fprintf(out, "\n");
}

static void print_shape(FILE *out, const struct tune_result *r, unsigned k)
{
	const struct tune_search *s = &r->search;
	const struct tune_shape_rec *rec = &r->rec.shapes[k];
	const struct tune_shape *sh = &s->cfg.shapes[k];
	char val[32], here[96], num[UNITS_BUF_SIZE], lo[UNITS_BUF_SIZE], hi[UNITS_BUF_SIZE];
	printable_printf(out, "\nshape %u: %s\n", k + 1, sh->label[0] ? sh->label : "(never ran)");
	if (sh->note[0])
		printable_printf(out, "  note         %s\n", sh->note);
	if (!rec->resolved) {
		if (s->stop == TUNE_STOP_ERROR)
			fprintf(out, "  not resolved: the tune stopped on an error (above)\n");
		else
			printable_printf(out, "  %s\n", rec->why);
		print_curve(out, r, k);
		return;
	}
	value_text(s, rec->best, val, sizeof(val));
	window_here(r, s->cands[rec->best].value, here, sizeof(here));
	char odd[96] = "";
	if (rec->best_cell.other_regime)
		snprintf(odd, sizeof(odd), " (and %u in another regime, left out)",
			 rec->best_cell.other_regime);
	printable_printf(
	    out, "  best         %s=%s%s: %s %s [%s, %s], %u visits%s\n", s->cfg.space.param, val,
	    here, units_count(rec->best_cell.mean, num, sizeof(num)), r->metric->label,
	    units_count(rec->best_cell.ci_low, lo, sizeof(lo)),
	    units_count(rec->best_cell.ci_high, hi, sizeof(hi)), rec->best_cell.n, odd);
	char edge[512];
	tune_edge_note(s, rec, edge, sizeof(edge));
	if (edge[0])
		printable_printf(out, "  edge         %s\n", edge);
	print_claim(out, r, "vs current", &rec->vs_current, false);
	print_claim(out, r, "vs default", &rec->vs_default, true);
	fprintf(out, "  flat         ");
	if (rec->flat_everywhere)
		fprintf(out, "everywhere: every value tried is within %g %% of the best",
			s->cfg.tolerance_pct);
	for (unsigned i = 0; i < rec->nr_flat && !rec->flat_everywhere; i++)
		printable_printf(out, "%s%llu..%llu%s", i ? ", " : "",
				 (unsigned long long)rec->flat[i].lo,
				 (unsigned long long)rec->flat[i].hi,
				 rec->flat[i].has_best ? " (the best)" : "");
	if (!rec->flat_everywhere)
		fprintf(out, " (means within %g %% of the best)", s->cfg.tolerance_pct);
	fprintf(out, "\n");
	if (rec->too_noisy)
		fprintf(out,
			"  too noisy    the visits at one value vary by %.1f %% (median stddev): "
			"no claim; a longer --budget or a quieter host\n",
			rec->spread_pct);
	print_regimes(out, r, k);
	if (rec->ple_off.ref >= 0) {
		char ci[96];
		pct_ci(&rec->ple_off.d, ci, sizeof(ci));
		const char *what = rec->ple_off.claim == TUNE_CLAIM_GAIN
				       ? "PAUSE exits off is better"
				   : rec->ple_off.claim == TUNE_CLAIM_LOSS
				       ? "keep PAUSE exits on, with the best window"
				   : rec->ple_off.claim == TUNE_CLAIM_AS_GOOD
				       ? "no difference of the tolerance's size"
				       : "no difference resolvable";
		printable_printf(out, "  PLE off      %s against the best window: %s\n", ci, what);
	}
	print_curve(out, r, k);
}

static void print_mix(FILE *out, const struct tune_result *r)
{
	const struct tune_search *s = &r->search;
	const struct tune_recommendation *rec = &r->rec;
	char val[32], ci[96];
	if (rec->nr_resolved < 2 || rec->mix < 0)
		return;
	printable_printf(
	    out,
	    "\nacross the shapes: %s=%s serves the mix (the least worst loss against each "
	    "shape's own best):\n",
	    s->cfg.space.param, value_text(s, rec->mix, val, sizeof(val)));
	for (unsigned k = 0; k < rec->nr_shapes; k++) {
		const struct tune_shape_rec *sh = &rec->shapes[k];
		struct tune_diff loss = sh->mix;
		if (!sh->resolved)
			continue;
		if (sh->best == rec->mix) {
			fprintf(out, "  shape %u  its own best\n", k + 1);
			continue;
		}
		/* a loss is the gain turned round */
		loss.gain_pct = -sh->mix.gain_pct;
		loss.low = -sh->mix.high;
		loss.high = -sh->mix.low;
		printable_printf(out, "  shape %u  loses %s\n", k + 1,
				 pct_ci(&loss, ci, sizeof(ci)));
	}
}

static void print_flips(FILE *out, const struct tune_result *r)
{
	const struct tune_recommendation *rec = &r->rec;
	static const char *const words[] = {"the best window better", "no difference",
					    "PLE off better", "unknown"};
	if (r->ple_off_why[0]) {
		printable_printf(out, "\nPLE off per VM: not measured: %s\n", r->ple_off_why);
		return;
	}
	for (unsigned i = 0; i < rec->nr_flips; i++) {
		const struct tune_flip *f = &rec->flips[i];
		bool known = false;
		for (unsigned j = 0; j < f->nr; j++)
			known |= f->answer[j] != 2;
		if (f->nr < 2 || !known)
			continue;
		printable_printf(out, "\nPLE off per VM, %s:", f->family);
		for (unsigned j = 0; j < f->nr; j++)
			printable_printf(out, "%s %s at %.3gx", j ? ";" : "",
					 words[f->answer[j] == 2 ? 3 : f->answer[j] + 1],
					 f->ratio[j]);
		if (f->found)
			fprintf(out, ": the answer flips between %.3gx and %.3gx\n", f->below,
				f->above);
		else
			fprintf(out, ": no flip in this range\n");
	}
}

static void print_apply(FILE *out, const struct tune_result *r)
{
	const struct tune_search *s = &r->search;
	const struct tune_recommendation *rec = &r->rec;
	struct tune_advice a;
	if (rec->mix < 0)
		return;
	if (!rec->change) {
		printable_printf(out, "\napply: nothing: %s\n", rec->change_why);
		return;
	}
	tune_advice_make(&s->cfg.space, r->module, s->cands[rec->mix].value, r->runtime_writable,
			 &a);
	printable_printf(out, "\napply (%s=%llu):\n  %s\n", s->cfg.space.param,
			 (unsigned long long)s->cands[rec->mix].value, a.modprobe);
	if (a.runtime[0])
		printable_printf(out, "  %s\n", a.runtime);
	printable_printf(out, "  also: %s\n", a.also);
	if (a.guest[0])
		printable_printf(out, "  guest: %s\n", a.guest);
	bool off_better = false;
	for (unsigned k = 0; k < rec->nr_shapes; k++)
		off_better |= rec->shapes[k].ple_off.claim == TUNE_CLAIM_GAIN;
	if (off_better)
		printable_printf(out,
				 "  per-VM PLE off, for the shapes where it is better: QEMU %s\n"
				 "    also: %s\n    libvirt: %s\n    also: %s\n",
				 a.qemu, a.qemu_also, a.libvirt, a.libvirt_also);
}

void tune_result_print(FILE *out, const struct tune_result *r)
{
	const struct tune_search *s = &r->search;
	const struct tune_space *sp = &s->cfg.space;
	printable_printf(out, "plerig tune: %s (%s)%s%s\n", sp->param, r->module,
			 r->param_why[0] ? ": " : "", r->param_why);
	printable_printf(
	    out,
	    "  objective %s (%s is better), tolerance %g %%, %u visits in %u rounds (%u set a "
	    "value), %.0f s of a %.0f s budget (%s), seed %llu\n",
	    r->metric->name, metric_better_name(r->metric), s->cfg.tolerance_pct, s->nr_visits,
	    s->round, s->writes, r->seconds, s->cfg.budget_s, tune_stop_name(s->stop),
	    (unsigned long long)s->cfg.seed);
	printable_printf(out, "  kernel default %llu (%s)", (unsigned long long)sp->kernel_default,
			 sp->info->default_source);
	if (sp->has_current)
		fprintf(out, "; this host's %llu", (unsigned long long)sp->current);
	fprintf(out, "\n");
	if (r->pause.valid && sp->info->window)
		printable_printf(
		    out,
		    "  a PAUSE here: %.1f TSC cycles (%.1f ns); %s counts %s (on an emulated CPU: "
		    "the emulated clock's)\n",
		    r->pause.tsc_cycles, r->pause.ns, sp->param, sp->info->unit);
	if (s->stop == TUNE_STOP_ERROR)
		printable_printf(out, "\nstopped after %u visit(s): %s\n", s->nr_visits, s->error);
	else if (!r->rec.nr_resolved)
		fprintf(out,
			"\nnothing resolvable in this budget: %u visit(s) in %.0f s; each "
			"shape's figures below are what was measured\n",
			s->nr_visits, r->seconds);
	for (unsigned k = 0; k < s->cfg.nr_shapes; k++)
		print_shape(out, r, k);
	print_mix(out, r);
	print_flips(out, r);
	print_apply(out, r);
	printable_printf(out, "\nprovenance: host %s, kernel %s, CPU %s, plerig %s, %s, %.0f s\n",
			 r->host_valid ? r->host.name : "n/a",
			 r->host_valid ? r->host.kernel : "n/a",
			 r->host_valid ? r->host.cpu_model : "n/a", PLERIG_VERSION,
			 r->date[0] ? r->date : "date n/a", r->seconds);
	if (r->host_valid && r->host.clock[0])
		printable_printf(out, "  every time above is in %s\n", r->host.clock);
	printable_printf(out, "  before: %s\n  after:  %s\n", r->before, r->after);
}
