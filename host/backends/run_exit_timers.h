/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --exit-times for a backend whose vCPU threads are on this host (kvm:
 * our own threads; libvirt: QEMU's): one exit timer per vCPU thread
 * (measure/exit_timer.h), drained while the run waits, the figures of the
 * measured interval put into the records, and every reason one cannot be
 * had put into r->exit_times_why.
 *
 *   run_exit_timers_prepare(&x, r, ple)        before the run (nothing if not asked)
 *   run_exit_timers_open(&x, r, g, tid)        per vCPU, before the interval
 *   run_exit_timers_drain(&x)                  on every poll
 *   run_exit_timers_interval(&x, r, t0, 0)     at its start
 *   run_exit_timers_interval(&x, r, t0, t1, module)  at its end, after the deltas
 *   run_exit_timers_close(&x)
 */
#ifndef PLERIG_RUN_EXIT_TIMERS_H
#define PLERIG_RUN_EXIT_TIMERS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "measure/exit_timer.h"
#include "measure/tracefs.h"
#include "model/results.h"

struct run_exit_timers {
	unsigned n;	      /* vCPUs; 0 when not timing */
	struct exit_timer *t; /* n */
	bool *tried;	      /* n: open was attempted (t[g] holds fds when it worked) */
	char tracefs[PATH_MAX];
	struct trace_format fmt; /* kvm:kvm_exit */
	const struct trace_field *reason;
};

/* When r->variant asks for exit times: tracefs, kvm_exit's layout, a timer per vCPU. */
void run_exit_timers_prepare(struct run_exit_timers *x, struct variant_result *r,
			     const struct ple_probe *ple);
/* Start timing vCPU @g's thread @tid; a failure becomes r->exit_times_why. */
void run_exit_timers_open(struct run_exit_timers *x, struct variant_result *r, unsigned g,
			  pid_t tid);
void run_exit_timers_drain(struct run_exit_timers *x);
/*
 * The measured interval: @stop_ns 0 at its start; at its end the figures
 * go into r->records[g].exit_times and are checked (run_check_exit_times,
 * @module naming the KVM module in its reasons).
 */
void run_exit_timers_interval(struct run_exit_timers *x, struct variant_result *r,
			      uint64_t start_ns, uint64_t stop_ns, const char *module);
void run_exit_timers_close(struct run_exit_timers *x);

#endif
