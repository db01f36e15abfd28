// SPDX-License-Identifier: GPL-2.0
#include "output/html_page.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "output/html_text.h"

/* plerig's own style sheet, a literal: part of the markup */
#define CSS                                                                                        \
	"body{font-family:sans-serif;margin:24px;color:#111;max-width:1600px}"                     \
	"h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #888;margin-top:32px}"        \
	"h3{font-size:15px}table.host td{padding:1px 10px 1px 0;vertical-align:top}"               \
	"table.host td:first-child{font-weight:bold;white-space:nowrap}"                           \
	"table.hosts td,table.hosts th{padding:1px 8px;text-align:left;vertical-align:top}"        \
	"code{font-size:12px}figure.chart{margin:12px 0}"                                          \
	"svg text{font-family:sans-serif;font-size:11px;fill:#111}"                                \
	"svg text.title{font-size:13px;font-weight:bold}"                                          \
	"svg text.axis-title{font-size:12px}svg text.marked{font-weight:bold}"                     \
	"svg .grid{stroke:#ddd;stroke-width:1}svg .axis{stroke:#333;stroke-width:1}"               \
	"svg .bar{fill:#7a7a7a;stroke:#222;stroke-width:0.5}"                                      \
	"svg .bar.alt{fill:#cfcfcf}svg "                                                           \
	".bar.reference{fill:url(#hatch);stroke:#000;stroke-width:1.5}"                            \
	"svg .sd{stroke:#000;stroke-width:4}svg .ci{stroke:#000;stroke-width:1;fill:none}"         \
	"svg .vline{stroke:#000;stroke-dasharray:3 2}svg text.vlabel{font-weight:bold}"            \
	"svg .span{fill:#888;fill-opacity:0.18}svg text.slabel{font-size:10px;fill:#444}"          \
	"svg .hline{stroke:#555;stroke-width:1.5;stroke-dasharray:8 3 2 3}"                        \
	"p.note{font-size:13px;color:#333}"                                                        \
	"div.charts{display:flex;flex-wrap:wrap;column-gap:16px}"

void html_page_open(FILE *out, const char *title)
{
	html_printf(out,
		    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>%s"
		    "</title>\n<style>" CSS "</style></head>\n<body>\n",
		    title);
	/* the reference's hatching, shared by every chart of the page */
	fputs("<svg width=\"0\" height=\"0\" style=\"position:absolute\"><defs>"
	      "<pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
	      "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#fff\"/>"
	      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#000\" stroke-width=\"3\"/>"
	      "</pattern></defs></svg>\n",
	      out);
	html_printf(out, "<h1>%s</h1>\n", title);
}

void html_page_close(FILE *out)
{
	fputs("</body></html>\n", out);
}

void html_section_open(FILE *out, const char *id, const char *title)
{
	html_printf(out, "<section id=\"%s\"><h2>%s</h2>\n", id, title);
}

void html_section_close(FILE *out)
{
	fputs("</section>\n", out);
}

void html_note(FILE *out, const char *text)
{
	html_printf(out, "<p class=\"note\">%s</p>\n", text);
}

json_object *jget(json_object *o, const char *key)
{
	json_object *v = NULL;

	return o && json_object_is_type(o, json_type_object) &&
		       json_object_object_get_ex(o, key, &v)
		   ? v
		   : NULL;
}

double jnum(json_object *o, const char *key)
{
	json_object *v = jget(o, key);

	if (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double))
		return json_object_get_double(v);
	return NAN;
}

unsigned jindex(json_object *o, const char *key)
{
	const double d = jnum(o, key);

	if (!(d >= 0 && d < (double)UINT_MAX) || d != floor(d))
		return UINT_MAX;
	return (unsigned)d;
}

unsigned jreference(json_object *comparison)
{
	return jget(comparison, "reference") ? jindex(comparison, "reference")
					     : jindex(comparison, "baseline");
}

const char *jstr(json_object *o, const char *key)
{
	json_object *v = jget(o, key);

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

void html_row(FILE *out, const char *name, const char *value)
{
	html_printf(out, "<tr><td>%s</td><td><code>%s</code></td></tr>\n", name,
		    value && *value ? value : "not recorded in this file");
}

void html_ple_params(json_object *host, char *params, size_t len)
{
	json_object *ple = jget(host, "ple_params");
	size_t used = 0;

	params[0] = '\0';
	if (json_object_is_type(ple, json_type_object)) {
		json_object_object_foreach(ple, key, val)
		{
			int n = snprintf(params + used, len - used, "%s%s=%s", used ? " " : "", key,
					 val ? json_object_get_string(val) : "n/a");
			if (n < 0 || (size_t)n >= len - used)
				break;
			used += (size_t)n;
		}
	}
}

static void cell(FILE *out, const char *text)
{
	html_printf(out, "<td>%s</td>", text && *text ? text : "-");
}

const char *html_module_text(json_object *h, char *buf, size_t len)
{
	const char *module = jstr(h, "kvm_module"), *source = jstr(h, "kvm_module_source");
	if (!module || !source)
		return module;
	snprintf(buf, len, "%s (%s)", module, source);
	return buf;
}

/* --connect LIST: every host in a row, so that each variant's host can be looked up. */
static void hosts_table(FILE *out, json_object *hosts)
{
	static const char *const head[] = {"host",   "name", "reached by", "CPU",	 "CPUs",
					   "kernel", "KVM",  "PLE",	   "hypervisor", "error"};
	fputs("<table class=\"hosts\"><tr>", out);
	for (unsigned i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		html_printf(out, "<th>%s</th>", head[i]);
	fputs("</tr>\n", out);
	for (size_t i = 0; i < json_object_array_length(hosts); i++) {
		json_object *h = json_object_array_get_idx(hosts, i);
		char params[512], cpus[32], module[256];
		html_ple_params(h, params, sizeof(params));
		snprintf(cpus, sizeof(cpus), "%.0f", jnum(h, "cpus"));
		fputs("<tr>", out);
		cell(out, jstr(h, "label"));
		cell(out, jstr(h, "name"));
		cell(out, jstr(h, "connection"));
		cell(out, jstr(h, "cpu_model"));
		cell(out, jnum(h, "cpus") > 0 ? cpus : NULL);
		cell(out, jstr(h, "kernel"));
		cell(out, html_module_text(h, module, sizeof(module)));
		cell(out, params[0] ? params : "not readable");
		cell(out, jstr(h, "hypervisor"));
		cell(out, jstr(h, "error"));
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
}

void html_host_table(FILE *out, json_object *root, const char *file)
{
	json_object *host = jget(root, "host"), *hosts = jget(root, "hosts");
	char params[512], module[256];

	if (json_object_is_type(hosts, json_type_array) && json_object_array_length(hosts) > 1) {
		fputs("<table class=\"host\">\n", out);
		html_row(out, "results file", file);
		html_row(out, "plerig version", jstr(root, "plerig_version"));
		html_row(out, "command line", jstr(root, "command_line"));
		fputs("</table>\n", out);
		hosts_table(out, hosts);
		return;
	}
	html_ple_params(host, params, sizeof(params));
	fputs("<table class=\"host\">\n", out);
	html_row(out, "results file", file);
	html_row(out, "kernel", jstr(host, "kernel"));
	html_row(out, "KVM module", html_module_text(host, module, sizeof(module)));
	html_row(out, "CPU", jstr(host, "cpu_model"));
	html_row(out, "PLE parameters", params[0] ? params : "not readable (no hardware PLE?)");
	html_row(out, "plerig version", jstr(root, "plerig_version"));
	html_row(out, "command line", jstr(root, "command_line"));
	fputs("</table>\n", out);
}
