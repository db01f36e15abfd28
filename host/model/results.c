// SPDX-License-Identifier: GPL-2.0
#include "model/results.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure/hist_stats.h"
#include "model/halt_path.h"
#include "plerig/histogram.h"

static const char no_interval[] = "no measured interval";
static const char no_tsc[] = "no TSC rate: the run ended before it was calibrated";
static const char no_acquisition[] = "no acquisition in the measured interval";
static const char no_cpu_time[] = "the vCPU threads got no CPU time in the measured interval";
static const char never_runnable[] =
    "the vCPU threads were never runnable in the measured interval";

/* Per second of the interval; NaN without one (a rate of nothing measured is no 0). */
static double per_second(double count, double interval_s)
{
	return interval_s > 0.0 ? count / interval_s : NAN;
}

/* Share of @slots vCPU-intervals: comparable across vCPU counts; NaN without any. */
static double share_of(double ns, double slots, double interval_s)
{
	double total_ns = slots * interval_s * 1e9;

	return total_ns > 0.0 ? ns / total_ns : NAN;
}

/*
 * Of the time threads were runnable (on a CPU or queued for one), the share
 * they spent queued. Both counters come from the same snapshots, taken
 * just outside the interval (longer on a busy host): dividing by the
 * interval instead could pass 100 %.
 */
static double queued_share(double run_delay_ns, double run_time_ns)
{
	const double runnable_ns = run_delay_ns + run_time_ns;

	return runnable_ns > 0.0 ? run_delay_ns / runnable_ns : NAN;
}

/* Per second of CPU received; NaN without run time (a failed or unmeasured run). */
static double per_cpu_second(double count, double run_time_ns)
{
	return run_time_ns > 0.0 ? count / (run_time_ns * 1e-9) : NAN;
}

static double mean(double total, uint64_t count)
{
	return count ? total / (double)count : NAN;
}

/* The bucket of @hist that quantile @q falls in, as [low, high) ns; NaN when empty. */
static void quantile_bucket(const struct variant_result *r, const uint64_t *hist, double q,
			    double out[2])
{
	out[0] = out[1] = NAN;
	if (!hist_total(hist, PLERIG_HIST_BUCKETS))
		return;
	unsigned b = plerig_hist_bucket((uint64_t)hist_quantile(hist, PLERIG_HIST_BUCKETS, q));
	out[0] = cycles_to_ns(r, (double)plerig_hist_bucket_low(b));
	out[1] = cycles_to_ns(r, (double)(plerig_hist_bucket_low(b) + plerig_hist_bucket_width(b)));
}

/* Figures that only need the histograms and maxima: shared by both levels. */
static void latency_figures(const struct variant_result *r, const uint64_t *hist_wait,
			    const uint64_t *hist_hold, uint64_t wait_max, uint64_t hold_max,
			    struct figures *out)
{
	out->wait_p50_ns = out->wait_p99_ns = out->wait_max_ns = NAN;
	out->hold_p50_ns = out->hold_max_ns = NAN;
	quantile_bucket(r, hist_wait, 0.50, out->wait_p50_bucket_ns);
	quantile_bucket(r, hist_wait, 0.99, out->wait_p99_bucket_ns);
	/* an empty histogram has no percentile, and its maximum of 0 was never a wait */
	out->wait_why = !r->tsc_khz				      ? no_tsc
			: !hist_total(hist_wait, PLERIG_HIST_BUCKETS) ? no_acquisition
								      : NULL;
	out->hold_why = !r->tsc_khz				      ? no_tsc
			: !hist_total(hist_hold, PLERIG_HIST_BUCKETS) ? no_acquisition
								      : NULL;
	if (!out->wait_why) {
		out->wait_max_ns = cycles_to_ns(r, (double)wait_max);
		/* spread inside its bucket, a percentile could pass the largest value seen */
		out->wait_p50_ns =
		    fmin(cycles_to_ns(r, hist_quantile(hist_wait, PLERIG_HIST_BUCKETS, 0.50)),
			 out->wait_max_ns);
		out->wait_p99_ns =
		    fmin(cycles_to_ns(r, hist_quantile(hist_wait, PLERIG_HIST_BUCKETS, 0.99)),
			 out->wait_max_ns);
	}
	if (!out->hold_why) {
		out->hold_p50_ns =
		    cycles_to_ns(r, hist_quantile(hist_hold, PLERIG_HIST_BUCKETS, 0.50));
		out->hold_max_ns = cycles_to_ns(r, (double)hold_max);
	}
}

/* Why the exit count is missing: where it would have come from. */
static const char *exits_missing(const struct variant_result *r)
{
	if (!r->nr_records)
		return "no vCPU ran";
	if (r->exits_why[0])
		return r->exits_why;
	switch (r->variant.backend) {
	case BACKEND_NATIVE:
		return "no VM: no KVM exits";
	case BACKEND_LIBVIRT:
	case BACKEND_LIBVIRT_TCG:
		return "libvirt's vCPU stats lacked exits.sum for a vCPU (QEMU's query-stats, "
		       "libvirt >= 8.9, KVM only)";
	default:
		return "not among this host's KVM binary stats (KVM_GET_STATS_FD)";
	}
}

/* Why the interval-based and the CPU-time-based figures are NaN, where they are. */
static void reasons(const struct variant_result *r, struct figures *out)
{
	if (!out->exits_valid)
		out->exits_why = exits_missing(r);
	/* as the JSON summary says them (output/json_writer.c) */
	if (!out->pause_loop_exits_valid)
		out->ple_why = r->ple_why[0] ? r->ple_why : "not counted for every vCPU";
	if (!out->ple_window_updates_valid)
		out->ple_window_why = r->ple_window_why[0] ? r->ple_window_why
				      : r->ple_why[0]	   ? r->ple_why
							   : "not counted for every vCPU";
	if (isnan(out->acq_per_s) || isnan(out->stalled_share))
		out->rate_why = !(r->interval_s > 0.0) ? no_interval
				: !r->tsc_khz	       ? no_tsc
						       : "no vCPU ran";
	if (isnan(out->ple_exits_per_s))
		out->ple_rate_why = out->ple_why ? out->ple_why : no_interval;
	if (isnan(out->stalled_ns))
		out->stalled_why = no_tsc;
	if (isnan(out->wait_mean_ns) && !out->wait_why)
		out->wait_why = no_acquisition;
	if (isnan(out->acq_per_cpu_s))
		out->cpu_why = r->sched_why[0] ? r->sched_why : no_cpu_time;
	if (isnan(out->run_delay_share))
		out->share_why = r->sched_why[0] ? r->sched_why : never_runnable;
}

/* Lock pvqspin's halt path, from model/halt_path.c: what metrics judge of it. */
static void halt_figures(const struct variant_result *r, const struct halt_path *h,
			 struct figures *out)
{
	out->kick_p50_ns = h->kick_p50_ns;
	out->kick_p99_ns = h->kick_p99_ns;
	out->kick_why = h->kick_why;
	out->halts_valid = h->valid;
	out->halts = h->valid ? h->halts : 0;
	out->halts_why = h->why;
	out->halt_exits_valid = h->kvm_valid[HALT_STAT_EXITS];
	out->halt_exits = h->kvm[HALT_STAT_EXITS];
	out->halt_wakeups_valid = h->kvm_valid[HALT_STAT_WAKEUP];
	out->halt_wakeups = h->kvm[HALT_STAT_WAKEUP];
	out->halt_polls_valid = h->kvm_valid[HALT_STAT_SUCCESSFUL_POLL];
	out->halt_polls = h->kvm[HALT_STAT_SUCCESSFUL_POLL];
	out->halt_stats_why =
	    out->halt_exits_valid && out->halt_wakeups_valid && out->halt_polls_valid
		? NULL
		: halt_stat_why(r);
}

/* Run delay that was never read is no figure at all, not a run delay of 0. */
static void sched_unmeasured(const struct variant_result *r, struct figures *out)
{
	if (!r->sched_why[0])
		return;
	out->run_delay_ns = NAN;
	out->run_time_ns = NAN;
	out->run_delay_share = NAN;
	out->acq_per_cpu_s = NAN;
}

void figures_for_vcpu(const struct variant_result *r, const struct vcpu_record *rec,
		      struct figures *out)
{
	const struct plerig_vcpu_result *g = &rec->guest;

	memset(out, 0, sizeof(*out));
	out->acquisitions = g->acquisitions;
	out->acq_per_s = per_second((double)g->acquisitions, r->interval_s);
	latency_figures(r, g->hist_wait, g->hist_hold, g->wait_max_cycles, g->hold_max_cycles, out);
	out->wait_mean_ns = mean(cycles_to_ns(r, (double)g->wait_total_cycles), g->acquisitions);
	out->stalls = g->stalls;
	out->stalled_ns = cycles_to_ns(r, (double)g->stalled_cycles);
	out->stalled_share = share_of(out->stalled_ns, 1, r->interval_s);
	out->holder_preemptions = g->holder_preemptions;
	out->stalls_self_preempted = g->stalls_self_preempted;
	out->holder_preemptions_steal = g->holder_preemptions_steal;
	out->run_delay_ns = (double)rec->sched.wait_ns;
	out->run_time_ns = (double)rec->sched.run_ns;
	out->run_delay_share = queued_share(out->run_delay_ns, out->run_time_ns);
	out->acq_per_cpu_s = per_cpu_second((double)g->acquisitions, out->run_time_ns);
	out->foreign_cpu_share = NAN; /* a figure of the CPUs, not of one vCPU */
	sched_unmeasured(r, out);
	out->exits_valid = rec->kvm.valid[KVM_STAT_EXITS];
	out->exits = out->exits_valid ? rec->kvm.value[KVM_STAT_EXITS] : 0;
	out->irq_exits_valid = rec->kvm.valid[KVM_STAT_IRQ_EXITS];
	out->irq_exits = out->irq_exits_valid ? rec->kvm.value[KVM_STAT_IRQ_EXITS] : 0;
	out->pause_loop_exits_valid = rec->ple.pause_exits_valid;
	out->pause_loop_exits = rec->ple.pause_exits_valid ? rec->ple.pause_exits : 0;
	out->ple_window_updates_valid = rec->ple.window_updates_valid;
	out->ple_window_updates = rec->ple.window_updates_valid ? rec->ple.window_updates : 0;
	out->ple_exits_per_s = out->pause_loop_exits_valid
				   ? per_second((double)out->pause_loop_exits, r->interval_s)
				   : NAN;
	struct halt_path h;
	halt_path_for_vcpu(r, rec, &h);
	halt_figures(r, &h, out);
	reasons(r, out);
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

void figures_for_variant(const struct variant_result *r, struct figures *out)
{
	/* percentiles of the merged samples, not an average of percentiles */
	uint64_t hist_wait[PLERIG_HIST_BUCKETS] = {0};
	uint64_t hist_hold[PLERIG_HIST_BUCKETS] = {0};
	uint64_t wait_max = 0, hold_max = 0;
	double wait_total_ns = 0.0;

	memset(out, 0, sizeof(*out));
	/* an empty run has no exit count to report, not a count of zero */
	out->exits_valid = r->nr_records > 0;
	out->irq_exits_valid = r->nr_records > 0;
	out->pause_loop_exits_valid = r->nr_records > 0;
	out->ple_window_updates_valid = r->nr_records > 0;
	for (unsigned i = 0; i < r->nr_records; i++) {
		const struct vcpu_record *rec = &r->records[i];
		const struct plerig_vcpu_result *g = &rec->guest;

		hist_merge(hist_wait, g->hist_wait, PLERIG_HIST_BUCKETS);
		hist_merge(hist_hold, g->hist_hold, PLERIG_HIST_BUCKETS);
		wait_max = max_u64(wait_max, g->wait_max_cycles);
		hold_max = max_u64(hold_max, g->hold_max_cycles);
		wait_total_ns += cycles_to_ns(r, (double)g->wait_total_cycles);
		out->acquisitions += g->acquisitions;
		out->stalls += g->stalls;
		out->stalled_ns += cycles_to_ns(r, (double)g->stalled_cycles);
		out->holder_preemptions += g->holder_preemptions;
		out->stalls_self_preempted += g->stalls_self_preempted;
		out->holder_preemptions_steal += g->holder_preemptions_steal;
		out->run_delay_ns += (double)rec->sched.wait_ns;
		out->run_time_ns += (double)rec->sched.run_ns;
		if (rec->kvm.valid[KVM_STAT_EXITS])
			out->exits += rec->kvm.value[KVM_STAT_EXITS];
		else
			out->exits_valid = false;
		if (rec->kvm.valid[KVM_STAT_IRQ_EXITS])
			out->irq_exits += rec->kvm.value[KVM_STAT_IRQ_EXITS];
		else
			out->irq_exits_valid = false;
		out->pause_loop_exits += rec->ple.pause_exits;
		out->pause_loop_exits_valid &= rec->ple.pause_exits_valid;
		out->ple_window_updates += rec->ple.window_updates;
		out->ple_window_updates_valid &= rec->ple.window_updates_valid;
	}
	/* one vCPU without a count makes the sum no count at all, not a smaller one */
	if (!out->exits_valid)
		out->exits = 0;
	if (!out->irq_exits_valid)
		out->irq_exits = 0;
	if (!out->pause_loop_exits_valid)
		out->pause_loop_exits = 0;
	if (!out->ple_window_updates_valid)
		out->ple_window_updates = 0;
	out->acq_per_s = per_second((double)out->acquisitions, r->interval_s);
	out->ple_exits_per_s = out->pause_loop_exits_valid
				   ? per_second((double)out->pause_loop_exits, r->interval_s)
				   : NAN;
	out->acq_per_cpu_s = per_cpu_second((double)out->acquisitions, out->run_time_ns);
	latency_figures(r, hist_wait, hist_hold, wait_max, hold_max, out);
	out->wait_mean_ns = mean(wait_total_ns, out->acquisitions);
	out->stalled_share = share_of(out->stalled_ns, r->nr_records, r->interval_s);
	out->run_delay_share = queued_share(out->run_delay_ns, out->run_time_ns);
	const double capacity_ns = r->foreign_capacity_ns;
	out->foreign_cpu_share =
	    !r->foreign_why[0] && capacity_ns > 0.0 ? r->foreign_cpu_ns / capacity_ns : NAN;
	sched_unmeasured(r, out);
	struct halt_path h;
	halt_path_for_variant(r, &h);
	halt_figures(r, &h, out);
	reasons(r, out);
}

void variant_result_free(struct variant_result *r)
{
	free(r->records);
	free(r->protected_counter);
	free(r->window_acquisitions);
	r->records = NULL;
	r->protected_counter = NULL;
	r->window_acquisitions = NULL;
	r->nr_records = 0;
}
