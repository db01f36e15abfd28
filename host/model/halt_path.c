// SPDX-License-Identifier: GPL-2.0
#include "model/halt_path.h"

#include <math.h>
#include <string.h>

#include "measure/hist_stats.h"
#include "measure/kvm_stats.h"

static const enum kvm_vcpu_stat kvm_stat_of[HALT_STAT_COUNT] = {
    [HALT_STAT_EXITS] = KVM_STAT_HALT_EXITS,
    [HALT_STAT_WAKEUP] = KVM_STAT_HALT_WAKEUP,
    [HALT_STAT_SUCCESSFUL_POLL] = KVM_STAT_HALT_SUCCESSFUL_POLL,
    [HALT_STAT_ATTEMPTED_POLL] = KVM_STAT_HALT_ATTEMPTED_POLL,
    [HALT_STAT_POLL_INVALID] = KVM_STAT_HALT_POLL_INVALID,
    [HALT_STAT_POLL_SUCCESS_NS] = KVM_STAT_HALT_POLL_SUCCESS_NS,
    [HALT_STAT_POLL_FAIL_NS] = KVM_STAT_HALT_POLL_FAIL_NS,
};

const char *halt_stat_name(enum halt_stat s)
{
	return (unsigned)s < HALT_STAT_COUNT ? kvm_stat_name(kvm_stat_of[s]) : "?";
}

const char *halt_stat_why(const struct variant_result *r)
{
	if (r->variant.backend == BACKEND_NATIVE)
		return "no VM: no KVM halt stats";
	return "not among this host's KVM binary stats (KVM_GET_STATS_FD)";
}

static const char *why_none(const struct variant_result *r)
{
	if (r->variant.lock != PLERIG_LOCK_PVQSPIN)
		return "only lock pvqspin halts";
	return r->pv_why[0] ? r->pv_why : "pvqspin did not halt";
}

static void start(const struct variant_result *r, struct halt_path *out)
{
	memset(out, 0, sizeof(*out));
	out->valid = r->variant.lock == PLERIG_LOCK_PVQSPIN && r->pv_unhalt;
	out->why = out->valid ? NULL : why_none(r);
	out->early_halts_valid = out->valid && r->steal_time;
	out->kick_p50_ns = out->kick_p99_ns = out->kick_max_ns = NAN;
	for (unsigned s = 0; s < HALT_STAT_COUNT; s++)
		out->kvm_valid[s] = r->nr_records > 0;
}

/* Adds one vCPU's guest and KVM counts. */
static void add(struct halt_path *out, const struct vcpu_record *rec)
{
	const struct plerig_pv_counts *c = &rec->guest.pv;
	out->halts += c->halts;
	out->kicks_sent += c->kicks_sent;
	out->kicks_received += c->kicks_received;
	out->spurious_wakeups += c->spurious_wakeups;
	out->early_halts += c->early_halts;
	for (unsigned s = 0; s < HALT_STAT_COUNT; s++) {
		/* one vCPU without the stat makes the sum no stat at all */
		out->kvm_valid[s] &= rec->kvm.valid[kvm_stat_of[s]];
		out->kvm[s] += rec->kvm.value[kvm_stat_of[s]];
	}
}

static void latencies(const struct variant_result *r, const uint64_t *hist, uint64_t max_cycles,
		      struct halt_path *out)
{
	out->kicks_timed = hist_total(hist, PLERIG_HIST_BUCKETS);
	out->kick_why = !out->valid	    ? out->why
			: !r->tsc_khz	    ? "no TSC rate: the run ended before it was calibrated"
			: !out->kicks_timed ? "no kick received: no latency to time"
					    : NULL;
	if (out->kick_why)
		return;
	out->kick_max_ns = cycles_to_ns(r, (double)max_cycles);
	/* spread inside its bucket, a percentile could pass the largest value seen */
	out->kick_p50_ns =
	    fmin(cycles_to_ns(r, hist_quantile(hist, PLERIG_HIST_BUCKETS, 0.50)), out->kick_max_ns);
	out->kick_p99_ns =
	    fmin(cycles_to_ns(r, hist_quantile(hist, PLERIG_HIST_BUCKETS, 0.99)), out->kick_max_ns);
}

static void finish(struct halt_path *out)
{
	for (unsigned s = 0; s < HALT_STAT_COUNT; s++)
		if (!out->kvm_valid[s])
			out->kvm[s] = 0;
}

void halt_path_for_vcpu(const struct variant_result *r, const struct vcpu_record *rec,
			struct halt_path *out)
{
	start(r, out);
	add(out, rec);
	latencies(r, rec->guest.hist_kick, rec->guest.kick_latency_max_cycles, out);
	finish(out);
}

void halt_path_for_variant(const struct variant_result *r, struct halt_path *out)
{
	uint64_t hist[PLERIG_HIST_BUCKETS] = {0};
	uint64_t max = 0;
	start(r, out);
	for (unsigned i = 0; i < r->nr_records; i++) {
		const struct plerig_vcpu_result *g = &r->records[i].guest;
		add(out, &r->records[i]);
		hist_merge(hist, g->hist_kick, PLERIG_HIST_BUCKETS);
		if (g->kick_latency_max_cycles > max)
			max = g->kick_latency_max_cycles;
	}
	latencies(r, hist, max, out);
	finish(out);
}
