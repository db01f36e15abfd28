// SPDX-License-Identifier: GPL-2.0
/*
 * The answer of `plerig tune` (schema plerig-tune, docs/tune.schema.json) for
 * the HTML report: the recommendation per shape as a table, the cost curves
 * it was chosen from, each shape's best value marked and its flat range (the
 * values within the tolerance of the best) shaded, per-VM PLE off and a
 * value 0 (which a log axis cannot place) as horizontal reference lines, and
 * how to apply the answer with its provenance. Every string is the file's,
 * untrusted: written through html_printf.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/html_page.h"
#include "output/html_text.h"
#include "output/html_writer.h"
#include "output/svg_chart.h"
#include "output/units.h"

#define MAX_SHAPES 64 /* tune takes 16; a file may hold more, drawn up to this */
#define MAX_MARKS  (4 * MAX_SHAPES)

static unsigned len_of(json_object *a)
{
	return json_object_is_type(a, json_type_array) ? (unsigned)json_object_array_length(a) : 0;
}

static json_object *at(json_object *a, unsigned i)
{
	return i < len_of(a) ? json_object_array_get_idx(a, i) : NULL;
}

/* A number of the file (an array's member), NaN when it is none. */
static double num(json_object *v)
{
	if (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double))
		return json_object_get_double(v);
	return NAN;
}

/* "+52.1 % [+48.0, +56.3]" of a diff or comparison object; "n/a" without a gain. */
static const char *pct_ci(json_object *d, char *buf, size_t len)
{
	double g = jnum(d, "gain_pct"), lo = jnum(d, "ci95_low"), hi = jnum(d, "ci95_high");
	json_object *exact = jget(d, "exact");
	if (isnan(g))
		snprintf(buf, len, "n/a");
	else if (exact && json_object_get_boolean(exact))
		snprintf(buf, len, "%+.1f %% (every visit the same)", g);
	else if (isnan(lo) || isnan(hi))
		snprintf(buf, len, "%+.1f %%", g);
	else
		snprintf(buf, len, "%+.1f %% [%+.1f, %+.1f]", g, lo, hi);
	return buf;
}

/*
 * What a claim of docs/tune.schema.json allows one to say of the best against a value
 * (@ple_off: of per-VM PLE off against the best); the file's word for another.
 */
static const char *claim_words(const char *claim, bool ple_off)
{
	static const char *const words[][3] = {
	    {"gain", "a gain", "PAUSE exits off is better"},
	    {"loss", "it did better than the best in the confirmation rounds",
	     "keep PAUSE exits on, with the best window"},
	    {"as good", "as good as anything tried (no difference of the tolerance's size)",
	     "no difference of the tolerance's size"},
	    {"too noisy", "too noisy to tell (the CI is wider than the tolerance)",
	     "no difference resolvable (the CI is wider than the tolerance)"},
	    {"unresolved", "not resolvable", "not resolvable"},
	};
	for (unsigned i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(claim, words[i][0]))
			return words[i][ple_off ? 2 : 1];
	return claim;
}

/*
 * A comparison's cell: its gain with the CI and what it allows one to claim, against the
 * value it names; @ple_off: per-VM PLE off's gain over the best (the column says so).
 */
static void claim_cell(FILE *out, json_object *c, const char *param, bool ple_off)
{
	char ci[128], ref[64] = "";
	const char *claim = jstr(c, "claim");
	if (!c || !claim) {
		html_printf(out, "<td>n/a</td>");
		return;
	}
	if (!ple_off && !isnan(jnum(c, "value")))
		snprintf(ref, sizeof(ref), "against %.0f: ", jnum(c, "value"));
	pct_ci(c, ci, sizeof(ci));
	if (!strcmp(claim, "same")) {
		html_printf(out, "<td>%s=%.0f: the best value itself</td>", param,
			    jnum(c, "value"));
		return;
	}
	if (!strcmp(claim, "none")) {
		html_printf(out, "<td>n/a: the host's value could not be read</td>");
		return;
	}
	if (!isnan(jnum(c, "p_holm")))
		html_printf(out, "<td>%s%s: <b>%s</b> (p %.2g after Holm)%s</td>", ref, ci,
			    claim_words(claim, ple_off), jnum(c, "p_holm"),
			    json_object_get_boolean(jget(c, "from_confirmation"))
				? ""
				: " [from the rounds that chose the best]");
	else
		html_printf(out, "<td>%s%s: <b>%s</b>%s%s</td>", ref, ci,
			    claim_words(claim, ple_off), jstr(c, "untested_why") ? ": " : "",
			    jstr(c, "untested_why") ? jstr(c, "untested_why") : "");
}

static void flat_cell(FILE *out, json_object *shape, double tol)
{
	json_object *flat = jget(shape, "flat"), *every = jget(shape, "flat_everywhere");
	html_printf(out, "<td>");
	if (every && json_object_get_boolean(every))
		html_printf(out, "everywhere: every value tried is within %g %% of the best", tol);
	else if (!len_of(flat))
		html_printf(out, "n/a");
	for (unsigned i = 0; i < len_of(flat) && !(every && json_object_get_boolean(every)); i++)
		html_printf(out, "%s%.0f..%.0f%s", i ? ", " : "", jnum(at(flat, i), "low"),
			    jnum(at(flat, i), "high"),
			    json_object_get_boolean(jget(at(flat, i), "has_best")) ? " (the best)"
										   : "");
	html_printf(out, "</td>");
}

/* the unit a value is counted in (kvm_amd's count: PAUSEs, not cycles); "" for a factor */
static const char *value_unit(json_object *doc)
{
	const char *unit = jstr(jget(doc, "param"), "unit");
	return !unit || !strcmp(unit, "factor") || !strcmp(unit, "divisor") ? "" : unit;
}

/* The values whose visits split by regime (issue 27): left out of their figures. */
static void regimes_row(FILE *out, json_object *s, const char *param)
{
	json_object *rg = jget(s, "regimes"), *split = jget(rg, "split");
	if (!len_of(split))
		return;
	html_printf(out,
		    "<tr><td></td><td colspan=\"7\">regimes: visits more than %g %% from their "
		    "value's median left out (issue 27's second regime; the other visits agree):",
		    jnum(rg, "split_pct"));
	for (unsigned i = 0; i < len_of(split); i++) {
		json_object *v = at(split, i);
		if (isnan(jnum(v, "value")))
			html_printf(out, "%s PLE off per VM", i ? "," : "");
		else
			html_printf(out, "%s %s=%.0f", i ? "," : "", param, jnum(v, "value"));
		html_printf(
		    out, " %.0f of %.0f%s", jnum(v, "other_regime"),
		    jnum(v, "agree") + jnum(v, "other_regime"),
		    jnum(v, "agree") > jnum(v, "other_regime") ? "" : " (no majority: no figure)");
	}
	html_printf(out, "</td></tr>\n");
}

static void recommendation_table(FILE *out, json_object *doc, const char *param)
{
	json_object *shapes = jget(doc, "shapes");
	const char *unit = value_unit(doc);
	double tol = jnum(doc, "tolerance_pct");
	char num[UNITS_BUF_SIZE], lo[UNITS_BUF_SIZE], hi[UNITS_BUF_SIZE], buf[128];

	html_printf(out,
		    "<h3>Recommendation per shape</h3>\n<table class=\"hosts\"><tr>"
		    "<th>shape</th><th>best</th><th>%s at the best [95 %% CI]</th>"
		    "<th>vs the host's value</th><th>vs the kernel default</th>"
		    "<th>flat range (within %g %%)</th><th>per-VM PLE off vs the best</th>"
		    "<th>the mix's value vs the best</th></tr>\n",
		    jstr(doc, "objective") ? jstr(doc, "objective") : "objective", tol);
	for (unsigned k = 0; k < len_of(shapes) && k < MAX_SHAPES; k++) {
		json_object *s = at(shapes, k), *cell = jget(s, "best_objective");
		html_printf(out, "<tr><td>S%u: %s", k + 1,
			    jstr(s, "label") ? jstr(s, "label") : "?");
		if (jstr(s, "note"))
			html_printf(out, "<br><i>%s</i>", jstr(s, "note"));
		html_printf(out, "</td>");
		if (!json_object_get_boolean(jget(s, "resolved"))) {
			html_printf(out, "<td colspan=\"7\">not resolved: %s</td></tr>\n",
				    jstr(s, "unresolved_why") ? jstr(s, "unresolved_why")
							      : "the file says not why");
			continue;
		}
		if (isnan(jnum(s, "best")))
			html_printf(out, "<td>PLE off per VM</td>");
		else
			html_printf(out, "<td><b>%s=%.0f</b>%s%s</td>", param, jnum(s, "best"),
				    unit[0] ? " " : "", unit);
		html_printf(out, "<td>%s [%s, %s], %.0f visits</td>",
			    units_count(jnum(cell, "mean"), num, sizeof(num)),
			    units_count(jnum(cell, "ci95_low"), lo, sizeof(lo)),
			    units_count(jnum(cell, "ci95_high"), hi, sizeof(hi)), jnum(cell, "n"));
		claim_cell(out, jget(s, "vs_current"), param, false);
		claim_cell(out, jget(s, "vs_default"), param, false);
		flat_cell(out, s, tol);
		claim_cell(out, jget(s, "ple_off"), param, true);
		if (jget(s, "mix_loss"))
			html_printf(out, "<td>%s</td>",
				    pct_ci(jget(s, "mix_loss"), buf, sizeof(buf)));
		else
			html_printf(out, "<td>%s</td>", jget(doc, "mix") ? "its own best" : "n/a");
		html_printf(out, "</tr>\n");
		if (json_object_get_boolean(jget(s, "too_noisy")))
			html_printf(out,
				    "<tr><td></td><td colspan=\"7\">too noisy: the visits at one "
				    "value vary by %.1f %% (median stddev); no claim</td></tr>\n",
				    jnum(s, "spread_pct"));
		regimes_row(out, s, param);
		if (jstr(jget(s, "edge"), "note"))
			html_printf(out, "<tr><td></td><td colspan=\"7\">%s</td></tr>\n",
				    jstr(jget(s, "edge"), "note"));
	}
	html_printf(out, "</table>\n");
}

/* ---- the cost curves --------------------------------------------------- */

struct curve_fig {
	const char *key; /* NULL: the objective */
	const char *title, *y_label, *unit;
	bool log;
};

static const struct curve_fig figs[] = {
    {NULL, "Objective", "", "", true},
    {"acq_per_s", "Throughput", "acquisitions per second (log)", "", true},
    {"wait_p99_ns", "p99 wait", "p99 wait before the lock (log)", "ns", true},
    {"holder_preemptions_per_s", "Lock-holder preemptions", "lock-holder preemptions per second",
     "", false},
    {"ple_exits_per_s", "PAUSE-loop exits", "PAUSE-loop exits per second (log)", "", true},
    {"yields_successful_per_s", "Directed yields, successful",
     "successful directed yields per second", "", false},
    {"yields_attempted_per_s", "Directed yields, attempted", "attempted directed yields per second",
     "", false},
    {"halts_per_s", "Halts (pvqspin)", "halts per second", "", false},
    {"kicks_per_s", "Kicks (pvqspin)", "kicks per second", "", false},
};

/* A figure's cell at a curve point: the objective, or figures.KEY. */
static json_object *cell_of(json_object *point, const char *key)
{
	return key ? jget(jget(point, "figures"), key) : jget(point, "objective");
}

static int by_value(const void *a, const void *b)
{
	double x = jnum(*(json_object *const *)a, "value"),
	       y = jnum(*(json_object *const *)b, "value");
	return (x > y) - (x < y);
}

struct curves {
	unsigned nr;		       /* shapes drawn */
	json_object **pts[MAX_SHAPES]; /* each shape's points with a value > 0, ascending */
	unsigned n[MAX_SHAPES];
	json_object *refs[MAX_SHAPES][2]; /* per-VM PLE off, and the value 0 */
	char names[MAX_SHAPES][200];
	char marks[MAX_MARKS][96];
};

static void curve_chart(FILE *out, json_object *doc, const struct curves *cv, unsigned fig,
			unsigned index, const char *param)
{
	json_object *shapes = jget(doc, "shapes");
	const struct curve_fig *f = &figs[fig];
	static struct xy_series series[MAX_SHAPES];
	static struct vline vl[MAX_SHAPES];
	static struct xspan spans[MAX_MARKS];
	static struct hline hl[2 * MAX_SHAPES];
	static char labels[MAX_MARKS][96];
	unsigned total = 0, nv = 0, ns = 0, nh = 0, measured = 0, l = 0;

	for (unsigned k = 0; k < cv->nr; k++)
		total += cv->n[k];
	double *buf = calloc(3 * (total + 1), sizeof(double));
	if (!buf)
		return;
	double *xs = buf, *ys = buf + total + 1, *es = buf + 2 * (total + 1);
	unsigned used = 0;
	for (unsigned k = 0; k < cv->nr; k++) {
		json_object *s = at(shapes, k);
		series[k] = (struct xy_series){
		    .name = cv->names[k], .x = xs + used, .y = ys + used, .err = es + used};
		for (unsigned i = 0; i < cv->n[k]; i++) {
			json_object *c = cell_of(cv->pts[k][i], f->key);
			double lo = jnum(c, "ci95_low"), hi = jnum(c, "ci95_high");
			xs[used] = jnum(cv->pts[k][i], "value");
			ys[used] = jnum(c, "mean");
			es[used] = isfinite(lo) && isfinite(hi) ? (hi - lo) / 2 : 0;
			measured += isfinite(ys[used]);
			used++;
			series[k].n++;
		}
		static const char *const ref_names[2] = {"PLE off per VM", "0"};
		for (unsigned r = 0; r < 2; r++) {
			double y = jnum(cell_of(cv->refs[k][r], f->key), "mean");
			if (!cv->refs[k][r] || !isfinite(y) || l >= MAX_MARKS)
				continue;
			measured++;
			if (r)
				snprintf(labels[l], sizeof(labels[l]), "S%u %s=0", k + 1, param);
			else
				snprintf(labels[l], sizeof(labels[l]), "S%u %s", k + 1,
					 ref_names[r]);
			hl[nh++] = (struct hline){y, labels[l++]};
		}
		if (!isnan(jnum(s, "best")) && l < MAX_MARKS) {
			snprintf(labels[l], sizeof(labels[l]), "S%u best %.0f", k + 1,
				 jnum(s, "best"));
			vl[nv++] = (struct vline){jnum(s, "best"), labels[l++]};
		}
		json_object *flat = jget(s, "flat");
		for (unsigned i = 0; i < len_of(flat) && ns < MAX_MARKS && l < MAX_MARKS; i++) {
			snprintf(labels[l], sizeof(labels[l]), "S%u flat", k + 1);
			spans[ns++] = (struct xspan){jnum(at(flat, i), "low"),
						     jnum(at(flat, i), "high"), labels[l++]};
		}
	}
	if (measured) {
		char id[64], title[200], yl[160];
		const char *metric = jstr(doc, "objective") ? jstr(doc, "objective") : "objective";
		snprintf(id, sizeof(id), "t%u-%s", index, f->key ? f->key : "objective");
		if (f->key)
			snprintf(title, sizeof(title), "%s against %s", f->title, param);
		else
			snprintf(title, sizeof(title),
				 "The objective, %s (%s is better), against %s", metric,
				 jstr(doc, "better") ? jstr(doc, "better") : "?", param);
		snprintf(yl, sizeof(yl), "%s", f->key ? f->y_label : metric);
		char xl[96];
		snprintf(xl, sizeof(xl), "%s (log)", param);
		svg_xy_chart(out, &(struct xy_chart){.id = id,
						     .title = title,
						     .x_label = xl,
						     .y_label = yl,
						     .x_unit = "",
						     .y_unit = f->unit,
						     .x_log = true,
						     .y_log = f->log,
						     .y_zero = !f->log,
						     .nr_series = cv->nr,
						     .series = series,
						     .nr_vlines = nv,
						     .vlines = vl,
						     .nr_spans = ns,
						     .spans = spans,
						     .nr_hlines = nh,
						     .hlines = hl});
	}
	free(buf);
}

static void curve_charts(FILE *out, json_object *doc, unsigned index, const char *param)
{
	json_object *shapes = jget(doc, "shapes");
	static struct curves cv;
	char missing[512] = "";
	size_t used = 0;

	memset(&cv, 0, sizeof(cv));
	cv.nr = len_of(shapes) < MAX_SHAPES ? len_of(shapes) : MAX_SHAPES;
	for (unsigned k = 0; k < cv.nr; k++) {
		json_object *s = at(shapes, k), *curve = jget(s, "curve");
		snprintf(cv.names[k], sizeof(cv.names[k]), "S%u %s", k + 1,
			 jstr(s, "label") ? jstr(s, "label") : "?");
		cv.pts[k] = calloc(len_of(curve) + 1, sizeof(json_object *));
		for (unsigned i = 0; cv.pts[k] && i < len_of(curve); i++) {
			json_object *p = at(curve, i);
			double v = jnum(p, "value");
			if (isnan(v))
				cv.refs[k][0] = p;
			else if (v == 0)
				cv.refs[k][1] = p;
			else
				cv.pts[k][cv.n[k]++] = p;
		}
		if (cv.pts[k])
			qsort(cv.pts[k], cv.n[k], sizeof(json_object *), by_value);
	}
	html_printf(out, "<h3>Cost curves</h3>\n<div class=\"charts\">\n");
	for (unsigned f = 0; f < sizeof(figs) / sizeof(figs[0]); f++) {
		const char *metric = jstr(doc, "objective");
		bool any = false;
		if (figs[f].key && metric && !strcmp(metric, figs[f].key))
			continue; /* drawn as the objective */
		for (unsigned k = 0; k < cv.nr && !any; k++) {
			for (unsigned i = 0; i < cv.n[k] && !any; i++)
				any = isfinite(jnum(cell_of(cv.pts[k][i], figs[f].key), "mean"));
			for (unsigned r = 0; r < 2 && !any; r++)
				any = isfinite(jnum(cell_of(cv.refs[k][r], figs[f].key), "mean"));
		}
		if (any) {
			curve_chart(out, doc, &cv, f, index, param);
			continue;
		}
		int n = snprintf(missing + used, sizeof(missing) - used, "%s%s", used ? ", " : "",
				 figs[f].title);
		if (n > 0 && (size_t)n < sizeof(missing) - used)
			used += (size_t)n;
	}
	html_printf(out, "</div>\n");
	html_note(out, "One line per shape (S1, S2, ... as in the table): the mean over the visits "
		       "at each value, error bars the 95 % confidence interval of the mean. "
		       "Dashed vertical line: the shape's best value; shaded: its flat range, the "
		       "values whose mean is within the tolerance of the best's. Horizontal lines: "
		       "what has no place on a log axis (per-VM PLE off, the value 0).");
	if (used)
		html_printf(out, "<p class=\"note\">Not drawn, no visit measured it: %s.</p>\n",
			    missing);
	for (unsigned k = 0; k < cv.nr; k++)
		free(cv.pts[k]);
}

/* ---- the parameter, the mix, how to apply it, provenance ------------------ */

static void number_row(FILE *out, const char *name, double v, const char *fmt_unit)
{
	char buf[96] = "n/a";
	if (isfinite(v))
		snprintf(buf, sizeof(buf), "%.0f%s", v, fmt_unit);
	html_row(out, name, buf);
}

static void about_table(FILE *out, json_object *doc, const char *file)
{
	json_object *p = jget(doc, "param"), *prov = jget(doc, "provenance"),
		    *pause = jget(doc, "pause_cost");
	char buf[512];

	html_printf(out, "<table class=\"host\">\n");
	html_row(out, "tune file", file);
	snprintf(buf, sizeof(buf), "%s of %s, in %s", jstr(p, "name") ? jstr(p, "name") : "?",
		 jstr(p, "module") ? jstr(p, "module") : "?",
		 jstr(p, "unit") ? jstr(p, "unit") : "?");
	html_row(out, "parameter", buf);
	if (jstr(p, "why"))
		html_row(out, "why this parameter", jstr(p, "why"));
	snprintf(buf, sizeof(buf), "%.0f (%s)", jnum(p, "kernel_default"),
		 jstr(p, "default_source") ? jstr(p, "default_source") : "source not recorded");
	html_row(out, "kernel default", buf);
	number_row(out, "the host's value before", jnum(p, "current"), "");
	snprintf(buf, sizeof(buf), "%.0f .. %.0f", num(at(jget(p, "range"), 0)),
		 num(at(jget(p, "range"), 1)));
	html_row(out, "searched", buf);
	snprintf(buf, sizeof(buf), "%s (%s is better), tolerance %g %%",
		 jstr(doc, "objective") ? jstr(doc, "objective") : "?",
		 jstr(doc, "better") ? jstr(doc, "better") : "?", jnum(doc, "tolerance_pct"));
	html_row(out, "objective", buf);
	snprintf(buf, sizeof(buf), "%s after %.0f rounds and %u visits, %.0f s of a %.0f s budget",
		 jstr(doc, "stop") ? jstr(doc, "stop") : "?", jnum(doc, "rounds"),
		 len_of(jget(doc, "visits")), jnum(prov, "seconds"), jnum(doc, "budget_s"));
	html_row(out, "stopped", buf);
	if (isfinite(jnum(pause, "tsc_cycles")))
		snprintf(buf, sizeof(buf), "%.1f TSC cycles (%.1f ns)", jnum(pause, "tsc_cycles"),
			 jnum(pause, "ns"));
	else
		snprintf(buf, sizeof(buf), "n/a: %s",
			 jstr(pause, "unavailable") ? jstr(pause, "unavailable") : "not measured");
	html_row(out, "a PAUSE here", buf);
	html_row(out, "host", jstr(prov, "host"));
	html_row(out, "kernel", jstr(prov, "kernel"));
	html_row(out, "CPU", jstr(prov, "cpu_model"));
	html_row(out, "plerig version", jstr(prov, "plerig_version"));
	html_row(out, "date", jstr(prov, "date"));
	if (jstr(prov, "clock"))
		html_row(out, "its seconds", jstr(prov, "clock"));
	html_row(out, "command line", jstr(prov, "command_line"));
	html_row(out, "parameters before", jstr(prov, "params_before"));
	html_row(out, "parameters after", jstr(prov, "params_after"));
	html_printf(out, "</table>\n");
}

static void apply_table(FILE *out, json_object *doc, const char *param)
{
	json_object *mix = jget(doc, "mix"), *a = jget(doc, "apply"),
		    *flips = jget(doc, "ple_off_flips");
	char buf[256];

	html_printf(out,
		    "<h3>Across the shapes, and how to apply it</h3>\n<table class=\"host\">\n");
	if (mix) {
		snprintf(buf, sizeof(buf), "%s=%.0f, worst loss against a shape's own best %.1f %%",
			 param, jnum(mix, "value"), jnum(mix, "worst_loss_pct"));
		html_row(out, "one value for the mix", buf);
	} else {
		html_row(out, "one value for the mix",
			 "none: no value was measured twice for every shape");
	}
	if (a && !json_object_get_boolean(jget(a, "change")))
		html_row(out, "apply",
			 jstr(a, "keep_why") ? jstr(a, "keep_why") : "nothing to change");
	if (a && json_object_get_boolean(jget(a, "change"))) {
		html_row(out, "modprobe.d", jstr(a, "modprobe"));
		if (jstr(a, "runtime"))
			html_row(out, "at run time", jstr(a, "runtime"));
		html_row(out, "it also changes", jstr(a, "also"));
		if (jstr(a, "guest"))
			html_row(out, "in the guest", jstr(a, "guest"));
	}
	if (a) {
		html_row(out, "per-VM PLE off, QEMU", jstr(a, "qemu_ple_off"));
		html_row(out, "which also", jstr(a, "qemu_ple_off_also"));
		html_row(out, "per-VM PLE off, libvirt", jstr(a, "libvirt_ple_off"));
		html_row(out, "which also", jstr(a, "libvirt_ple_off_also"));
	}
	if (jstr(doc, "ple_off_unavailable"))
		html_row(out, "per-VM PLE off", jstr(doc, "ple_off_unavailable"));
	for (unsigned i = 0; i < len_of(flips); i++) {
		json_object *f = at(flips, i), *pts = jget(f, "points"),
			    *b = jget(f, "flips_between");
		size_t used = 0;
		buf[0] = '\0';
		for (unsigned j = 0; j < len_of(pts) && used < sizeof(buf); j++) {
			int n =
			    snprintf(buf + used, sizeof(buf) - used, "%s%s at %.3gx", j ? "; " : "",
				     jstr(at(pts, j), "answer") ? jstr(at(pts, j), "answer") : "?",
				     jnum(at(pts, j), "ratio"));
			used += n > 0 ? (size_t)n : 0;
		}
		if (b && used < sizeof(buf))
			snprintf(buf + used, sizeof(buf) - used, ": flips between %.3gx and %.3gx",
				 num(at(b, 0)), num(at(b, 1)));
		html_printf(out,
			    "<tr><td>PLE off or the window, %s</td><td><code>%s</code></td></tr>\n",
			    jstr(f, "family") ? jstr(f, "family") : "?", buf);
	}
	html_printf(out, "</table>\n");
}

void html_tune_section(FILE *out, const struct html_input *in, unsigned index)
{
	json_object *doc = in->doc;
	const char *param =
	    jstr(jget(doc, "param"), "name") ? jstr(jget(doc, "param"), "name") : "parameter";
	char id[48], title[512];

	snprintf(id, sizeof(id), "tune-%u", index);
	snprintf(title, sizeof(title), "Tune: %s", in->name);
	html_section_open(out, id, title);
	about_table(out, doc, in->name);
	if (!json_object_get_boolean(jget(doc, "resolved")))
		html_note(out,
			  "Nothing resolvable in this budget: the table and the curves show what "
			  "was measured.");
	recommendation_table(out, doc, param);
	curve_charts(out, doc, index, param);
	apply_table(out, doc, param);
	html_section_close(out);
}
