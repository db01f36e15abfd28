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
	html_note(out, "Each host's figures (mean lock acquisitions per second over its ok "
		       "runs) and the verdicts of each run's comparisons on acquisitions per "
		       "second, which pair variants of one host only. A host's identity is in "
		       "each section's host table.");
	fputs("<table class=\"hosts\"><tr><th>host</th>", out);
	for (unsigned c = 0; c < columns.n; c++) {
		html_printf(out, "<th>%s</th>", columns.name[c]);
	}
	fputs("</tr>\n", out);
	for (unsigned h = 0; h < hosts.n; h++) {
		html_printf(out, "<tr><th>%s</th>", hosts.name[h]);
		for (unsigned c = 0; c < columns.n; c++)
			cell(out, in, n, columns.name[c], hosts.name[h]);
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
	html_section_close(out);
}
