/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every hit of a tracepoint in one thread, recorded with its raw fields
 * (PERF_SAMPLE_RAW) in a perf ring buffer: for looking at what the exact
 * counters counted (which exit reasons), and for testing a filter on real
 * records. Samples beyond the buffer are lost, and counted as lost.
 */
#ifndef PLERIG_TRACE_SAMPLER_H
#define PLERIG_TRACE_SAMPLER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "measure/perf_ring.h"

struct trace_sampler {
	int fd;
	struct perf_ring ring; /* ring.lost: records the kernel dropped, the buffer was full */
	pid_t tid;
};

/*
 * Record @system:@event in thread @tid into a buffer of @data_pages pages
 * (a power of two). 0, or -errno with @err.
 */
int trace_sampler_open(struct trace_sampler *s, const char *tracefs, const char *system,
		       const char *event, pid_t tid, unsigned data_pages, char *err, size_t errlen);

/* Called with each record's raw bytes (layout: the event's format file). */
typedef void (*trace_sample_fn)(const void *raw, size_t size, void *arg);

/* Hand every record so far to @fn and free its space. Returns how many. */
unsigned long trace_sampler_drain(struct trace_sampler *s, trace_sample_fn fn, void *arg);
void trace_sampler_close(struct trace_sampler *s);

#endif
