/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why a unit (a vCPU thread, or a native storm thread) did not finish a
 * stage in time, in the host's own words: whether its thread was
 * runnable and how much CPU it got meanwhile. A runnable thread that got
 * no CPU for the whole wait is a busy host, not a hung guest: on a 2-CPU
 * host at load 30 the scheduler was seen to leave one storm thread
 * without a CPU for over 10 s while the other spun.
 */
#ifndef PLERIG_UNIT_EVIDENCE_H
#define PLERIG_UNIT_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "measure/schedstat.h"
#include "measure/thread_state.h"

/*
 * A storm thread that runs leaves its loop within microseconds of seeing
 * STOP (a vCPU adds an exit of ~50 us): less CPU than this in the whole
 * wait means it was not given a CPU.
 */
#define UNIT_STARVED_NS 1000000ull

/* One unit's thread at the start of a wait (the mark). */
struct unit_mark {
	pid_t tid;		/* 0: not started at the mark: its whole life counts */
	struct schedstat sched; /* valid when have_sched */
	bool have_sched;
};

struct unit_evidence {
	pid_t tid; /* 0: the thread has not started */
	bool have_state;
	struct thread_state state;
	bool have_ran;
	uint64_t ran_ns;    /* CPU time since the mark */
	uint64_t waited_ns; /* time since the mark */
};

/* Take @tid's mark now; a thread not started yet (tid 0) is marked as such. */
void unit_mark_take(struct unit_mark *m, pid_t tid);
/* What @tid's thread did since mark @m, taken @waited_ns ago. */
void unit_evidence_take(struct unit_evidence *e, const struct unit_mark *m, pid_t tid,
			uint64_t waited_ns);
/* Runnable, and ran less than UNIT_STARVED_NS since the mark. */
bool unit_evidence_starved(const struct unit_evidence *e);
/* One clause, "its thread 1234 was runnable (R) on CPU 0 but ran 0.0 ms in the 10.0 s since STOP:
 * the host gave it no CPU (a busy host, not a hung guest)"; @since names the mark. */
void unit_evidence_describe(const struct unit_evidence *e, const char *since, char *buf,
			    size_t len);

#endif
