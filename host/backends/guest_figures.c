// SPDX-License-Identifier: GPL-2.0
#include "backends/guest_figures.h"

#include <stdio.h>

#include "backends/guest_status.h"
#include "backends/run_result.h"
#include "util/errbuf.h"

#define SLACK_SHARE 0.02 /* of the interval: the host's reads around its phase flips */
#define SLACK_S	    0.01

/* The longest the guests can have measured, in s: the interval, or the window around it. */
static double window_s(const struct variant_result *r)
{
	return r->window_s > r->interval_s ? r->window_s : r->interval_s;
}

uint64_t guest_figures_max_cycles(const struct variant_result *r)
{
	if (!r->tsc_khz || !(r->interval_s > 0.0))
		return 0;
	const double cycles =
	    (window_s(r) * (1.0 + SLACK_SHARE) + SLACK_S) * (double)r->tsc_khz * 1e3;
	return cycles >= 0x1p63 ? (uint64_t)1 << 63 : (uint64_t)cycles;
}

/* The sum of a histogram's buckets into *total; false when it overflows. */
static bool hist_sum(const uint64_t *hist, uint64_t *total)
{
	*total = 0;
	for (unsigned b = 0; b < PLERIG_HIST_BUCKETS; b++)
		if (__builtin_add_overflow(*total, hist[b], total))
			return false;
	return true;
}

static int check_histogram(const uint64_t *hist, const char *name, uint64_t acquisitions, char *why,
			   size_t len)
{
	uint64_t total;
	if (!hist_sum(hist, &total))
		return errbuf_printf(why, len,
				     "its %s histogram's buckets add up to more than 2^64", name);
	if (total != acquisitions)
		return errbuf_printf(
		    why, len, "its %s histogram holds %llu values for %llu acquisitions", name,
		    (unsigned long long)total, (unsigned long long)acquisitions);
	return 0;
}

#define ULL(x) ((unsigned long long)(x))

/* @part of @whole: "stalls (5) more than contended acquisitions (3)". */
static int nest(uint64_t part, const char *part_name, uint64_t whole, const char *whole_name,
		char *why, size_t len)
{
	if (part <= whole)
		return 0;
	return errbuf_printf(why, len, "more %s (%llu) than %s (%llu)", part_name, ULL(part),
			     whole_name, ULL(whole));
}

/* pvqspin's halt path: a spurious or early halt is a halt; each kick latency is a kick received. */
static int check_halt_path(const struct plerig_vcpu_result *g, char *why, size_t len)
{
	uint64_t timed;
	if (!hist_sum(g->hist_kick, &timed))
		return errbuf_printf(
		    why, len, "its kick latency histogram's buckets add up to more than 2^64");
	return nest(g->pv.spurious_wakeups, "spurious wake-ups", g->pv.halts, "halts", why, len) ||
	       nest(g->pv.early_halts, "early halts", g->pv.halts, "halts", why, len) ||
	       nest(timed, "kick latencies", g->pv.kicks_received, "kicks received", why, len);
}

static int check_counts(const struct plerig_vcpu_result *g, char *why, size_t len)
{
	return nest(g->contended, "contended acquisitions", g->acquisitions, "acquisitions", why,
		    len) ||
	       nest(g->stalls, "stalls", g->contended, "contended acquisitions", why, len) ||
	       nest(g->stalls_self_preempted, "self-preempted stalls", g->stalls, "stalls", why,
		    len) ||
	       nest(g->holder_preemptions, "holder preemptions", g->acquisitions, "acquisitions",
		    why, len) ||
	       nest(g->holder_preemptions_steal, "holder preemptions by steal time",
		    g->holder_preemptions, "holder preemptions", why, len) ||
	       nest(g->stalled_cycles, "stalled cycles", g->wait_total_cycles, "cycles of waiting",
		    why, len) ||
	       nest(g->preempted_hold_cycles, "cycles of preempted holds", g->hold_total_cycles,
		    "cycles of holding", why, len) ||
	       nest(g->wait_max_cycles, "cycles in the longest wait", g->wait_total_cycles,
		    "cycles of waiting", why, len) ||
	       nest(g->hold_max_cycles, "cycles in the longest hold", g->hold_total_cycles,
		    "cycles of holding", why, len) ||
	       check_halt_path(g, why, len);
}

/* Times: every measured iteration lies inside the vCPU's window, which lies in the interval. */
static int check_times(const struct variant_result *r, const struct plerig_vcpu_result *g,
		       char *why, size_t len)
{
	const uint64_t most = guest_figures_max_cycles(r);
	uint64_t busy;
	if (__builtin_add_overflow(g->wait_total_cycles, g->hold_total_cycles, &busy))
		return errbuf_printf(why, len, "its wait and hold cycles add up to more than 2^64");
	if (!g->acquisitions) {
		if (busy)
			return errbuf_printf(why, len,
					     "%llu cycles of waiting and holding without an "
					     "acquisition",
					     ULL(busy));
		return 0;
	}
	if (g->measure_end_tsc < g->measure_start_tsc)
		return errbuf_printf(why, len,
				     "its measured window ends (TSC %llu) before it starts (%llu)",
				     ULL(g->measure_end_tsc), ULL(g->measure_start_tsc));
	const uint64_t window = g->measure_end_tsc - g->measure_start_tsc;
	if (busy > window)
		return errbuf_printf(
		    why, len, "%llu cycles of waiting and holding in a measured window of %llu",
		    ULL(busy), ULL(window));
	if (!most) /* no time scale: nothing more to compare with */
		return 0;
	if (window > most)
		return errbuf_printf(
		    why, len,
		    "a measured window of %llu TSC cycles, longer than the %.3f s interval "
		    "allows (%llu)",
		    ULL(window), r->interval_s, ULL(most));
	/* every acquisition takes at least a cycle */
	if (g->acquisitions > most)
		return errbuf_printf(
		    why, len,
		    "%llu acquisitions, more than the %llu TSC cycles of the %.3f s interval",
		    ULL(g->acquisitions), ULL(most), r->interval_s);
	/* over 100 % of the time the guest can have measured (the interval, where the
	 * host flips the phases at once): impossible, whatever the sums say */
	const double share = cycles_to_ns(r, (double)g->stalled_cycles) / (window_s(r) * 1e9);
	if (share > 1.0 + SLACK_SHARE + SLACK_S / window_s(r))
		return errbuf_printf(why, len, "stalled %.1f %% of the measured interval",
				     100.0 * share);
	return 0;
}

int guest_figures_check_vcpu(const struct variant_result *r, const struct vcpu_record *rec,
			     char *why, size_t len)
{
	const struct plerig_vcpu_result *g = &rec->guest;
	if (g->state != PLERIG_VCPU_DONE)
		return errbuf_printf(why, len, "state %s (%u) after the storm, not DONE",
				     guest_state_name(g->state), g->state);
	uint64_t all;
	if (__builtin_add_overflow(g->acquisitions, g->unmeasured_acquisitions, &all))
		return errbuf_printf(
		    why, len,
		    "acquisitions (%llu) and unmeasured acquisitions (%llu) add up to more "
		    "than 2^64",
		    ULL(g->acquisitions), ULL(g->unmeasured_acquisitions));
	return check_counts(g, why, len) ||
	       check_histogram(g->hist_wait, "wait", g->acquisitions, why, len) ||
	       check_histogram(g->hist_hold, "hold", g->acquisitions, why, len) ||
	       check_times(r, g, why, len);
}

/* The lock of VM @vm excluded: its vCPUs' acquisitions add up, without wrapping, to its counter. */
static int check_exclusion(struct variant_result *r, unsigned vm)
{
	const unsigned vcpus = r->variant.vcpus;
	uint64_t sum = 0;
	for (unsigned j = 0; j < vcpus; j++) {
		const struct plerig_vcpu_result *g = &r->records[vm * vcpus + j].guest;
		if (__builtin_add_overflow(sum, g->acquisitions, &sum) ||
		    __builtin_add_overflow(sum, g->unmeasured_acquisitions, &sum))
			return run_fail(r,
					"VM %u: guest reported impossible figures: its vCPUs' "
					"acquisitions add up to more than 2^64",
					vm);
	}
	if (sum != r->protected_counter[vm])
		return run_fail(r,
				"VM %u: the lock did not exclude: %llu acquisitions "
				"but the protected counter reads %llu",
				vm, ULL(sum), ULL(r->protected_counter[vm]));
	return 0;
}

int run_check_guest_figures(struct variant_result *r)
{
	char why[ERRBUF_SIZE];
	for (unsigned g = 0; g < r->nr_records; g++) {
		const struct vcpu_record *rec = &r->records[g];
		if (guest_figures_check_vcpu(r, rec, why, sizeof(why)))
			return run_fail(r, "VM %u vCPU %u: guest reported impossible figures: %s",
					rec->vm, rec->vcpu, why);
	}
	for (unsigned vm = 0; vm < r->variant.vms; vm++)
		if (check_exclusion(r, vm))
			return -1;
	return 0;
}
