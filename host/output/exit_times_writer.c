// SPDX-License-Identifier: GPL-2.0
#include "output/exit_times_writer.h"

#include <math.h>
#include <string.h>

#include "output/json_util.h"
#include "output/units.h"
#include "util/printable.h"

static json_object *figures_json(const struct variant_result *r, const struct exit_time_figures *f)
{
	json_object *o = json_object_new_object();
	json_object *top = json_object_new_array();

	json_add_u64(o, "exits", f->exits);
	json_add_double(o, "ns", f->ns);
	json_add_double(o, "mean_ns", f->mean_ns);
	json_add_double(o, "share", f->share);
	json_add_u64(o, "seen", f->seen);
	json_add_u64(o, "cut", f->cut);
	json_add_u64(o, "unpaired", f->unpaired);
	json_add_u64(o, "lost", f->lost);
	json_add(o, "complete", json_object_new_boolean(f->lost == 0));
	json_add_count(o, "ple_exits", f->ple_valid, f->ple_exits);
	json_add_double(o, "ple_ns", f->ple_valid ? f->ple_ns : NAN);
	json_add_double(o, "ple_mean_ns", f->ple_mean_ns);
	json_add_double(o, "ple_share", f->ple_share);
	if (!f->ple_valid)
		json_add_str(o, "ple_unavailable", exit_time_figures_ple_why(r, f));
	for (unsigned i = 0; i < f->nr_top; i++) {
		json_object *t = json_object_new_object();
		const char *name = exit_reason_name(r, f->top[i].reason);
		json_add_u64(t, "reason", f->top[i].reason);
		if (name)
			json_add_str(t, "name", name);
		json_add_u64(t, "count", f->top[i].count);
		json_add_u64(t, "ns", f->top[i].ns);
		json_object_array_add(top, t);
	}
	json_add(o, "top_reasons", top);
	return o;
}

void exit_times_json_add(json_object *o, const struct variant_result *r,
			 const struct vcpu_record *rec)
{
	struct exit_time_figures f;
	if (rec)
		exit_time_figures_for_vcpu(r, rec, &f);
	else
		exit_time_figures_for_variant(r, &f);
	json_add(o, "exit_times", f.valid ? figures_json(r, &f) : NULL);
	if (!rec && !f.valid)
		json_add_str(o, "exit_times_unavailable", exit_time_figures_why(r, &f));
}

void exit_times_csv_fields(const struct variant_result *r, const struct vcpu_record *rec,
			   char fields[EXIT_TIMES_CSV_COLUMNS][256])
{
	struct exit_time_figures f;
	exit_time_figures_for_vcpu(r, rec, &f);
	for (unsigned c = 0; c < EXIT_TIMES_CSV_COLUMNS; c++)
		fields[c][0] = '\0';
	if (!f.valid)
		return;
	snprintf(fields[0], 256, "%llu", (unsigned long long)f.exits);
	snprintf(fields[1], 256, "%.0f", f.ns);
	if (f.ple_valid) {
		snprintf(fields[2], 256, "%llu", (unsigned long long)f.ple_exits);
		snprintf(fields[3], 256, "%.0f", f.ple_ns);
	}
	snprintf(fields[4], 256, "%llu", (unsigned long long)f.lost);
	/* "reason:count:ns" by time, longest first, separated by spaces */
	size_t used = 0;
	for (unsigned i = 0; i < f.nr_top && used < 256; i++) {
		int n = snprintf(fields[5] + used, 256 - used, "%s%u:%llu:%llu", i ? " " : "",
				 f.top[i].reason, (unsigned long long)f.top[i].count,
				 (unsigned long long)f.top[i].ns);
		if (n < 0 || (size_t)n >= 256 - used)
			break;
		used += (size_t)n;
	}
}

/* Small shares matter here (0.08 % of vCPU time in PLE exits): two significant digits. */
static const char *share_text(double share, char *buf, size_t len)
{
	if (isnan(share))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2g%%", share * 100);
	return buf;
}

static void print_figures(FILE *out, const struct exit_time_figures *f,
			  const struct variant_result *r)
{
	char a[32], b[32], c[32], d[32];
	if (f->ple_valid)
		printable_printf(
		    out, "PLE exits %s timed, %s, %s each, %s of vCPU time; ",
		    units_count((double)f->ple_exits, a, sizeof(a)),
		    units_duration_ns(f->ple_ns, b, sizeof(b)),
		    isnan(f->ple_mean_ns) ? "-" : units_duration_ns(f->ple_mean_ns, c, sizeof(c)),
		    share_text(f->ple_share, d, sizeof(d)));
	else
		printable_printf(out, "PLE exits n/a (%s); ", exit_time_figures_ple_why(r, f));
	printable_printf(out, "all exits %s timed, %s, %s of vCPU time",
			 units_count((double)f->exits, a, sizeof(a)),
			 units_duration_ns(f->ns, b, sizeof(b)),
			 share_text(f->share, c, sizeof(c)));
	for (unsigned i = 0; i < f->nr_top; i++) {
		const char *name = exit_reason_name(r, f->top[i].reason);
		printable_printf(out, "%s%u%s%s: %s", i ? ", " : "; by reason ", f->top[i].reason,
				 name ? " " : "", name ? name : "",
				 units_duration_ns((double)f->top[i].ns, a, sizeof(a)));
	}
	if (f->lost)
		fprintf(out, "; INCOMPLETE: %llu records lost", (unsigned long long)f->lost);
}

void exit_times_print(FILE *out, const struct outcome *rep)
{
	for (unsigned i = 0; i < rep->nr_series; i++) {
		const struct series *s = &rep->series[i];
		if (!s->variant.exit_times || !s->nr_runs)
			continue;
		const struct variant_result *r = &s->runs[0];
		const struct variant *v = &s->variant;
		struct exit_time_figures f;
		exit_time_figures_for_variant(r, &f);
		printable_printf(out,
				 "exit-times (%s %s %s %ux%u/%u%s): ", backend_name(v->backend),
				 lock_name(v->lock), relax_name(v->relax), v->vms, v->vcpus,
				 v->nr_pcpus, s->nr_runs > 1 ? ", first run" : "");
		if (f.valid)
			print_figures(out, &f, r);
		else
			printable_printf(out, "n/a: %s", exit_time_figures_why(r, &f));
		fputc('\n', out);
	}
}
