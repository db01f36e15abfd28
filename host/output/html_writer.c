// SPDX-License-Identifier: GPL-2.0
#include "output/html_writer.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure/hist_stats.h"
#include "plerig/histogram.h"
#include "output/html_hosts.h"
#include "output/html_page.h"
#include "output/html_text.h"
#include "output/svg_chart.h"
#include "output/units.h"
#include "util/atomic_file.h"
#include "util/cpulist.h"
#include "util/errbuf.h"
#include "util/printable.h"

#define MAX_VARIANTS 4096

static unsigned array_len(json_object *a)
{
	return json_object_is_type(a, json_type_array) ? (unsigned)json_object_array_length(a) : 0;
}

static json_object *at(json_object *a, unsigned i)
{
	return i < array_len(a) ? json_object_array_get_idx(a, i) : NULL;
}

static bool run_ok(json_object *run)
{
	json_object *ok = jget(run, "ok");
	return ok && json_object_get_boolean(ok) && jget(run, "summary");
}

/*
 * The section being drawn ran on several hosts (--connect LIST): labels and
 * chart lines then start with the host, since the same variant is there
 * once per host. Set by html_results_section for the section it draws.
 */
static bool several_hosts;

/* "hostA: " where the section has several hosts, else "". */
static const char *host_prefix(json_object *v, char *buf, size_t len)
{
	buf[0] = '\0';
	if (several_hosts)
		snprintf(buf, len, "%s: ", jstr(v, "host") ? jstr(v, "host") : "?");
	return buf;
}

/* "kvm ticket/pause user ple=on 1x4 on 0-1": what tells variants apart. */
static void variant_label(json_object *v, char *buf, size_t len)
{
	char host[80];
	const char *s[5] = {jstr(v, "backend"), jstr(v, "lock"), jstr(v, "relax"), jstr(v, "ring"),
			    jstr(v, "ple")};
	char poll[48] = "";
	/* absent or null: the host's kvm.halt_poll_ns */
	if (!isnan(jnum(v, "halt_poll_ns")))
		snprintf(poll, sizeof(poll), " halt-poll=%.0fns", jnum(v, "halt_poll_ns"));
	snprintf(buf, len, "%s%s %s/%s %s ple=%s%s %.0fx%.0f on %s",
		 host_prefix(v, host, sizeof(host)), s[0] ? s[0] : "?", s[1] ? s[1] : "?",
		 s[2] ? s[2] : "?", s[3] ? s[3] : "?", s[4] ? s[4] : "on", poll, jnum(v, "vms"),
		 jnum(v, "vcpus"), jstr(v, "pcpus") ? jstr(v, "pcpus") : "?");
}

/* vCPUs per host CPU of a variant; NaN when the CPU list is unreadable. */
static double overcommit(json_object *v)
{
	static unsigned cpus[4096];
	unsigned nr = 0;
	char err[ERRBUF_SIZE];
	const char *p = jstr(v, "pcpus");

	if (!p || cpulist_parse(p, cpus, 4096, &nr, err, sizeof(err)) || !nr)
		return NAN;
	return jnum(v, "vms") * jnum(v, "vcpus") / nr;
}

/* Mean, stddev and n of @metric: the variant's stats, else its one ok run. */
static void metric_of(json_object *v, const char *metric, double *mean, double *sd, unsigned *n)
{
	json_object *st = jget(jget(v, "stats"), metric);
	*mean = NAN;
	*sd = 0;
	*n = 0;
	if (st && jindex(st, "n") != UINT_MAX && jindex(st, "n") > 0) {
		*mean = jnum(st, "mean");
		*sd = isfinite(jnum(st, "stddev")) ? jnum(st, "stddev") : 0;
		*n = jindex(st, "n");
		return;
	}
	json_object *runs = jget(v, "runs");
	for (unsigned r = 0; r < array_len(runs); r++)
		if (run_ok(at(runs, r)) && isfinite(jnum(jget(at(runs, r), "summary"), metric))) {
			*mean = jnum(jget(at(runs, r), "summary"), metric);
			*n = 1;
			return;
		}
}

/* What the comparisons say of variant @i on @metric: "reference" or "worse p=0.003". */
static const char *mark_of(json_object *cmps, unsigned i, const char *metric, char *buf, size_t len,
			   bool *is_baseline)
{
	*is_baseline = false;
	for (unsigned k = 0; k < array_len(cmps); k++) {
		json_object *c = at(cmps, k);
		const char *m = jstr(c, "metric");
		if (!m || strcmp(m, metric))
			continue;
		if (jreference(c) == i)
			*is_baseline = true;
		if (jindex(c, "candidate") != i)
			continue;
		/* the file's verdict as run judged it (too noisy is not "no change"), and the
		 * p it was weighed by */
		double p = jnum(c, "p_holm");
		const char *verdict = jstr(c, "verdict") ? jstr(c, "verdict") : "no verdict";
		if (isnan(p))
			snprintf(buf, len, "%s", verdict);
		else
			snprintf(buf, len, "%s (p=%.2g)", verdict, p);
		return buf;
	}
	return *is_baseline ? "reference" : NULL;
}

static char labels[MAX_VARIANTS][200];
static char marks[MAX_VARIANTS][64];

static void variant_bars(FILE *out, json_object *doc, unsigned index, const char *metric,
			 const char *title, const char *x_label, const char *unit, bool log)
{
	json_object *vs = jget(doc, "variants"), *cmps = jget(doc, "comparisons");
	unsigned n = array_len(vs) < MAX_VARIANTS ? array_len(vs) : MAX_VARIANTS;
	struct bar *bars = calloc(n ? n : 1, sizeof(*bars));
	char id[64];

	if (!bars)
		return;
	for (unsigned i = 0; i < n; i++) {
		double mean, sd;
		unsigned k;
		bool base;
		json_object *v = at(vs, i);

		variant_label(v, labels[i], sizeof(labels[i]));
		metric_of(v, metric, &mean, &sd, &k);
		bars[i] = (struct bar){.label = labels[i],
				       .value = mean,
				       .err_sd = k >= 2 ? sd : 0,
				       .err_ci = ci95_half(sd, k)};
		bars[i].mark = mark_of(cmps, i, metric, marks[i], sizeof(marks[i]), &base);
		bars[i].highlight = base;
	}
	snprintf(id, sizeof(id), "r%u-%s", index, metric);
	svg_bar_chart(out, &(struct bar_chart){.id = id,
					       .title = title,
					       .x_label = x_label,
					       .unit = unit,
					       .log = log,
					       .nr_bars = n,
					       .bars = bars});
	free(bars);
}

/* ---- against over-commit ---------------------------------------------- */

/* Variants that differ only in vms/vcpus/pcpus are one line. */
static void group_key(json_object *v, char *buf, size_t len)
{
	char host[80];
	snprintf(buf, len, "%s%s %s/%s %s ple=%s", host_prefix(v, host, sizeof(host)),
		 jstr(v, "backend") ? jstr(v, "backend") : "?",
		 jstr(v, "lock") ? jstr(v, "lock") : "?", jstr(v, "relax") ? jstr(v, "relax") : "?",
		 jstr(v, "ring") ? jstr(v, "ring") : "?", jstr(v, "ple") ? jstr(v, "ple") : "on");
}

static void overcommit_charts(FILE *out, json_object *doc, unsigned index)
{
	json_object *vs = jget(doc, "variants");
	unsigned n = array_len(vs) < MAX_VARIANTS ? array_len(vs) : MAX_VARIANTS;
	unsigned *group = calloc(n + 1, sizeof(unsigned)), nr_groups = 0;
	double *x = calloc(n + 1, sizeof(double));
	double *buf = calloc(4 * (n + 1), sizeof(double));
	struct xy_series *series = calloc(n + 1, sizeof(*series));
	static char names[MAX_VARIANTS][160];
	bool several_x = false;

	if (!group || !x || !buf || !series)
		goto out;
	for (unsigned i = 0; i < n; i++) {
		char key[160];
		group_key(at(vs, i), key, sizeof(key));
		x[i] = overcommit(at(vs, i));
		several_x |= isfinite(x[i]) && isfinite(x[0]) && x[i] != x[0];
		unsigned g = 0;
		while (g < nr_groups && strcmp(names[g], key))
			g++;
		if (g == nr_groups)
			snprintf(names[nr_groups++], sizeof(names[0]), "%s", key);
		group[i] = g;
	}
	if (!several_x)
		goto out;
	static const struct figure_axis charts[] = {
	    {"acq_per_s", "Throughput against over-commit", "acquisitions per second (log)", "",
	     true},
	    {"stalled_share", "Stalled share against over-commit", "stalled share of vCPU time (%)",
	     "%", false},
	    {"run_delay_share", "Run-queue delay against over-commit",
	     "run-queue delay (% of vCPU time)", "%", false},
	};
	fputs("<div class=\"charts\">\n", out);
	for (unsigned c = 0; c < sizeof(charts) / sizeof(charts[0]); c++) {
		/* per group, its variants in file order (vcpus ascending, as the matrix runs) */
		double *xs = buf, *ys = buf + n, *es = buf + 2 * n;
		unsigned used = 0;
		for (unsigned g = 0; g < nr_groups; g++) {
			series[g] = (struct xy_series){
			    .name = names[g], .x = xs + used, .y = ys + used, .err = es + used};
			for (unsigned i = 0; i < n; i++) {
				double mean, sd;
				unsigned k;
				if (group[i] != g)
					continue;
				metric_of(at(vs, i), charts[c].metric, &mean, &sd, &k);
				xs[used] = x[i];
				ys[used] = mean;
				es[used] = k >= 2 ? sd : 0;
				used++;
				series[g].n++;
			}
		}
		char id[64];
		snprintf(id, sizeof(id), "r%u-overcommit-%s", index, charts[c].metric);
		svg_figure_chart(out, id, charts[c].title, "over-commit (vCPUs per host CPU)",
				 false, &charts[c], series, nr_groups);
	}
	fputs("</div>\n", out);
	html_note(out, "Error bars: \u00b1 1 stddev over the runs. A fair lock collapses when "
		       "vCPUs outnumber CPUs: each hand-off waits for the next waiter's vCPU "
		       "to be scheduled (lock-waiter preemption).");
out:
	free(group);
	free(x);
	free(buf);
	free(series);
}

/* ---- wait-time distributions ------------------------------------------ */

/* Every ok run's every vCPU's wait histogram of a variant, merged; the TSC rate of its runs. */
static double merge_waits(json_object *v, uint64_t *hist, double *max_ns)
{
	json_object *runs = jget(v, "runs");
	double khz = NAN;

	*max_ns = NAN;
	for (unsigned r = 0; r < array_len(runs); r++) {
		json_object *run = at(runs, r), *vms = jget(run, "vm_results");
		if (!run_ok(run))
			continue;
		if (!isfinite(khz))
			khz = jnum(run, "tsc_khz");
		double m = jnum(jget(run, "summary"), "wait_max_ns");
		if (isfinite(m) && !(m <= *max_ns))
			*max_ns = m;
		for (unsigned vm = 0; vm < array_len(vms); vm++) {
			json_object *vcpus = jget(at(vms, vm), "vcpus");
			for (unsigned c = 0; c < array_len(vcpus); c++) {
				json_object *b =
				    jget(jget(at(vcpus, c), "wait_histogram"), "buckets");
				for (unsigned k = 0; k < array_len(b); k++) {
					json_object *pair = at(b, k);
					double low = json_object_get_double(at(pair, 0));
					double cnt = json_object_get_double(at(pair, 1));
					/* untrusted: a cast of NaN or beyond 2^64 is undefined */
					if (!(low >= 0 && low < 0x1p64 && cnt >= 0 && cnt < 0x1p64))
						continue;
					hist[plerig_hist_bucket((uint64_t)low)] += (uint64_t)cnt;
				}
			}
		}
	}
	return khz;
}

static void wait_chart(FILE *out, json_object *v, unsigned index, unsigned i)
{
	static uint64_t hist[PLERIG_HIST_BUCKETS];
	static double xs[PLERIG_HIST_BUCKETS], xh[PLERIG_HIST_BUCKETS], ys[PLERIG_HIST_BUCKETS],
	    cdf[PLERIG_HIST_BUCKETS];
	char label[200], title[260], id[64];
	double max_ns;

	memset(hist, 0, sizeof(hist));
	variant_label(v, label, sizeof(label));
	snprintf(title, sizeof(title), "Wait before the lock: %s", label);
	snprintf(id, sizeof(id), "r%u-wait-%u", index, i);
	double khz = merge_waits(v, hist, &max_ns);
	uint64_t total = hist_total(hist, PLERIG_HIST_BUCKETS);
	double to_ns = isfinite(khz) && khz > 0 ? 1e6 / khz : 1.0;
	unsigned n = 0;
	uint64_t seen = 0;

	for (unsigned b = 0; b < PLERIG_HIST_BUCKETS && total; b++) {
		if (!hist[b])
			continue;
		seen += hist[b];
		xs[n] = fmax(plerig_hist_bucket_low(b), 1) * to_ns;
		xh[n] = (plerig_hist_bucket_low(b) + plerig_hist_bucket_width(b)) * to_ns;
		ys[n] = (double)hist[b] / total;
		cdf[n] = (double)seen / total;
		n++;
	}
	char p50[48], p99[48], pmax[48], b1[32], b2[32], b3[32];
	struct vline vl[3];
	unsigned nv = 0;
	if (total) {
		double q50 = hist_quantile(hist, PLERIG_HIST_BUCKETS, 0.5) * to_ns;
		double q99 = hist_quantile(hist, PLERIG_HIST_BUCKETS, 0.99) * to_ns;
		if (isfinite(max_ns)) { /* spread inside a bucket, never past the largest wait */
			q50 = fmin(q50, max_ns);
			q99 = fmin(q99, max_ns);
		}
		snprintf(p50, sizeof(p50), "p50 %s", chart_value(q50, "ns", 2, b1, sizeof(b1)));
		snprintf(p99, sizeof(p99), "p99 %s", chart_value(q99, "ns", 2, b2, sizeof(b2)));
		vl[nv++] = (struct vline){q50, p50};
		vl[nv++] = (struct vline){q99, p99};
		if (isfinite(max_ns)) {
			snprintf(pmax, sizeof(pmax), "max %s",
				 chart_value(max_ns, "ns", 2, b3, sizeof(b3)));
			vl[nv++] = (struct vline){max_ns, pmax};
		}
	}
	struct xy_series s[2] = {
	    {.name = "share of acquisitions per bucket", .n = n, .x = xs, .y = ys, .x_hi = xh},
	    {.name = "cumulative share (CDF)", .n = n, .x = xh, .y = cdf, .y2 = true},
	};
	svg_xy_chart(out,
		     &(struct xy_chart){.id = id,
					.title = title,
					.x_label = "wait from first try to holding the lock (log)",
					.y_label = "share of acquisitions (%)",
					.y2_label = "cumulative share (%)",
					.x_unit = "ns",
					.y_unit = "%",
					.x_log = true,
					.y_zero = true,
					.nr_series = 2,
					.series = s,
					.nr_vlines = nv,
					.vlines = vl});
	if (!total)
		html_note(out, "No acquisition was measured: the histogram is empty.");
}

/* ---- per vCPU --------------------------------------------------------- */

static void per_vcpu_charts(FILE *out, json_object *v, unsigned index, unsigned i)
{
	json_object *runs = jget(v, "runs");
	enum { MAXV = 512 };
	static double acq[MAXV], delay[MAXV], stalled[MAXV];
	static unsigned nr_runs[MAXV];
	static char names[MAXV][48];
	static struct bar bars[2 * MAXV];
	unsigned n = 0;

	memset(acq, 0, sizeof(acq));
	memset(delay, 0, sizeof(delay));
	memset(stalled, 0, sizeof(stalled));
	memset(nr_runs, 0, sizeof(nr_runs));
	for (unsigned r = 0; r < array_len(runs); r++) {
		json_object *run = at(runs, r), *vms = jget(run, "vm_results");
		double interval = jnum(run, "interval_s");
		unsigned k = 0;
		if (!run_ok(run) || !(interval > 0))
			continue;
		for (unsigned vm = 0; vm < array_len(vms); vm++) {
			json_object *vcpus = jget(at(vms, vm), "vcpus");
			for (unsigned c = 0; c < array_len(vcpus) && k < MAXV; c++, k++) {
				json_object *o = at(vcpus, c);
				acq[k] += jnum(o, "acquisitions") / interval;
				delay[k] += jnum(o, "run_delay_ns") / (interval * 1e9);
				stalled[k] += jnum(o, "stalled_ns") / (interval * 1e9);
				nr_runs[k]++;
				if (k >= n) {
					snprintf(names[k], sizeof(names[k]), "vm%u vcpu%.0f", vm,
						 jnum(o, "vcpu"));
					n = k + 1;
				}
			}
		}
	}
	if (!n)
		return;
	double sum = 0, sum2 = 0;
	for (unsigned k = 0; k < n; k++) {
		double d = nr_runs[k] ? nr_runs[k] : 1;
		acq[k] /= d;
		delay[k] /= d;
		stalled[k] /= d;
		sum += acq[k];
		sum2 += acq[k] * acq[k];
		bars[k] = (struct bar){.label = names[k], .value = acq[k]};
	}
	double jain = sum2 > 0 ? sum * sum / (n * sum2) : NAN;
	char label[200], title[320], id[64];
	variant_label(v, label, sizeof(label));
	char jt[24] = "n/a (no acquisition)";
	if (isfinite(jain))
		snprintf(jt, sizeof(jt), "%.3f", jain);
	snprintf(title, sizeof(title), "Per vCPU: %s, Jain's fairness index %s", label, jt);
	snprintf(id, sizeof(id), "r%u-vcpu-acq-%u", index, i);
	svg_bar_chart(out,
		      &(struct bar_chart){.id = id,
					  .title = title,
					  .x_label = "acquisitions per second (mean over runs)",
					  .unit = "",
					  .nr_bars = n,
					  .bars = bars});
	/* run-queue delay next to stalls, two rows per vCPU */
	unsigned m = 0;
	static char rows[2 * MAXV][72];
	for (unsigned k = 0; k < n && m + 2 <= 2 * MAXV; k++) {
		const int cut = (int)printable_cut(names[k], 47);
		snprintf(rows[m], sizeof(rows[m]), "%.*s run-queue delay", cut, names[k]);
		bars[m] = (struct bar){.label = rows[m], .value = delay[k]};
		m++;
		snprintf(rows[m], sizeof(rows[m]), "%.*s stalled", cut, names[k]);
		bars[m] = (struct bar){.label = rows[m], .value = stalled[k], .alt = true};
		m++;
	}
	snprintf(title, sizeof(title), "Per vCPU run-queue delay and stalls: %s", label);
	snprintf(id, sizeof(id), "r%u-vcpu-delay-%u", index, i);
	svg_bar_chart(out, &(struct bar_chart){.id = id,
					       .title = title,
					       .x_label = "share of the measured interval (%)",
					       .unit = "%",
					       .nr_bars = m,
					       .bars = bars});
}

/* ---- runs in time order ----------------------------------------------- */

static void time_order_chart(FILE *out, json_object *doc, unsigned index)
{
	json_object *vs = jget(doc, "variants");
	unsigned n = array_len(vs) < MAX_VARIANTS ? array_len(vs) : MAX_VARIANTS, total = 0;
	for (unsigned i = 0; i < n; i++)
		total += array_len(jget(at(vs, i), "runs"));
	double *buf = calloc(2 * total + 1, sizeof(double));
	struct xy_series *s = calloc(n + 1, sizeof(*s));
	unsigned used = 0;

	if (!buf || !s)
		goto out;
	for (unsigned i = 0; i < n; i++) {
		json_object *runs = jget(at(vs, i), "runs");
		s[i] =
		    (struct xy_series){.name = labels[i], .x = buf + used, .y = buf + total + used};
		variant_label(at(vs, i), labels[i], sizeof(labels[i]));
		for (unsigned r = 0; r < array_len(runs); r++) {
			json_object *run = at(runs, r);
			buf[used] = jnum(run, "repeat") + 1;
			buf[total + used] =
			    run_ok(run) ? jnum(jget(run, "summary"), "acq_per_s") : NAN;
			used++;
			s[i].n++;
		}
	}
	char id[64];
	snprintf(id, sizeof(id), "r%u-runs", index);
	svg_xy_chart(out, &(struct xy_chart){.id = id,
					     .title = "Each run in time order (round by round)",
					     .x_label = "round (time order)",
					     .x_integer = true,
					     .y_label = "acquisitions per second (log)",
					     .x_unit = "",
					     .y_unit = "",
					     .y_log = true,
					     .nr_series = n,
					     .series = s});
	html_note(out, "Drift shows as a slope, two host states as two bands of runs.");
out:
	free(buf);
	free(s);
}

/* A count or a time of a halt_path object as text; "n/a" for its null. */
static const char *halt_cell(json_object *hp, const char *key, bool ns, char *buf, size_t len)
{
	const double v = jnum(hp, key);
	if (isnan(v))
		return "n/a";
	return ns ? units_duration_ns(v, buf, len) : units_count(v, buf, len);
}

/*
 * Lock pvqspin's halt path, one row per pvqspin variant (its first ok
 * run, summed over the vCPUs); nothing where no variant is pvqspin.
 */
static void halt_path_table(FILE *out, json_object *vs, unsigned n)
{
	static const struct {
		const char *head, *key;
		bool ns;
	} cols[] = {
	    {"halts", "halts", false},
	    {"kicks sent", "kicks_sent", false},
	    {"received", "kicks_received", false},
	    {"spurious", "spurious_wakeups", false},
	    {"early", "early_halts", false},
	    {"kick p50", "kick_latency_p50_ns", true},
	    {"kick p99", "kick_latency_p99_ns", true},
	    {"kick max", "kick_latency_max_ns", true},
	};
	bool open = false;
	char label[256], b[UNITS_BUF_SIZE];
	for (unsigned i = 0; i < n; i++) {
		json_object *v = at(vs, i), *runs = jget(v, "runs"), *hp = NULL;
		const char *lock = jstr(v, "lock");
		if (!lock || strcmp(lock, "pvqspin"))
			continue;
		for (unsigned r = 0; !hp && r < array_len(runs); r++)
			hp = jget(jget(at(runs, r), "summary"), "halt_path");
		if (!open) {
			fputs("<h3>Halt path (lock pvqspin)</h3>\n<table "
			      "class=\"host\">\n<tr><th>variant"
			      "</th>",
			      out);
			for (unsigned c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
				html_printf(out, "<th>%s</th>", cols[c].head);
			fputs("</tr>\n", out);
			open = true;
		}
		variant_label(v, label, sizeof(label));
		html_printf(out, "<tr><td>%s</td>", label);
		if (!hp || jstr(hp, "unavailable")) {
			html_printf(out, "<td colspan=\"%zu\">n/a: %s</td></tr>\n",
				    sizeof(cols) / sizeof(cols[0]),
				    hp ? jstr(hp, "unavailable") : "no ok run");
			continue;
		}
		for (unsigned c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
			html_printf(out, "<td>%s</td>",
				    halt_cell(hp, cols[c].key, cols[c].ns, b, sizeof(b)));
		fputs("</tr>\n", out);
	}
	if (open)
		fputs("</table>\n", out);
}

void html_results_section(FILE *out, const struct html_input *in, unsigned index)
{
	json_object *doc = in->doc, *vs = jget(doc, "variants");
	char id[32], title[512];
	unsigned n = array_len(vs) < MAX_VARIANTS ? array_len(vs) : MAX_VARIANTS;

	json_object *hosts = jget(doc, "hosts");
	several_hosts =
	    json_object_is_type(hosts, json_type_array) && json_object_array_length(hosts) > 1;
	snprintf(id, sizeof(id), "results-%u", index);
	snprintf(title, sizeof(title), "Results: %s%s%s", in->name, in->host ? " on " : "",
		 in->host ? in->host : "");
	html_section_open(out, id, title);
	html_host_table(out, doc, in->name);
	if (jget(doc, "interrupted") && json_object_get_boolean(jget(doc, "interrupted")))
		html_note(out, "The run was interrupted: the charts show the runs completed.");
	fputs("<h3>Per variant</h3>\n", out);
	variant_bars(out, doc, index, "acq_per_s", "Throughput per variant",
		     "lock acquisitions per second, all vCPUs (log)", "", true);
	variant_bars(out, doc, index, "stalled_share", "Stalled share per variant",
		     "stalled time / vCPU time (%); includes the waiter's own time off the CPU",
		     "%", false);
	variant_bars(out, doc, index, "run_delay_share", "Run-queue delay per variant",
		     "vCPU threads' time runnable but not running / vCPU time (%)", "%", false);
	html_note(out, "Bars: mean over the ok runs; whiskers: \u00b1 1 stddev (thick) and the "
		       "95 % confidence interval of the mean (thin, t distribution). Marks right "
		       "of the bars: the comparison with the hatched reference and its p-value.");
	overcommit_charts(out, doc, index);
	if (jnum(doc, "repeat") >= 2)
		time_order_chart(out, doc, index);
	halt_path_table(out, vs, n);
	fputs("<h3>Wait-time distributions</h3>\n<div class=\"charts\">\n", out);
	for (unsigned i = 0; i < n; i++)
		wait_chart(out, at(vs, i), index, i);
	fputs("</div>\n<h3>Per vCPU</h3>\n<div class=\"charts\">\n", out);
	for (unsigned i = 0; i < n; i++)
		per_vcpu_charts(out, at(vs, i), index, i);
	fputs("</div>\n", out);
	html_section_close(out);
}

void html_document_print(FILE *out, const struct html_input *in, unsigned n)
{
	html_page_open(out, "plerig report");
	fputs("<p class=\"note\">Made by plerig from ", out);
	for (unsigned i = 0; i < n; i++)
		html_printf(out, "%s%s", i ? ", " : "", in[i].name);
	fputs(".</p>\n", out);
	html_hosts_section(out, in, n);
	for (unsigned i = 0; i < n; i++) {
		const char *schema = jstr(in[i].doc, "schema");
		if (schema && !strcmp(schema, "plerig-sweep"))
			html_sweep_section(out, &in[i], i);
		else if (schema && !strcmp(schema, "plerig-tune"))
			html_tune_section(out, &in[i], i);
		else
			html_results_section(out, &in[i], i);
	}
	html_page_close(out);
}

int html_document_write(const char *path, const struct html_input *in, unsigned n, char *err,
			size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		return errbuf_printf(err, errlen, "cannot write '%s': out of memory", path);
	html_document_print(out, in, n);
	if (fclose(out) || !text) {
		free(text);
		return errbuf_printf(err, errlen, "cannot write '%s': out of memory", path);
	}
	int rc = atomic_file_write_as(path, "HTML report", "report.html", text, len, err, errlen);
	free(text);
	return rc;
}
