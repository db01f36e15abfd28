// SPDX-License-Identifier: GPL-2.0
/* The curves of a sweep (schema plerig-sweep) for the HTML report. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/html_page.h"
#include "output/html_writer.h"
#include "output/svg_chart.h"

#define MAX_LINES 256

static unsigned len_of(json_object *a)
{
	return json_object_is_type(a, json_type_array) ? (unsigned)json_object_array_length(a) : 0;
}

/* A point's line: its variant, and the values of the parameters after the first. */
static void line_key(json_object *p, json_object *params, char *buf, size_t len)
{
	size_t used =
	    (size_t)snprintf(buf, len, "%s", jstr(p, "variant") ? jstr(p, "variant") : "?");
	for (unsigned i = 1; i < len_of(params) && used < len; i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(params, i));
		used += (size_t)snprintf(buf + used, len - used, " %s=%.0f", name,
					 jnum(jget(p, "values"), name));
	}
}

void html_sweep_section(FILE *out, const struct html_input *in, unsigned index)
{
	json_object *doc = in->doc, *params = jget(doc, "params"), *points = jget(doc, "points");
	unsigned n = len_of(points), nr_lines = 0;
	const char *axis = len_of(params)
			       ? json_object_get_string(json_object_array_get_idx(params, 0))
			       : "parameter";
	static char names[MAX_LINES][200];
	unsigned *line = calloc(n + 1, sizeof(unsigned));
	double *buf = calloc(3 * (n + 1), sizeof(double));
	struct xy_series *s = calloc(MAX_LINES, sizeof(*s));
	char id[48], title[512], xl[128];

	snprintf(id, sizeof(id), "sweep-%u", index);
	snprintf(title, sizeof(title), "Sweep: %s", in->name);
	html_section_open(out, id, title);
	html_host_table(out, doc, in->name);
	if (!line || !buf || !s)
		goto out;
	for (unsigned k = 0; k < n; k++) {
		char key[200];
		line_key(json_object_array_get_idx(points, k), params, key, sizeof(key));
		unsigned g = 0;
		while (g < nr_lines && strcmp(names[g], key))
			g++;
		if (g == nr_lines && nr_lines < MAX_LINES)
			snprintf(names[nr_lines++], sizeof(names[0]), "%s", key);
		line[k] = g < MAX_LINES ? g : MAX_LINES - 1;
	}
	static const struct figure_axis charts[] = {
	    {"acq_per_s", "Throughput", "acquisitions per second (log)", "", true},
	    {"stalled_share", "Stalled share", "stalled share of vCPU time (%)", "%", false},
	    {"pause_loop_exits", "PAUSE-loop exits", "PAUSE-loop exits (log)", "", true},
	};
	snprintf(xl, sizeof(xl), "%s (log)", axis);
	fputs("<div class=\"charts\">\n", out);
	for (unsigned c = 0; c < sizeof(charts) / sizeof(charts[0]); c++) {
		double *xs = buf, *ys = buf + n, *es = buf + 2 * n;
		char sd_key[64], cid[64], ctitle[160];
		unsigned used = 0;
		snprintf(sd_key, sizeof(sd_key), "%s_stddev", charts[c].metric);
		for (unsigned g = 0; g < nr_lines; g++) {
			s[g] = (struct xy_series){
			    .name = names[g], .x = xs + used, .y = ys + used, .err = es + used};
			for (unsigned k = 0; k < n; k++) {
				json_object *p = json_object_array_get_idx(points, k);
				if (line[k] != g)
					continue;
				xs[used] = jnum(jget(p, "values"), axis);
				ys[used] = jnum(p, charts[c].metric);
				es[used] = jnum(p, sd_key);
				used++;
				s[g].n++;
			}
		}
		snprintf(cid, sizeof(cid), "s%u-%s", index, charts[c].metric);
		snprintf(ctitle, sizeof(ctitle), "%s against %s", charts[c].title, axis);
		svg_figure_chart(out, cid, ctitle, xl, true, &charts[c], s, nr_lines);
	}
	fputs("</div>\n", out);
	html_note(out, "Each point is the mean over the runs of one variant at one parameter "
		       "value; error bars \u00b1 1 stddev where the sweep ran --repeat >= 2. A "
		       "missing point failed or has no value (PAUSE-loop exits need hardware PLE "
		       "and tracing).");
out:
	free(line);
	free(buf);
	free(s);
	html_section_close(out);
}
