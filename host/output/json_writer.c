// SPDX-License-Identifier: GPL-2.0
#include "util/cpulist.h"
#include "output/json_util.h"
#include "output/host_json.h"
#include "output/json_writer.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/backend_limits.h"
#include "model/plan.h"
#include "output/exit_times_writer.h"
#include "output/halt_path_writer.h"
#include "plerig/histogram.h"
#include "util/atomic_file.h"
#include "model/verdict.h"

#ifndef PLERIG_VERSION
#define PLERIG_VERSION "0.1.0"
#endif

/* ---- values ----------------------------------------------------------- */

/* ---- host ------------------------------------------------------------- */

/* The --order vocabulary (cli/run_options.c parses the same words). */
static const char *order_name(enum run_order order)
{
	switch (order) {
	case ORDER_INTERLEAVE:
		return "interleave";
	case ORDER_SHUFFLE:
		return "shuffle";
	case ORDER_SEQUENTIAL:
		return "sequential";
	}
	return "?";
}

/* ---- one run ---------------------------------------------------------- */

static json_object *timing_json(const struct run_timing *t)
{
	json_object *o = json_object_new_object();

	json_add_u64(o, "created_ns", t->created_ns);
	json_add_u64(o, "ready_ns", t->ready_ns);
	json_add_u64(o, "first_acq_ns", t->first_acq_ns);
	json_add_u64(o, "stopped_ns", t->stopped_ns);
	json_add_u64(o, "torn_down_ns", t->torn_down_ns);
	json_add_u64(o, "setup_insn_emulated", t->setup_insn_emulated);
	return o;
}

static json_object *exits_json(const struct figures *f)
{
	return f->exits_valid ? json_object_new_uint64(f->exits) : NULL;
}

/* [low, high): where a percentile lies; null for an empty histogram. */
static json_object *bucket_json(const double b[2])
{
	if (isnan(b[0]))
		return NULL;
	json_object *a = json_object_new_array();
	json_object_array_add(a, json_double(b[0]));
	json_object_array_add(a, json_double(b[1]));
	return a;
}

/* The figures a vCPU and a whole variant share; a null where a figure cannot be had. */
static void add_figures(json_object *o, const struct variant_result *r, const struct figures *f)
{
	json_add_double(o, "wait_p50_ns", f->wait_p50_ns);
	json_add_double(o, "wait_p99_ns", f->wait_p99_ns);
	json_add(o, "wait_p50_bucket_ns", bucket_json(f->wait_p50_bucket_ns));
	json_add(o, "wait_p99_bucket_ns", bucket_json(f->wait_p99_bucket_ns));
	json_add_double(o, "wait_max_ns", f->wait_max_ns);
	json_add_double(o, "wait_mean_ns", f->wait_mean_ns);
	json_add_double(o, "hold_p50_ns", f->hold_p50_ns);
	json_add_double(o, "hold_max_ns", f->hold_max_ns);
	json_add_u64(o, "stalls", f->stalls);
	json_add_double(o, "stalled_ns", f->stalled_ns);
	json_add_u64(o, "holder_preemptions", f->holder_preemptions);
	json_add(o, "stalls_self_preempted",
		 r->steal_time ? json_object_new_uint64(f->stalls_self_preempted) : NULL);
	json_add(o, "holder_preemptions_steal",
		 r->steal_time ? json_object_new_uint64(f->holder_preemptions_steal) : NULL);
	json_add_double(o, "run_delay_ns", f->run_delay_ns);
	json_add_double(o, "run_time_ns", f->run_time_ns);
	json_add_double(o, "acq_per_cpu_s", f->acq_per_cpu_s);
	json_add(o, "exits", exits_json(f));
	json_add_count(o, "irq_exits", f->irq_exits_valid, f->irq_exits);
	json_add_count(o, "pause_loop_exits", f->pause_loop_exits_valid, f->pause_loop_exits);
	json_add_count(o, "ple_window_updates", f->ple_window_updates_valid, f->ple_window_updates);
	/* every null above has its reason beside it (results.h: figures) */
	const struct {
		const char *key, *why;
	} reasons[] = {
	    {"wait_unavailable", f->wait_why},		{"hold_unavailable", f->hold_why},
	    {"stalled_ns_unavailable", f->stalled_why}, {"acq_per_cpu_s_unavailable", f->cpu_why},
	    {"exits_unavailable", f->exits_why},
	};
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (reasons[i].why)
			json_add_str(o, reasons[i].key, reasons[i].why);
}

static json_object *summary_json(const struct variant_result *r)
{
	json_object *o = json_object_new_object();
	struct figures f;

	figures_for_variant(r, &f);
	json_add_u64(o, "acquisitions", f.acquisitions);
	json_add_double(o, "acq_per_s", f.acq_per_s);
	add_figures(o, r, &f);
	json_add_double(o, "stalled_share", f.stalled_share);
	json_add_double(o, "run_delay_share", f.run_delay_share);
	if (f.rate_why)
		json_add_str(o, "rate_unavailable", f.rate_why);
	if (f.share_why)
		json_add_str(o, "run_delay_share_unavailable", f.share_why);
	json_add_double(o, "foreign_cpu_share", f.foreign_cpu_share);
	if (r->foreign_why[0])
		json_add_str(o, "foreign_cpu_unavailable", r->foreign_why);
	json_add(o, "exits_valid", json_object_new_boolean(f.exits_valid));
	/* a count that cannot be had is null with its reason, never a 0 */
	if (!f.pause_loop_exits_valid)
		json_add_str(o, "pause_loop_exits_unavailable",
			     r->ple_why[0] ? r->ple_why : "not counted for every vCPU");
	/* the window changes on PAUSE-loop exits: where those are not had, it says why */
	if (!f.ple_window_updates_valid)
		json_add_str(o, "ple_window_updates_unavailable",
			     r->ple_window_why[0] ? r->ple_window_why
			     : r->ple_why[0]	  ? r->ple_why
						  : "not counted for every vCPU");
	json_add_double(o, "ple_exits_per_s", f.ple_exits_per_s);
	if (f.ple_rate_why)
		json_add_str(o, "ple_exits_per_s_unavailable", f.ple_rate_why);
	if (r->sched_why[0])
		json_add_str(o, "run_delay_unavailable", r->sched_why);
	else if (r->sched_note[0])
		json_add_str(o, "run_delay_note", r->sched_note);
	exit_times_json_add(o, r, NULL);
	struct halt_path h;
	halt_path_for_variant(r, &h);
	json_add(o, "halt_path", halt_path_json(r, &h));
	return o;
}

/* Only the non-empty buckets: a histogram has ~500, a run fills a dozen. */
static json_object *histogram_json(const uint64_t *hist)
{
	json_object *o = json_object_new_object();
	json_object *buckets = json_object_new_array();

	for (unsigned b = 0; b < PLERIG_HIST_BUCKETS; b++) {
		if (!hist[b])
			continue;
		json_object *pair = json_object_new_array();
		json_object_array_add(pair, json_object_new_uint64(plerig_hist_bucket_low(b)));
		json_object_array_add(pair, json_object_new_uint64(hist[b]));
		json_object_array_add(buckets, pair);
	}
	json_add_str(o, "unit", "tsc_cycles");
	json_add(o, "buckets", buckets);
	return o;
}

static json_object *kvm_stats_json(const struct kvm_stats_snapshot *s)
{
	json_object *o = json_object_new_object();

	for (int i = 0; i < KVM_STAT_COUNT; i++)
		if (s->valid[i])
			json_add_u64(o, kvm_stat_name((enum kvm_vcpu_stat)i), s->value[i]);
	return o;
}

static json_object *lifetime_json(const struct vcpu_lifetime *l)
{
	json_object *o = json_object_new_object();

	json_add_count(o, "exits", l->exits_valid, l->exits);
	json_add_count(o, "pause_loop_exits", l->ple.pause_exits_valid, l->ple.pause_exits);
	json_add_count(o, "ple_window_updates", l->ple.window_updates_valid, l->ple.window_updates);
	return o;
}

static json_object *vcpu_json(const struct variant_result *r, const struct vcpu_record *rec)
{
	json_object *o = json_object_new_object();
	struct figures f;

	figures_for_vcpu(r, rec, &f);
	json_add(o, "vcpu", json_object_new_int64(rec->vcpu));
	json_add(o, "host_cpu", rec->host_cpu >= 0 ? json_object_new_int(rec->host_cpu) : NULL);
	/* a thread of another host has no number here */
	json_add(o, "tid", rec->tid > 0 ? json_object_new_int64(rec->tid) : NULL);
	json_add_u64(o, "acquisitions", f.acquisitions);
	json_add_u64(o, "unmeasured_acquisitions", rec->guest.unmeasured_acquisitions);
	json_add_u64(o, "contended", rec->guest.contended);
	add_figures(o, r, &f);
	json_add(o, "timeslices",
		 r->sched_why[0] || r->timeslices_unknown
		     ? NULL
		     : json_object_new_uint64(rec->sched.timeslices));
	json_add(o, "kvm_stats", kvm_stats_json(&rec->kvm));
	exit_times_json_add(o, r, rec);
	struct halt_path h;
	halt_path_for_vcpu(r, rec, &h);
	json_add(o, "halt_path", halt_path_json(r, &h));
	if (h.valid)
		json_add(o, "kick_latency_histogram", histogram_json(rec->guest.hist_kick));
	if (rec->lifetime.valid)
		json_add(o, "lifetime", lifetime_json(&rec->lifetime));
	json_add(o, "wait_histogram", histogram_json(rec->guest.hist_wait));
	json_add(o, "hold_histogram", histogram_json(rec->guest.hist_hold));
	return o;
}

/* VMs that have records; a run that failed before any vCPU ran has none. */
static unsigned nr_vms(const struct variant_result *r)
{
	unsigned n = 0;

	for (unsigned i = 0; i < r->nr_records; i++)
		if (r->records[i].vm + 1 > n)
			n = r->records[i].vm + 1;
	/* protected_counter is indexed by VM: do not read past the run's VMs */
	if (r->protected_counter && n > r->variant.vms)
		n = r->variant.vms;
	return n;
}

/* Why a run has no lock reading where its run time was read. */
static const char *window_why(const struct variant_result *r)
{
	if (r->variant.backend == BACKEND_LIBVIRT || r->variant.backend == BACKEND_LIBVIRT_TCG)
		return "a self-timed guest reports its lock's counter only at its end";
	if (!r->ok)
		return "the run failed before its interval ended";
	return "not read (out of memory)";
}

static json_object *vm_json(const struct variant_result *r, unsigned vm)
{
	json_object *o = json_object_new_object();
	json_object *vcpus = json_object_new_array();

	json_add(o, "vm", json_object_new_int64(vm));
	json_add(o, "protected_counter",
		 r->protected_counter ? json_object_new_uint64(r->protected_counter[vm]) : NULL);
	json_add(o, "window_acquisitions",
		 r->window_acquisitions ? json_object_new_uint64(r->window_acquisitions[vm])
					: NULL);
	if (!r->window_acquisitions)
		json_add(o, "window_acquisitions_unavailable",
			 json_object_new_string(window_why(r)));
	for (unsigned i = 0; i < r->nr_records; i++)
		if (r->records[i].vm == vm)
			json_object_array_add(vcpus, vcpu_json(r, &r->records[i]));
	json_add(o, "vcpus", vcpus);
	return o;
}

static json_object *run_json(const struct variant_result *r, unsigned repeat)
{
	json_object *o = json_object_new_object();
	json_object *vms = json_object_new_array();
	unsigned n = nr_vms(r);

	json_add(o, "repeat", json_object_new_int64(repeat));
	json_add(o, "ok", json_object_new_boolean(r->ok));
	if (!r->ok)
		json_add_str(o, "error", r->error[0] ? r->error : "unknown error");
	json_add_double(o, "interval_s", r->interval_s);
	json_add_u64(o, "tsc_khz", r->tsc_khz);
	if (r->ple_note[0])
		json_add_str(o, "ple_note", r->ple_note);
	json_add(o, "timing", timing_json(&r->timing));
	/* figures of a failed run would look like results: leave them out */
	json_add(o, "summary", r->ok ? summary_json(r) : NULL);
	for (unsigned vm = 0; vm < n; vm++)
		json_object_array_add(vms, vm_json(r, vm));
	/* not "vms": that key of the variant holds the VM count */
	json_add(o, "vm_results", vms);
	return o;
}

/* ---- one variant ------------------------------------------------------ */

static void add_variant_identity(json_object *o, const struct variant *v)
{
	char pcpus[PLERIG_MAX_PCPUS * 6];

	cpulist_format(v->pcpus, v->nr_pcpus, pcpus, sizeof(pcpus));
	json_add_str(o, "backend", backend_name(v->backend));
	json_add_str(o, "lock", lock_name(v->lock));
	json_add_str(o, "relax", relax_name(v->relax));
	json_add_str(o, "ring", ring_name(v->ring));
	json_add_str(o, "ple", ple_name(v->ple));
	/* where the backend has no such setting: the axis value, and why it means nothing */
	if (variant_ple_na(v))
		json_add_str(o, "ple_unavailable", variant_ple_na(v));
	if (variant_halt_poll_na(v))
		json_add_str(o, "halt_poll_unavailable", variant_halt_poll_na(v));
	/* null: not set, the host's kvm.halt_poll_ns */
	json_add(o, "halt_poll_ns",
		 v->halt_poll_ns == HALT_POLL_HOST ? NULL : json_object_new_int64(v->halt_poll_ns));
	json_add(o, "vms", json_object_new_int64(v->vms));
	json_add(o, "vcpus", json_object_new_int64(v->vcpus));
	json_add_str(o, "pcpus", pcpus);
	json_add_str(o, "pin", v->pin_each ? "each" : "float");
	json_add_u64(o, "cs_cycles", v->cs_cycles);
	json_add_u64(o, "think_cycles", v->think_cycles);
	json_add_double(o, "stall_us", v->stall_us);
	json_add_double(o, "warmup_s", v->warmup_s);
	json_add_double(o, "duration_s", v->duration_s);
}

/* With no value (n = 0), mean 0 would read as a measurement: null instead. */
static json_object *sample_stats_json(const struct sample_stats *st)
{
	json_object *o = json_object_new_object();
	const double none = NAN;
	const int have = st->n > 0;

	json_add(o, "n", json_object_new_int64(st->n));
	json_add_double(o, "mean", have ? st->mean : none);
	json_add_double(o, "stddev", have ? st->stddev : none);
	json_add_double(o, "rel", have ? st->rel : none);
	json_add_double(o, "min", have ? st->min : none);
	json_add_double(o, "max", have ? st->max : none);
	json_add_double(o, "median", have ? st->median : none);
	json_add_double(o, "mad", have ? st->mad : none);
	json_add(o, "outliers", json_object_new_int64(st->outliers));
	json_add(o, "bimodal", json_object_new_boolean(st->bimodal));
	json_add(o, "drift", json_object_new_boolean(st->drift));
	json_add_double(o, "drift_rel", st->n >= 4 ? st->drift_rel : NAN);
	json_add_double(o, "drift_p", st->n >= 4 && st->drift_p > 0 ? st->drift_p : NAN);
	if (st->bimodal) {
		json_object *modes = json_object_new_array();
		json_object *low = json_object_new_object(), *high = json_object_new_object();
		json_add(low, "n", json_object_new_int64(st->n_low));
		json_add_double(low, "mean", st->low_mean);
		json_add(high, "n", json_object_new_int64(st->n_high));
		json_add_double(high, "mean", st->high_mean);
		json_object_array_add(modes, low);
		json_object_array_add(modes, high);
		json_add(o, "modes", modes);
	}
	return o;
}

/* s->stats as the runner computed it, or computed here if it did not. */
static json_object *stats_json(const struct series *s)
{
	json_object *o = json_object_new_object();
	double *values = calloc(s->nr_runs ? s->nr_runs : 1, sizeof(*values));

	for (unsigned m = 0; m < nr_metrics; m++) {
		struct sample_stats st;
		if (s->stats)
			st = s->stats[m];
		else if (values)
			sample_stats_compute(values, series_values(s, &metrics[m], values), &st);
		else
			sample_stats_compute(NULL, 0, &st);
		json_add(o, metrics[m].name, sample_stats_json(&st));
	}
	free(values);
	return o;
}

static json_object *series_json(const struct outcome *rep, const struct series *s)
{
	json_object *o = json_object_new_object();
	json_object *runs = json_object_new_array();

	add_variant_identity(o, &s->variant);
	json_add_str(o, "host", outcome_host_name(rep, &s->variant));
	for (unsigned i = 0; i < s->nr_runs; i++)
		json_object_array_add(runs, run_json(&s->runs[i], i));
	json_add(o, "runs", runs);
	json_add(o, "stats", stats_json(s));
	return o;
}

/* ---- comparisons ------------------------------------------------------ */

/* The paired test: its change and CI in % of the base mean, as @j judged them. */
static json_object *paired_json(const struct welch_result *w, unsigned n, const struct judgement *j)
{
	json_object *o = json_object_new_object();
	json_add(o, "n", json_object_new_int64(n));
	json_add_double(o, "delta_pct", j->delta_pct);
	json_add_double(o, "p_value", w->valid ? w->p : NAN);
	json_add_double(o, "ci95_low_pct", j->ci_low_pct);
	json_add_double(o, "ci95_high_pct", j->ci_high_pct);
	return o;
}

static json_object *comparison_json(const struct outcome *rep, const struct comparison *c)
{
	json_object *o = json_object_new_object();
	const struct welch_result *w = &c->welch;
	struct judgement welch, j;

	/* the run's own comparisons: the one rule (model/verdict.h) with the run's --threshold */
	verdict_judge(&c->base, &c->cand, w, c->metric->better, rep->threshold_pct, &welch);
	comparison_judge(c, rep->threshold_pct, &j);
	json_add(o, "reference", json_object_new_int64(c->reference));
	json_add(o, "candidate", json_object_new_int64(c->candidate));
	json_add_str(o, "metric", c->metric->name);
	json_add_str(o, "better", metric_better_name(c->metric));
	json_add_double(o, "reference_mean", c->base.n ? c->base.mean : NAN);
	json_add_double(o, "candidate_mean", c->cand.n ? c->cand.mean : NAN);
	json_add_double(o, "delta", welch.delta);
	/* the delta the verdict rests on (paired: mean of the per-round differences) */
	json_add_double(o, "delta_pct", j.delta_pct);
	json_add_double(o, "welch_delta_pct", welch.delta_pct);
	json_add_str(o, "delta_pct_why", welch.pct_why);
	json_add_double(o, "p_value", w->valid ? w->p : NAN);
	json_add_double(o, "ci95_low", w->valid ? w->ci_low : NAN);
	json_add_double(o, "ci95_high", w->valid ? w->ci_high : NAN);
	/* interleaved runs, paired by round: the test the verdict rests on when present */
	json_add(o, "paired", c->paired_n ? paired_json(&c->paired, c->paired_n, &j) : NULL);
	json_add_str(o, "test", c->paired_n ? "paired" : "welch");
	json_add_double(o, "p_holm", c->holm ? c->p_holm : NAN);
	json_add(o, "significant", json_object_new_boolean(j.significant));
	json_add_str(o, "verdict", verdict_name(j.verdict));
	/* the old names of reference and reference_mean, for readers of older files' shape */
	json_add(o, "baseline", json_object_new_int64(c->reference));
	json_add_double(o, "baseline_mean", c->base.n ? c->base.mean : NAN);
	return o;
}

/* ---- the document ----------------------------------------------------- */

/* Every host of --connect, in its order: the identity, the label variants name, why it ran nothing.
 */
static json_object *hosts_json(const struct outcome *rep)
{
	json_object *a = json_object_new_array();
	for (unsigned i = 0; i < rep->nr_hosts; i++) {
		json_object *h = host_json(&rep->hosts[i].info);
		json_add_str(h, "label", rep->hosts[i].label);
		json_add_str(h, "error", rep->hosts[i].error[0] ? rep->hosts[i].error : NULL);
		json_object_array_add(a, h);
	}
	if (!rep->nr_hosts) {
		json_object *h = host_json(&rep->host);
		json_add_str(h, "label", rep->host.name);
		json_add_str(h, "error", NULL);
		json_object_array_add(a, h);
	}
	return a;
}

json_object *json_results_document(const struct outcome *rep)
{
	json_object *root = json_object_new_object();
	json_object *variants = json_object_new_array();
	json_object *comparisons = json_object_new_array();

	json_add_str(root, "schema", JSON_REPORT_SCHEMA);
	json_add(root, "schema_version", json_object_new_int(JSON_REPORT_SCHEMA_VERSION));
	json_add_str(root, "plerig_version", PLERIG_VERSION);
	json_add_str(root, "command_line", rep->command_line);
	json_add(root, "host", host_json(&rep->host));
	json_add(root, "hosts", hosts_json(rep));
	json_add(root, "repeat", json_object_new_int64(rep->repeat));
	json_add(root, "discard_rounds", json_object_new_int64(rep->discard_rounds));
	json_add_str(root, "order", order_name(rep->order));
	/* only a shuffled order needs its seed to be reproduced */
	json_add(root, "seed",
		 rep->order == ORDER_SHUFFLE ? json_object_new_uint64(rep->seed) : NULL);
	json_add_str(root, "reference", rep->reference);
	json_add_str(root, "baseline", rep->reference); /* its old name, as "reference" */
	/* what the comparisons' verdicts were judged with (--threshold) */
	json_add(root, "threshold_pct", json_double(rep->threshold_pct));
	json_add(root, "interrupted", json_object_new_boolean(rep->interrupted));
	for (unsigned i = 0; i < rep->nr_series; i++)
		json_object_array_add(variants, series_json(rep, &rep->series[i]));
	json_add(root, "variants", variants);
	for (unsigned i = 0; i < rep->nr_comparisons; i++)
		if (rep->comparisons[i].metric)
			json_object_array_add(comparisons,
					      comparison_json(rep, &rep->comparisons[i]));
	json_add(root, "comparisons", comparisons);
	return root;
}

int json_results_write(const char *path, const struct outcome *rep, char *err, size_t errlen)
{
	json_object *root;
	const char *text;
	size_t len;
	char *buf;
	int rc;

	if (!path || !*path)
		return errbuf_printf(err, errlen, "cannot write JSON: no file name");
	root = json_results_document(rep);
	text = json_object_to_json_string_ext(root, json_text_flags());
	len = text ? strlen(text) : 0;
	buf = text ? malloc(len + 2) : NULL;
	if (!buf) {
		json_object_put(root);
		return errbuf_printf(err, errlen, "cannot write '%s': out of memory", path);
	}
	memcpy(buf, text, len);
	buf[len++] = '\n';
	buf[len] = '\0';
	rc = atomic_file_write(path, "JSON", buf, len, err, errlen);
	free(buf);
	json_object_put(root);
	return rc;
}
