// SPDX-License-Identifier: GPL-2.0
#include "output/html_hosts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/html_page.h"
#include "output/html_text.h"
#include "output/svg_chart.h"
#include "output/units.h"

#define MAX_KEYS 256

/* Distinct names, in the order met. */
struct names {
	const char *name[MAX_KEYS];
	unsigned n;
};

static void names_add(struct names *s, const char *name)
{
	for (unsigned i = 0; i < s->n; i++)
		if (!strcmp(s->name[i], name))
			return;
	if (s->n < MAX_KEYS)
		s->name[s->n++] = name;
}

static unsigned len_of(json_object *a)
{
	return json_object_is_type(a, json_type_array) ? (unsigned)json_object_array_length(a) : 0;
}

/* The host a variant of @in ran on: the input's (check --connect), the variant's, the file's. */
static const char *host_of(const struct html_input *in, json_object *v)
{
	if (in->host)
		return in->host;
	if (jstr(v, "host"))
		return jstr(v, "host");
	const char *name = jstr(jget(in->doc, "host"), "name");
	return name ? name : "unknown host";
}

static bool is_results(const struct html_input *in)
{
	const char *schema = jstr(in->doc, "schema");
	return !schema || (strcmp(schema, "plerig-sweep") && strcmp(schema, "plerig-tune"));
}

/* "ticket/pause 1x4": what tells a host's variants apart in a cell. */
static void short_label(json_object *v, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s/%s %.0fx%.0f", jstr(v, "backend") ? jstr(v, "backend") : "?",
		 jstr(v, "lock") ? jstr(v, "lock") : "?", jstr(v, "relax") ? jstr(v, "relax") : "?",
		 jnum(v, "vms"), jnum(v, "vcpus"));
}

/* What a host's PLE did per acquisition: how the designs of two hosts differ on one lock. */
struct per_acq {
	const char *stat, *label, *why; /* why: the run summary's member saying why it is null */
};
static const struct per_acq per_acq[] = {
    {"ple_exits_per_acq", "PAUSE-loop exits/acq", "pause_loop_exits_unavailable"},
    {"ple_window_updates_per_acq", "window/count updates/acq", "ple_window_updates_unavailable"},
};

/* ", 2.008 PAUSE-loop exits/acq", or n/a with the first ok run's reason. */
static void per_acq_figure(FILE *out, json_object *v, const struct per_acq *f)
{
	const double mean = jnum(jget(jget(v, "stats"), f->stat), "mean");
	if (isfinite(mean)) {
		html_printf(out, ", %.4g %s", mean, f->label);
		return;
	}
	const char *why = NULL;
	json_object *runs = jget(v, "runs");
	for (unsigned r = 0; !why && r < len_of(runs); r++) {
		json_object *run = json_object_array_get_idx(runs, r), *flag = jget(run, "ok");
		if (flag && json_object_get_boolean(flag))
			why = jstr(jget(run, "summary"), f->why);
	}
	html_printf(out, ", %s n/a%s%s%s", f->label, why ? " (" : "", why ? why : "",
		    why ? ")" : "");
}

static void variant_line(FILE *out, json_object *v)
{
	json_object *runs = jget(v, "runs");
	unsigned ok = 0, n = len_of(runs);
	const char *error = NULL, *no_rate = NULL;
	for (unsigned r = 0; r < n; r++) {
		json_object *run = json_object_array_get_idx(runs, r), *flag = jget(run, "ok");
		if (!flag || !json_object_get_boolean(flag)) {
			error = error ? error : jstr(run, "error");
			continue;
		}
		ok++;
		if (!no_rate)
			no_rate = jstr(jget(run, "summary"), "rate_unavailable");
	}
	char label[160], acq[UNITS_BUF_SIZE];
	short_label(v, label, sizeof(label));
	html_escape(out, label);
	json_object *st = jget(jget(v, "stats"), "acq_per_s");
	const double mean = jnum(st, "mean");
	if (ok && isfinite(mean))
		html_printf(out, ": %s acq/s", units_count(mean, acq, sizeof(acq)));
	else if (ok) /* ok runs without a rate: n/a, as the run's own table says */
		html_printf(out, ": acq/s n/a%s%s%s", no_rate ? " (" : "", no_rate ? no_rate : "",
			    no_rate ? ")" : "");
	for (unsigned k = 0; ok && k < sizeof(per_acq) / sizeof(per_acq[0]); k++)
		per_acq_figure(out, v, &per_acq[k]);
	if (ok < n)
		html_printf(out, ", <b>%u of %u runs failed</b>%s%s", n - ok, n, error ? ": " : "",
			    error ? error : "");
	fputs("<br>\n", out);
}

/* A comparison of the run between two variants of @host: its verdict and change. */
static void comparison_line(FILE *out, json_object *vs, json_object *c)
{
	json_object *base = json_object_array_get_idx(vs, jreference(c));
	json_object *cand = json_object_array_get_idx(vs, jindex(c, "candidate"));
	char b[160], k[160];
	short_label(base, b, sizeof(b));
	short_label(cand, k, sizeof(k));
	const char *verdict = jstr(c, "verdict") ? jstr(c, "verdict") : "n/a";
	/* a verdict is the file's text like any other: only plerig's own word is made bold */
	if (!strcmp(verdict, "worse"))
		fputs("<i><b>worse</b></i> ", out);
	else
		html_printf(out, "<i>%s</i> ", verdict);
	html_printf(out, "%s %s vs %s", jstr(c, "metric") ? jstr(c, "metric") : "?", k, b);
	if (isfinite(jnum(c, "delta_pct")))
		html_printf(out, " %+.1f %%", jnum(c, "delta_pct"));
	fputs("<br>\n", out);
}

static void cell(FILE *out, const struct html_input *in, unsigned n, const char *column,
		 const char *host)
{
	bool any = false;
	fputs("<td>", out);
	for (unsigned i = 0; i < n; i++) {
		if (strcmp(in[i].name, column) || !is_results(&in[i]))
			continue;
		json_object *vs = jget(in[i].doc, "variants"), *cs = jget(in[i].doc, "comparisons");
		for (unsigned k = 0; k < len_of(vs); k++) {
			json_object *v = json_object_array_get_idx(vs, k);
			if (strcmp(host_of(&in[i], v), host))
				continue;
			variant_line(out, v);
			any = true;
		}
		for (unsigned k = 0; k < len_of(cs); k++) {
			json_object *c = json_object_array_get_idx(cs, k);
			json_object *cand = json_object_array_get_idx(vs, jindex(c, "candidate"));
			/* acq/s only: every other metric is in the section of the file */
			if (cand && !strcmp(host_of(&in[i], cand), host) && jstr(c, "metric") &&
			    !strcmp(jstr(c, "metric"), "acq_per_s"))
				comparison_line(out, vs, c);
		}
	}
	if (!any)
		fputs("not run there", out);
	fputs("</td>", out);
}

/* @host's identity as a results file of @in has it (its hosts[], or its host), or NULL. */
static json_object *identity_of(const struct html_input *in, unsigned n, const char *host)
{
	for (unsigned i = 0; i < n; i++) {
		if (!is_results(&in[i]))
			continue;
		json_object *hosts = jget(in[i].doc, "hosts"), *h = jget(in[i].doc, "host");
		for (unsigned k = 0; k < len_of(hosts); k++) {
			json_object *e = json_object_array_get_idx(hosts, k);
			const char *label = jstr(e, "label") ? jstr(e, "label") : jstr(e, "name");
			if (label && !strcmp(label, host))
				return e;
		}
		const char *name = in[i].host ? in[i].host : jstr(h, "name");
		if (len_of(hosts) < 2 && name && !strcmp(name, host))
			return h;
	}
	return NULL;
}

/* Under the host's name: its CPU, KVM module and PLE parameters, and what its seconds are. */
static void identity_cell(FILE *out, json_object *id, const char *host)
{
	char params[512], module[256];
	html_printf(out, "<th>%s", host);
	if (id) {
		const char *cpu =
		    jstr(id, "hypervisor") ? jstr(id, "hypervisor") : jstr(id, "cpu_model");
		const char *mod = html_module_text(id, module, sizeof(module));
		const char *clock = jstr(id, "clock");
		html_ple_params(id, params, sizeof(params));
		html_printf(out, "<br><small>%s; %s: %s", cpu ? cpu : "CPU unknown",
			    mod ? mod : "module unknown", params[0] ? params : "no PLE parameters");
		if (clock)
			html_printf(out, "; times in %.*s", (int)strcspn(clock, ":"), clock);
		fputs("</small>", out);
	}
	fputs("</th>", out);
}

static bool differ(json_object *a, json_object *b, const char *key)
{
	const char *x = jstr(a, key), *y = jstr(b, key);
	return (x || y) && (!x || !y || strcmp(x, y));
}

/* Do the hosts of the section differ in what they are (CPU, emulated CPU, KVM module)? */
static bool other_hardware(const struct html_input *in, unsigned n, const struct names *hosts)
{
	json_object *first = NULL;
	for (unsigned h = 0; h < hosts->n; h++) {
		json_object *id = identity_of(in, n, hosts->name[h]);
		if (!id || (jstr(id, "error") && !jstr(id, "hypervisor")))
			continue;
		if (first && (differ(first, id, "cpu_model") || differ(first, id, "hypervisor") ||
			      differ(first, id, "kvm_module")))
			return true;
		if (!first)
			first = id;
	}
	return false;
}

void html_hosts_section(FILE *out, const struct html_input *in, unsigned n)
{
	struct names hosts = {0}, columns = {0};
	for (unsigned i = 0; i < n; i++) {
		if (!is_results(&in[i]))
			continue;
		json_object *vs = jget(in[i].doc, "variants");
		names_add(&columns, in[i].name);
		for (unsigned k = 0; k < len_of(vs); k++)
			names_add(&hosts, host_of(&in[i], json_object_array_get_idx(vs, k)));
	}
	if (hosts.n < 2)
		return;
	html_section_open(out, "hosts", "Hosts side by side");
	html_note(out, "Each host's figures, means over its ok runs: lock acquisitions per "
		       "second, and what its PLE did per acquisition: PAUSE-loop exits and "
		       "updates of its PLE window (kvm_intel: ple_gap, ple_window) or of its "
		       "pause filter count (kvm_amd: pause_filter_count, pause_filter_thresh); "
		       "then the verdicts of each run's comparisons on acquisitions per second, "
		       "which pair variants of one host only. Under each host's name: its CPU, "
		       "KVM module and PLE parameters, and what its seconds are; the rest of "
		       "its identity is in each section's host table.");
	if (other_hardware(in, n, &hosts))
		html_note(out,
			  "Different hardware: these hosts differ in CPU or KVM module, so "
			  "each one's figures are its own design's, side by side, not a change "
			  "of one host: no host is another's reference.");
	fputs("<table class=\"hosts\"><tr><th>host</th>", out);
	for (unsigned c = 0; c < columns.n; c++) {
		html_printf(out, "<th>%s</th>", columns.name[c]);
	}
	fputs("</tr>\n", out);
	for (unsigned h = 0; h < hosts.n; h++) {
		fputs("<tr>", out);
		identity_cell(out, identity_of(in, n, hosts.name[h]), hosts.name[h]);
		for (unsigned c = 0; c < columns.n; c++)
			cell(out, in, n, columns.name[c], hosts.name[h]);
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
	html_section_close(out);
}
