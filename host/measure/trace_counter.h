/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exact counts of one tracepoint in one thread, from perf_event_open
 * (PERF_TYPE_TRACEPOINT, pid = the thread, cpu = -1): the kernel counts
 * every hit, no sampling, no buffer to overflow. An optional ftrace filter
 * ("exit_reason == 40") makes it count only the matching events.
 *
 * Use: open for a vCPU thread before the measured interval (counting
 * starts at open), read at both edges, subtract.
 */
#ifndef PLERIG_TRACE_COUNTER_H
#define PLERIG_TRACE_COUNTER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct trace_counter {
	int fd; /* -1 when closed */
	pid_t tid;
};

/*
 * Count @system:@event (e.g. "kvm", "kvm_exit") in thread @tid of this
 * process (or any thread this process may trace). @filter may be NULL.
 * 0, or -errno with @err saying which step failed and the fix.
 */
int trace_counter_open(struct trace_counter *c, const char *tracefs, const char *system,
		       const char *event, pid_t tid, const char *filter, char *err, size_t errlen);
/* The count since open. 0, or -errno with @err. */
int trace_counter_read(const struct trace_counter *c, uint64_t *count, char *err, size_t errlen);
/* Harmless on a closed counter. */
void trace_counter_close(struct trace_counter *c);

/*
 * perf_event_open for a tracepoint, shared with the sampler: @attr is
 * completed with type, size and config = the tracepoint id. Returns the fd
 * or -errno with @err explaining it.
 */
struct perf_event_attr;
int trace_perf_open(struct perf_event_attr *attr, const char *tracefs, const char *system,
		    const char *event, pid_t tid, char *err, size_t errlen);

#endif
