// SPDX-License-Identifier: GPL-2.0
#include "output/sweep_writer.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "output/csv_cell.h"
#include "output/json_util.h"
#include "util/atomic_file.h"
#include "util/errbuf.h"
#include "util/printable.h"

#ifndef PLERIG_VERSION
#define PLERIG_VERSION "unknown"
#endif

static void fmt_num(char *buf, size_t len, double v, const char *fmt)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, fmt, v);
}

/* With rounds: per combination and variant, mean +- the 95% CI half width over the rounds. */
static void print_summary(FILE *out, const struct sweep_curve *c)
{
	unsigned n;
	struct sweep_summary *sum = sweep_curve_summarize(c, &n);
	if (!sum) {
		fprintf(out, "(out of memory for the sweep summary)\n");
		return;
	}
	for (unsigned i = 0; i < c->nr_params; i++)
		printable_printf(out, "%-12s ", c->names[i]);
	printable_printf(out, "%-36s %6s %20s %20s %8s\n", "variant", "rounds", "acq/s (95% CI)",
			 "pause-exits (95% CI)", "stalled");
	for (unsigned k = 0; k < n; k++) {
		const struct sweep_summary *p = &sum[k];
		char acq[48], exits[48], share[32], ok[16];
		for (unsigned i = 0; i < c->nr_params; i++)
			printable_printf(out, "%-12s ", p->values[i]);
		snprintf(ok, sizeof(ok), "%u/%u", p->ok, p->visits);
		if (!p->ok) {
			printable_printf(out, "%-36s %6s FAILED: %s\n", p->variant, ok, p->error);
			continue;
		}
		const struct sweep_stat *st[2] = {&p->acq_per_s, &p->pause_exits};
		char *buf[2] = {acq, exits};
		for (int m = 0; m < 2; m++) {
			if (!st[m]->n)
				snprintf(buf[m], 48, "-");
			else if (st[m]->n < 2)
				snprintf(buf[m], 48, "%.0f", st[m]->mean);
			else
				snprintf(buf[m], 48, "%.0f +- %.0f", st[m]->mean,
					 st[m]->ci95_high - st[m]->mean);
		}
		fmt_num(share, sizeof(share),
			p->stalled_share.n ? p->stalled_share.mean * 100 : NAN, "%.1f%%");
		printable_printf(out, "%-36s %6s %20s %20s %8s\n", p->variant, ok, acq, exits,
				 share);
	}
	free(sum);
}

void sweep_curve_print(FILE *out, const struct sweep_curve *c)
{
	if (c->rounds > 1) {
		print_summary(out, c);
		return;
	}
	for (unsigned i = 0; i < c->nr_params; i++)
		printable_printf(out, "%-12s ", c->names[i]);
	printable_printf(out, "%-36s %12s %10s %8s %12s\n", "variant", "acq/s", "stalls", "stalled",
			 "pause-exits");
	for (unsigned k = 0; k < c->n; k++) {
		const struct sweep_point *p = &c->points[k];
		char acq[32], stalls[32], share[32], exits[32];
		for (unsigned i = 0; i < c->nr_params; i++)
			printable_printf(out, "%-12s ", p->values[i]);
		if (!p->ok) {
			printable_printf(out, "%-36s FAILED: %s\n", p->variant, p->error);
			continue;
		}
		fmt_num(acq, sizeof(acq), p->acq_per_s, "%.0f");
		fmt_num(stalls, sizeof(stalls), p->stalls, "%.0f");
		fmt_num(share, sizeof(share), p->stalled_share * 100, "%.1f%%");
		fmt_num(exits, sizeof(exits), p->pause_exits, "%.0f");
		printable_printf(out, "%-36s %12s %10s %8s %12s\n", p->variant, acq, stalls, share,
				 exits);
	}
	/* a "-" is never a silent zero: say why once per reason */
	const char *said = NULL;
	for (unsigned k = 0; k < c->n; k++) {
		const char *why = c->points[k].pause_exits_why;
		if (c->points[k].ok && isnan(c->points[k].pause_exits) && why[0] &&
		    (!said || strcmp(said, why))) {
			printable_printf(out, "pause-exits unavailable: %s\n", why);
			said = why;
		}
	}
}

static json_object *num(double v)
{
	return isnan(v) ? NULL : json_object_new_double(v);
}

/* {"values": {NAME: VALUE, ...}, "variant": ...}: what a point is */
static json_object *point_json(const struct sweep_curve *c, const char (*values)[PLE_VALUE_LEN],
			       const char *variant)
{
	json_object *o = json_object_new_object(), *vals = json_object_new_object();
	for (unsigned i = 0; i < c->nr_params; i++)
		json_object_object_add(vals, c->names[i],
				       json_object_new_int64(strtoll(values[i], NULL, 10)));
	json_object_object_add(o, "values", vals);
	json_object_object_add(o, "variant", json_object_new_string(variant));
	return o;
}

static json_object *stat_json(const struct sweep_stat *st)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "n", json_object_new_int((int)st->n));
	json_object_object_add(o, "mean", num(st->n ? st->mean : NAN));
	json_object_object_add(o, "stddev", num(st->n ? st->stddev : NAN));
	json_object_object_add(o, "ci95_low", num(st->ci95_low));
	json_object_object_add(o, "ci95_high", num(st->ci95_high));
	return o;
}

/*
 * With rounds, "points" holds every visit (each with its "round", in time
 * order) and "summary" each combination and variant over the rounds.
 */
static int add_rounds(json_object *root, const struct sweep_curve *c)
{
	unsigned n;
	struct sweep_summary *sum = sweep_curve_summarize(c, &n);
	if (!sum)
		return -1;
	json_object_object_add(root, "rounds", json_object_new_int((int)c->rounds));
	json_object_object_add(root, "seed", json_object_new_uint64(c->seed));
	json_object *points = json_object_object_get(root, "points");
	for (unsigned k = 0; k < c->n; k++)
		json_object_object_add(json_object_array_get_idx(points, k), "round",
				       json_object_new_int((int)c->points[k].round));
	json_object *arr = json_object_new_array();
	for (unsigned k = 0; k < n; k++) {
		const struct sweep_summary *p = &sum[k];
		json_object *o = point_json(c, p->values, p->variant);
		json_object_object_add(o, "visits", json_object_new_int((int)p->visits));
		json_object_object_add(o, "ok", json_object_new_int((int)p->ok));
		if (p->error[0])
			json_object_object_add(o, "error", json_object_new_string(p->error));
		json_object_object_add(o, "acq_per_s", stat_json(&p->acq_per_s));
		json_object_object_add(o, "stalls", stat_json(&p->stalls));
		json_object_object_add(o, "stalled_share", stat_json(&p->stalled_share));
		json_object_object_add(o, "pause_loop_exits", stat_json(&p->pause_exits));
		json_object_object_add(
		    o, "pause_loop_exits_unavailable",
		    p->pause_exits_why[0] ? json_object_new_string(p->pause_exits_why) : NULL);
		json_object_array_add(arr, o);
	}
	json_object_object_add(root, "summary", arr);
	free(sum);
	return 0;
}

json_object *sweep_curve_json(const struct sweep_curve *c)
{
	json_object *root = json_object_new_object(), *params = json_object_new_array(),
		    *points = json_object_new_array();
	json_object_object_add(root, "schema", json_object_new_string("plerig-sweep"));
	json_object_object_add(root, "schema_version", json_object_new_int(1));
	json_object_object_add(root, "plerig_version", json_object_new_string(PLERIG_VERSION));
	for (unsigned i = 0; i < c->nr_params; i++)
		json_object_array_add(params, json_object_new_string(c->names[i]));
	json_object_object_add(root, "params", params);
	for (unsigned k = 0; k < c->n; k++) {
		const struct sweep_point *p = &c->points[k];
		json_object *o = point_json(c, p->values, p->variant);
		json_object_object_add(o, "ok", json_object_new_boolean(p->ok));
		if (!p->ok)
			json_object_object_add(o, "error", json_object_new_string(p->error));
		json_object_object_add(o, "runs", json_object_new_int((int)p->runs));
		json_object_object_add(o, "acq_per_s", num(p->acq_per_s));
		json_object_object_add(o, "stalls", num(p->stalls));
		json_object_object_add(o, "stalled_share", num(p->stalled_share));
		json_object_object_add(o, "pause_loop_exits", num(p->pause_exits));
		json_object_object_add(o, "acq_per_s_stddev", num(p->sd[0]));
		json_object_object_add(o, "stalls_stddev", num(p->sd[1]));
		json_object_object_add(o, "stalled_share_stddev", num(p->sd[2]));
		json_object_object_add(o, "pause_loop_exits_stddev", num(p->sd[3]));
		json_object_object_add(
		    o, "pause_loop_exits_unavailable",
		    p->pause_exits_why[0] ? json_object_new_string(p->pause_exits_why) : NULL);
		json_object_array_add(points, o);
	}
	json_object_object_add(root, "points", points);
	if (c->rounds > 1 && add_rounds(root, c)) {
		json_object_put(root);
		return NULL;
	}
	return root;
}

int sweep_curve_write_json(const struct sweep_curve *c, const char *path, char *err, size_t errlen)
{
	return json_document_write(sweep_curve_json(c), path, "sweep", err, errlen);
}

/* One field by the CSV rule (output/csv_cell.h), then a comma or the row's end. */
static void csv_field(FILE *f, const char *s, bool last)
{
	csv_cell_write(f, s, false);
	fputc(last ? '\n' : ',', f);
}

int sweep_curve_write_csv(const struct sweep_curve *c, const char *path, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return errbuf_printf(err, errlen, "out of memory for the sweep CSV");
	for (unsigned i = 0; i < c->nr_params; i++)
		csv_field(f, c->names[i], false);
	static const char *const columns[] = {
	    "variant", "ok", "runs", "acq_per_s", "stalls", "stalled_share", "pause_loop_exits",
	};
	for (size_t i = 0; i < sizeof(columns) / sizeof(columns[0]); i++)
		csv_field(f, columns[i], false);
	csv_field(f, "note", true);
	for (unsigned k = 0; k < c->n; k++) {
		const struct sweep_point *q = &c->points[k];
		char buf[40];
		for (unsigned i = 0; i < c->nr_params; i++)
			csv_field(f, q->values[i], false);
		csv_field(f, q->variant, false);
		csv_field(f, q->ok ? "1" : "0", false);
		snprintf(buf, sizeof(buf), "%u", q->runs);
		csv_field(f, buf, false);
		const double v[4] = {q->acq_per_s, q->stalls, q->stalled_share, q->pause_exits};
		for (int i = 0; i < 4; i++) {
			/* empty, not 0, where there is no figure */
			if (isnan(v[i]))
				buf[0] = '\0';
			else
				snprintf(buf, sizeof(buf), "%.17g", v[i]);
			csv_field(f, buf, false);
		}
		csv_field(f, q->ok ? q->pause_exits_why : q->error, true);
	}
	if (ferror(f) | fclose(f)) {
		free(text);
		return errbuf_printf(err, errlen, "out of memory for the sweep CSV");
	}
	int rc = atomic_file_write(path, "CSV", text, len, err, errlen);
	free(text);
	return rc;
}
