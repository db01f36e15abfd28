/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Time spent in KVM exits, per vCPU thread and per exit reason, as `perf
 * kvm stat` reports it: from each kvm:kvm_exit to the next kvm:kvm_entry
 * of the same thread. Both tracepoints are sampled (every hit, times on
 * CLOCK_MONOTONIC, the clock of the measured interval) into one ring
 * buffer per thread, so the thread's events arrive in the order it made
 * them. Only exits that begin and end inside the measured interval are
 * timed; what could not be timed is counted, never guessed:
 *
 *   - lost: records the kernel dropped because the buffer was full (the
 *     figures are then incomplete; drain often enough, see
 *     EXIT_TIMER_PAGES);
 *   - cut: exits that straddle an edge of the interval;
 *   - unpaired: an exit whose entry never came (records lost between), or
 *     an entry without its exit (the first one after opening).
 *
 * Sampling every exit and entry costs the vCPU thread time inside the
 * measured interval: it is off unless asked for (--exit-times).
 *
 *   exit_timer_open(&t, &ev, tid, ...)     per vCPU, before the interval
 *   exit_timer_window(&t, start, 0)        at its start
 *   exit_timer_drain(&t)                   as often as convenient
 *   exit_timer_window(&t, start, stop)     at its end
 *   exit_timer_result(&t, &times)          drains the rest
 *   exit_timer_close(&t)
 */
#ifndef PLERIG_EXIT_TIMER_H
#define PLERIG_EXIT_TIMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "measure/perf_ring.h"

#define EXIT_TIMES_REASONS 16 /* distinct reasons kept per vCPU; the rest are summed in other_* */

/*
 * Buffer pages per vCPU thread (512 KiB with 4 KiB pages): about 7000
 * exits with their entries; drained every 50 ms while measuring, that is
 * 140000 exits per second per vCPU before records are lost (and counted).
 */
#define EXIT_TIMER_PAGES 128u

struct exit_reason_time {
	uint32_t reason; /* kvm_exit's exit_reason as the kernel recorded it */
	uint64_t count;
	uint64_t ns;
};

/* The exits of one vCPU thread inside the measured interval. */
struct exit_times {
	bool valid;	   /* measured; see the run's exit_times_why where not */
	uint64_t exits;	   /* timed: exit and entry both inside the interval */
	uint64_t ns;	   /* total time of the timed exits */
	uint64_t seen;	   /* kvm_exit records inside the interval, timed or not */
	uint64_t cut;	   /* exits straddling an edge of the interval, not timed */
	uint64_t unpaired; /* exits without their entry or entries without their exit */
	uint64_t lost;	   /* records the kernel dropped: > 0 means the figures are incomplete */
	unsigned nr_reasons;
	struct exit_reason_time reason[EXIT_TIMES_REASONS]; /* by time, longest first */
	uint64_t other_count, other_ns;			    /* reasons beyond the table */
};

/* The timed exits of @reason in @t (count and ns 0 when none). */
struct exit_reason_time exit_times_reason(const struct exit_times *t, uint32_t reason);

/* ---- pairing exits with entries: the logic, apart from perf ---- */

struct exit_pairing {
	uint64_t start_ns, stop_ns; /* the interval; stop_ns UINT64_MAX while it runs */
	bool pending;		    /* an exit waits for its entry */
	uint64_t pending_ns;
	uint32_t pending_reason;
	uint64_t last_ns; /* time of the last record: they must not go back */
	struct exit_times t;
};

/* Nothing counts until exit_pairing_window() sets a start. */
void exit_pairing_init(struct exit_pairing *p);
/* The measured interval; @stop_ns 0 while it runs. */
void exit_pairing_window(struct exit_pairing *p, uint64_t start_ns, uint64_t stop_ns);
void exit_pairing_exit(struct exit_pairing *p, uint64_t t_ns, uint32_t reason);
void exit_pairing_entry(struct exit_pairing *p, uint64_t t_ns);
/* @n records dropped here: the exit waiting for its entry (if any) cannot be timed. */
void exit_pairing_lost(struct exit_pairing *p, uint64_t n);
/* The figures, with an exit still waiting at the end counted as cut. */
void exit_pairing_result(const struct exit_pairing *p, struct exit_times *out);

/* ---- the perf side ---- */

struct trace_field;

/* Which tracepoints time what: kvm:kvm_exit (exit_reason) to kvm:kvm_entry. */
struct exit_timer_events {
	const char *tracefs;
	const char *system;
	const char *exit_event, *entry_event;
	/* the exit event's reason field in its raw record; NULL: every reason is 0 */
	const struct trace_field *reason;
};

struct exit_timer {
	int exit_fd, entry_fd; /* -1 when closed */
	uint64_t exit_id, entry_id;
	const struct trace_field *reason;
	struct perf_ring ring;
	struct exit_pairing pairing;
	/*
	 * Records dropped since the last drain show up as PERF_RECORD_LOST
	 * only once the kernel writes again: at the end they are read from
	 * the events instead (PERF_FORMAT_LOST, Linux >= 6.0); on older
	 * kernels a buffer found full counts as at least one record lost.
	 */
	bool lost_readable;
	bool saw_full;
};

/*
 * Sample @ev's two events in thread @tid into one buffer of @pages pages.
 * 0, or -errno with @err saying what failed and the fix.
 */
int exit_timer_open(struct exit_timer *t, const struct exit_timer_events *ev, pid_t tid,
		    unsigned pages, char *err, size_t errlen);
void exit_timer_window(struct exit_timer *t, uint64_t start_ns, uint64_t stop_ns);
/* Pair what the buffer holds and free its space. */
void exit_timer_drain(struct exit_timer *t);
/* Drain, then the figures so far, with every record the kernel dropped counted. */
void exit_timer_result(struct exit_timer *t, struct exit_times *out);
/* Harmless on a closed or failed timer. */
void exit_timer_close(struct exit_timer *t);

#endif
