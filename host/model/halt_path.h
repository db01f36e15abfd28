/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lock pvqspin's halt path, per vCPU or summed over a run: what the guest
 * counted (halts, kicks, spurious wake-ups, early halts, kick-to-running
 * latency) beside what KVM counted of the same halts (its binary stats).
 */
#ifndef PLERIG_HALT_PATH_H
#define PLERIG_HALT_PATH_H

#include <stdbool.h>
#include <stdint.h>

#include "model/results.h"

/* KVM's halt stats, in the order the JSON and CSV give them. */
enum halt_stat {
	HALT_STAT_EXITS,
	HALT_STAT_WAKEUP,
	HALT_STAT_SUCCESSFUL_POLL,
	HALT_STAT_ATTEMPTED_POLL,
	HALT_STAT_POLL_INVALID,
	HALT_STAT_POLL_SUCCESS_NS,
	HALT_STAT_POLL_FAIL_NS,
	HALT_STAT_COUNT
};

struct halt_path {
	/* the guest halted and kicked: every guest count below holds; else @why says
	 * why there is none (not pvqspin, or it ran as test-and-set) */
	bool valid;
	const char *why;
	uint64_t halts;
	uint64_t kicks_sent;
	uint64_t kicks_received;
	uint64_t spurious_wakeups;
	uint64_t early_halts;
	bool early_halts_valid; /* needs steal time (the preempted byte) */
	uint64_t kicks_timed;	/* latencies in the histogram: kicks received in whole */
	double kick_p50_ns, kick_p99_ns, kick_max_ns; /* NaN without a kick */
	const char *kick_why; /* why they are NaN (@why, no kick, no TSC rate); NULL: timed */
	bool kvm_valid[HALT_STAT_COUNT]; /* the host's KVM has the stat */
	uint64_t kvm[HALT_STAT_COUNT];
};

/* The KVM stat name ("halt_exits", ...). */
const char *halt_stat_name(enum halt_stat s);

void halt_path_for_vcpu(const struct variant_result *r, const struct vcpu_record *rec,
			struct halt_path *out);
void halt_path_for_variant(const struct variant_result *r, struct halt_path *out);

/* Why a KVM halt stat is missing, for its n/a: the backend or the kernel. */
const char *halt_stat_why(const struct variant_result *r);

#endif
