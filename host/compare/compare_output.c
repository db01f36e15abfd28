// SPDX-License-Identifier: GPL-2.0
#include "output/json_util.h"
#include "compare/compare_output.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomic_file.h"
#include "util/uri_redact.h"
#include "output/json_writer.h"
#include "output/units.h"
#include "util/printable.h"

/* ---- the table --------------------------------------------------------- */

/* A value of @m in the unit people read it in: 12.3M, 85ns, 0.7%. */
static const char *metric_value(const struct metric *m, double v, char *buf, size_t len)
{
	size_t n = strlen(m->name);

	if (n > 3 && !strcmp(m->name + n - 3, "_ns"))
		return units_duration_ns(v, buf, len);
	if (n > 6 && !strcmp(m->name + n - 6, "_share"))
		return units_percent(v, buf, len);
	return units_count(v, buf, len);
}

/* "10.2M +- 0.31%": mean and stddev relative to it, as perf stat prints them. */
static const char *mean_sd(const struct metric *m, const struct sample_stats *s, char *buf,
			   size_t len)
{
	char v[UNITS_BUF_SIZE];

	if (!s->n)
		snprintf(buf, len, "-");
	else if (s->n < 2)
		snprintf(buf, len, "%s", metric_value(m, s->mean, v, sizeof(v)));
	else
		snprintf(buf, len, "%s +- %.2f%%", metric_value(m, s->mean, v, sizeof(v)),
			 100.0 * s->rel);
	return buf;
}

/* "+12.3%", or ">+999%" past the column's width: a huge change needs no digits. */
static void pct_text(double pct, char *buf, size_t len)
{
	if (pct >= 1000.0)
		snprintf(buf, len, ">+999%%");
	else if (pct <= -1000.0)
		snprintf(buf, len, "<-999%%");
	else
		snprintf(buf, len, "%+.1f%%", pct);
}

static const char *delta_text(const struct metric_comparison *r, char *buf, size_t len)
{
	const struct judgement *j = &r->judgement;

	if (isfinite(j->delta_pct))
		pct_text(j->delta_pct, buf, len);
	else if (j->delta == 0.0) /* 0 -> 0: no change, and no percentage of a base of 0 */
		snprintf(buf, len, "none");
	else if (!isnan(j->delta)) /* the base mean is 0: no percentage of it */
		snprintf(buf, len, "from 0");
	else
		snprintf(buf, len, "-");
	return buf;
}

/* The p the verdict beside it was weighed by: Holm-adjusted across the set. */
static const char *p_text(const struct metric_comparison *r, char *buf, size_t len)
{
	if (!r->welch.valid || isnan(r->p_holm))
		snprintf(buf, len, "-");
	else if (r->p_holm < 0.001)
		snprintf(buf, len, "<0.001");
	else
		snprintf(buf, len, "%.3f", r->p_holm);
	return buf;
}

/* In % of the base mean like the delta, or in the metric's unit when that mean is 0. */
static const char *ci_text(const struct metric_comparison *r, char *buf, size_t len)
{
	const struct welch_result *w = &r->welch;
	char lo[UNITS_BUF_SIZE], hi[UNITS_BUF_SIZE];

	if (!w->valid)
		snprintf(buf, len, "-");
	else if (r->base.mean != 0.0) {
		char a[16], b[16];
		pct_text(100.0 * w->ci_low / fabs(r->base.mean), a, sizeof(a));
		pct_text(100.0 * w->ci_high / fabs(r->base.mean), b, sizeof(b));
		snprintf(buf, len, "[%s, %s]", a, b);
	} else
		snprintf(buf, len, "[%s, %s]", metric_value(r->metric, w->ci_low, lo, sizeof(lo)),
			 metric_value(r->metric, w->ci_high, hi, sizeof(hi)));
	return buf;
}

static const char *verdict_text(const struct metric_comparison *r, char *buf, size_t len)
{
	const struct judgement *j = &r->judgement;

	if (j->verdict != VERDICT_UNTESTABLE)
		snprintf(buf, len, "%s", verdict_name(j->verdict));
	else if (metric_comparison_na(r)) /* not measured there: no --repeat would help */
		snprintf(buf, len, "untestable: n/a in %s: %s",
			 !r->base.n && r->base_why ? (!r->cand.n && r->cand_why ? "both" : "BASE")
						   : "NEW",
			 metric_comparison_na(r));
	else if (r->base.n < 2 || r->cand.n < 2)
		snprintf(buf, len,
			 "untestable: %u vs %u runs with a value, needs 2 a side "
			 "(--repeat >= 2)",
			 r->base.n, r->cand.n);
	else
		snprintf(buf, len, "untestable: %s", j->why);
	return buf;
}

#define ROW_FORMAT "  %-9s  %17s  %17s  %8s  %6s  %19s  %s\n"

static void print_row(FILE *f, const struct metric_comparison *r)
{
	char base[48], cand[48], delta[24], p[16], ci[48], verdict[128];

	printable_printf(f, ROW_FORMAT, r->metric->label,
			 mean_sd(r->metric, &r->base, base, sizeof(base)),
			 mean_sd(r->metric, &r->cand, cand, sizeof(cand)),
			 delta_text(r, delta, sizeof(delta)), p_text(r, p, sizeof(p)),
			 ci_text(r, ci, sizeof(ci)), verdict_text(r, verdict, sizeof(verdict)));
}

static void print_runs(FILE *f, const char *path, const struct loaded_variant *v)
{
	if (v->nr_ok == v->nr_runs)
		return;
	printable_printf(f, "  %s: %u of %u runs failed%s%s\n", path, v->nr_runs - v->nr_ok,
			 v->nr_runs, v->first_error ? ": " : "",
			 v->first_error ? v->first_error : "");
}

static void print_match(FILE *f, const struct comparison_set *c, const struct variant_match *m)
{
	printable_printf(f, "%s  (ok runs: %u of %u vs %u of %u)\n", m->base->label, m->base->nr_ok,
			 m->base->nr_runs, m->cand->nr_ok, m->cand->nr_runs);
	print_runs(f, c->base->path, m->base);
	print_runs(f, c->cand->path, m->cand);
	if (m->more_failures)
		printable_printf(f, "  FAILED: more runs fail in %s than in %s\n", c->cand->path,
				 c->base->path);
	if (m->differences[0])
		printable_printf(f, "  note: not the same settings: %s\n", m->differences);
	for (unsigned i = 0; i < c->nr_metrics; i++)
		print_row(f, &m->rows[i]);
}

static const char *or_unknown(const char *s)
{
	return s && *s ? s : "?";
}

static void print_file(FILE *f, const char *role, const struct results_file *r)
{
	printable_printf(f, "%s %s: plerig %s, kernel %s, %s%s%s%s, %s%s%s\n", role, r->path,
			 or_unknown(r->plerig_version), or_unknown(r->kernel),
			 or_unknown(r->kvm_module), r->kvm_module_source ? " (" : "",
			 r->kvm_module_source ? r->kvm_module_source : "",
			 r->kvm_module_source ? ")" : "", or_unknown(r->cpu_model),
			 r->ple_params[0] ? ", " : "", r->ple_params);
	if (r->interrupted)
		printable_printf(f, "  note: %s is from an interrupted run\n", r->path);
}

static bool differ(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") != 0;
}

/* A change of host is a change too: say so before anyone blames the patch. */
static void print_host_note(FILE *f, const struct results_file *a, const struct results_file *b)
{
	const char *what[4];
	unsigned n = 0;

	if (differ(a->kernel, b->kernel))
		what[n++] = "kernel";
	/* a remote host's module said "unknown" before plerig inferred it: no difference */
	if (differ(a->kvm_module, b->kvm_module) && differ(a->kvm_module, "unknown") &&
	    differ(b->kvm_module, "unknown"))
		what[n++] = "KVM module";
	if (differ(a->cpu_model, b->cpu_model))
		what[n++] = "CPU";
	if (differ(a->ple_params, b->ple_params))
		what[n++] = "PLE parameters";
	if (!n)
		return;
	fprintf(f, "note: the files differ in");
	for (unsigned i = 0; i < n; i++)
		printable_printf(f, "%s %s", i ? (i + 1 == n ? " and" : ",") : "", what[i]);
	fprintf(f, ": a difference may come from the host, not from the change under test\n");
}

/* Two vendors' KVM (emulated and emulated:amd): two PLE designs side by side, no regression. */
static void print_hardware_note(FILE *f, const struct comparison_set *c)
{
	const char *a, *b;
	if (comparison_set_other_hardware(c, &a, &b))
		printable_printf(f,
				 "note: different hardware: base ran %s, new %s: each verdict "
				 "says how the two differ (their PLE designs, their CPUs), not "
				 "that a change regressed, and no verdict makes the exit status "
				 "1\n",
				 a, b);
}

void compare_print_table(FILE *f, const struct comparison_set *c)
{
	print_file(f, "base", c->base);
	print_file(f, "new ", c->cand);
	print_host_note(f, c->base, c->cand);
	print_hardware_note(f, c);
	fprintf(f,
		"Welch's t-test over the ok runs; worse/better: p < %.2f after Holm's correction "
		"across the %u\ncomparisons with a p-value, and the whole 95%% CI of the change "
		"beyond %g%%; too noisy\nto judge: neither, and the CI wider than %g%%; +- is the "
		"sample standard deviation\nrelative to the mean; delta and 95%% CI in %% of the "
		"base mean\n",
		VERDICT_ALPHA, c->nr_tested, c->threshold_pct, c->threshold_pct);
	if (c->nr_matches) {
		fputc('\n', f);
		printable_printf(f, ROW_FORMAT, "metric", "base", "new", "delta", "p-holm",
				 "95% CI of delta", "verdict");
	}
	for (unsigned i = 0; i < c->nr_matches; i++) {
		fputc('\n', f);
		print_match(f, c, &c->matches[i]);
	}
	if (c->nr_only_base || c->nr_only_cand)
		fputc('\n', f);
	for (unsigned i = 0; i < c->nr_only_base; i++)
		printable_printf(f, "only in %s: %s\n", c->base->path, c->only_base[i]->label);
	for (unsigned i = 0; i < c->nr_only_cand; i++)
		printable_printf(f, "only in %s: %s\n", c->cand->path, c->only_cand[i]->label);
	/* the verdicts are per metric of each variant: count them as what they are */
	unsigned judged = 0;
	for (unsigned v = 0; v <= VERDICT_WORSE; v++)
		judged += c->verdicts[v];
	fprintf(f,
		"\n%u variant(s) compared on %u metric(s): %u worse, %u better, %u no significant "
		"change, %u too noisy to judge, %u untestable",
		c->nr_matches, judged, c->verdicts[VERDICT_WORSE], c->verdicts[VERDICT_BETTER],
		c->verdicts[VERDICT_NO_CHANGE], c->verdicts[VERDICT_TOO_NOISY],
		c->verdicts[VERDICT_UNTESTABLE]);
	if (c->more_failures)
		fprintf(f, "; %u with more failed runs", c->more_failures);
	fputc('\n', f);
}

/* ---- JSON --------------------------------------------------------------- */

static json_object *file_json(const struct results_file *r)
{
	json_object *o = json_object_new_object();

	json_add_str(o, "path", r->path);
	json_add_str(o, "plerig_version", r->plerig_version);
	/* a file written by an older plerig, or edited, may carry a secret again */
	char *command_line = r->command_line ? uri_redact_dup(r->command_line) : NULL;
	json_add_str(o, "command_line", command_line);
	free(command_line);
	json_add_str(o, "kernel", r->kernel);
	json_add_str(o, "kvm_module", r->kvm_module);
	if (r->kvm_module_source)
		json_add_str(o, "kvm_module_source", r->kvm_module_source);
	json_add_str(o, "cpu_model", r->cpu_model);
	json_add(o, "interrupted", json_object_new_boolean(r->interrupted));
	return o;
}

/* The identity fields, shared with the loaded document. */
static json_object *identity_json(const struct loaded_variant *v)
{
	static const char *const names[] = {RESULTS_FILE_IDENTITY};
	json_object *o = json_object_new_object();

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		json_add(o, names[i], json_object_get(results_file_member(v, names[i])));
	/* matched on too; a file from before --ple ran with PLE on */
	json_object *ple = results_file_member(v, "ple");
	json_add(o, "ple", ple ? json_object_get(ple) : json_object_new_string("on"));
	return o;
}

static json_object *side_json(const struct sample_stats *s)
{
	json_object *o = json_object_new_object();

	json_add(o, "n", json_object_new_int64(s->n));
	json_add(o, "mean", json_double(s->n ? s->mean : NAN));
	json_add(o, "stddev", json_double(s->n ? s->stddev : NAN));
	return o;
}

static json_object *row_json(const struct metric_comparison *r)
{
	json_object *o = json_object_new_object();
	const struct welch_result *w = &r->welch;
	const struct judgement *j = &r->judgement;

	json_add_str(o, "metric", r->metric->name);
	json_add_str(o, "better", metric_better_name(r->metric));
	json_add(o, "base", side_json(&r->base));
	json_add(o, "new", side_json(&r->cand));
	json_add(o, "delta", json_double(j->delta));
	json_add(o, "delta_pct", json_double(j->delta_pct));
	json_add_str(o, "delta_pct_why", j->pct_why);
	json_add(o, "p_value", json_double(w->valid ? w->p : NAN));
	json_add(o, "p_holm", json_double(r->p_holm));
	json_add(o, "ci95_low", json_double(w->valid ? w->ci_low : NAN));
	json_add(o, "ci95_high", json_double(w->valid ? w->ci_high : NAN));
	json_add(o, "significant", json_object_new_boolean(j->significant));
	json_add_str(o, "verdict", verdict_name(j->verdict));
	/* a figure a side does not have: the file's reason, not "too few runs" */
	json_add_str(o, "why", metric_comparison_na(r) ? metric_comparison_na(r) : j->why);
	json_add_str(o, "base_unavailable", r->base.n ? NULL : r->base_why);
	json_add_str(o, "new_unavailable", r->cand.n ? NULL : r->cand_why);
	return o;
}

static json_object *match_json(const struct comparison_set *c, const struct variant_match *m)
{
	json_object *o = identity_json(m->base);
	json_object *rows = json_object_new_array();

	json_add(o, "base_runs", json_object_new_int64(m->base->nr_runs));
	json_add(o, "base_ok", json_object_new_int64(m->base->nr_ok));
	json_add(o, "new_runs", json_object_new_int64(m->cand->nr_runs));
	json_add(o, "new_ok", json_object_new_int64(m->cand->nr_ok));
	json_add(o, "more_failures", json_object_new_boolean(m->more_failures));
	json_add_str(o, "differences", m->differences[0] ? m->differences : NULL);
	for (unsigned i = 0; i < c->nr_metrics; i++)
		json_object_array_add(rows, row_json(&m->rows[i]));
	json_add(o, "metrics", rows);
	return o;
}

static json_object *compare_json(const struct comparison_set *c)
{
	json_object *root = json_object_new_object();
	json_object *names = json_object_new_array();
	json_object *variants = json_object_new_array();
	json_object *only_base = json_object_new_array();
	json_object *only_cand = json_object_new_array();
	json_object *counts = json_object_new_object();

	json_add_str(root, "schema", COMPARE_SCHEMA);
	json_add(root, "schema_version", json_object_new_int(COMPARE_SCHEMA_VERSION));
	json_add(root, "base", file_json(c->base));
	json_add(root, "new", file_json(c->cand));
	json_add(root, "threshold_pct", json_double(c->threshold_pct));
	json_add(root, "alpha", json_double(VERDICT_ALPHA));
	for (unsigned i = 0; i < c->nr_metrics; i++)
		json_object_array_add(names, json_object_new_string(c->metrics[i]->name));
	json_add(root, "metrics", names);
	for (unsigned i = 0; i < c->nr_matches; i++)
		json_object_array_add(variants, match_json(c, &c->matches[i]));
	json_add(root, "variants", variants);
	for (unsigned i = 0; i < c->nr_only_base; i++)
		json_object_array_add(only_base, identity_json(c->only_base[i]));
	json_add(root, "only_in_base", only_base);
	for (unsigned i = 0; i < c->nr_only_cand; i++)
		json_object_array_add(only_cand, identity_json(c->only_cand[i]));
	json_add(root, "only_in_new", only_cand);
	for (unsigned v = 0; v <= VERDICT_WORSE; v++)
		json_add(counts, verdict_name((enum verdict)v),
			 json_object_new_int64(c->verdicts[v]));
	json_add(counts, "more_failures", json_object_new_int64(c->more_failures));
	json_add(root, "counts", counts);
	json_add(root, "exit_status", json_object_new_int(comparison_set_status(c)));
	const char *a, *b;
	json_add(root, "different_hardware",
		 json_object_new_boolean(comparison_set_other_hardware(c, &a, &b)));
	return root;
}

int compare_write_json(const char *path, const struct comparison_set *c, char *err, size_t errlen)
{
	json_object *root = compare_json(c);
	const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
								    JSON_C_TO_STRING_NOSLASHESCAPE);
	char *buf = text ? malloc(strlen(text) + 2) : NULL;
	int rc;

	if (!buf) {
		json_object_put(root);
		return errbuf_printf(err, errlen, "cannot write '%s': out of memory", path);
	}
	size_t len = strlen(text);
	memcpy(buf, text, len);
	buf[len++] = '\n';
	buf[len] = '\0';
	rc = atomic_file_write(path, "JSON", buf, len, err, errlen);
	free(buf);
	json_object_put(root);
	return rc;
}
