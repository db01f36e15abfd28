/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why a unit (a vCPU thread, or a native storm thread) did not finish a
 * stage in time, in the host's own words: whether its thread was
 * runnable, how much CPU it got in the wait and how long it has had none.
 * A runnable thread without a CPU for seconds is a busy host, not a hung
 * guest: on this 2-CPU host at load 20-30 the scheduler left one storm
 * thread without a CPU for over 10 s while its lock partner spun.
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
 * A runnable thread that got no CPU for this long was left out by the
 * host: a fair scheduler comes round in tens of milliseconds even with
 * 30 threads on a CPU, and a storm thread that runs leaves its loop
 * within microseconds of seeing STOP.
 */
#define UNIT_STARVED_NS 1000000000ull

/* One unit's thread from the start of a wait (the mark) on. */
struct unit_mark {
	pid_t tid;		/* 0: not started at the mark: its whole life counts */
	struct schedstat sched; /* at the mark, when have_sched */
	bool have_sched;
	uint64_t mark_ns;     /* CLOCK_MONOTONIC of the mark */
	uint64_t last_run_ns; /* schedstat's CPU time at the last look that saw it grow */
	uint64_t last_ran_ns; /* CLOCK_MONOTONIC of that look (the mark's until then) */
};

struct unit_evidence {
	pid_t tid; /* 0: the thread has not started */
	bool have_state;
	struct thread_state state;
	bool have_ran;
	uint64_t ran_ns;    /* CPU time since the mark */
	uint64_t idle_ns;   /* how long its CPU time has not grown (as often as it was looked at) */
	uint64_t waited_ns; /* time since the mark */
};

/* Mark @tid's thread at @now; a thread not started yet (tid 0) is marked as such. */
void unit_mark_take(struct unit_mark *m, pid_t tid, uint64_t now);
/* Look at it again at @now: note whether its CPU time grew. */
void unit_mark_watch(struct unit_mark *m, pid_t tid, uint64_t now);
/* What @tid's thread did since mark @m, looking once more at @now. */
void unit_evidence_take(struct unit_evidence *e, struct unit_mark *m, pid_t tid, uint64_t now);
/* Runnable, and no CPU for UNIT_STARVED_NS or more. */
bool unit_evidence_starved(const struct unit_evidence *e);
/*
 * One clause, "its thread 1234 was runnable (R) on CPU 0 but had no CPU
 * for the last 10.0 s (ran 0.0 ms in the 10.0 s since STOP): a busy host,
 * not a hung guest"; @since names the mark.
 */
void unit_evidence_describe(const struct unit_evidence *e, const char *since, char *buf,
			    size_t len);

#endif
