// SPDX-License-Identifier: GPL-2.0
#include "support/trace_sampler.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "measure/trace_counter.h"

int trace_sampler_open(struct trace_sampler *s, const char *tracefs, const char *system,
		       const char *event, pid_t tid, unsigned data_pages, char *err, size_t errlen)
{
	struct perf_event_attr attr;
	char what[96];

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->tid = tid;
	memset(&attr, 0, sizeof(attr));
	attr.sample_period = 1; /* every hit */
	attr.sample_type = PERF_SAMPLE_RAW;
	attr.wakeup_events = 1;
	int fd = trace_perf_open(&attr, tracefs, system, event, tid, err, errlen);
	if (fd < 0)
		return fd;
	snprintf(what, sizeof(what), "%s:%s", system, event);
	int rc = perf_ring_map(&s->ring, fd, data_pages, what, err, errlen);
	if (rc) {
		close(fd);
		return rc;
	}
	s->fd = fd;
	return 0;
}

struct sample_call {
	trace_sample_fn fn;
	void *arg;
	unsigned long n;
};

static void on_record(uint32_t type, const void *body, size_t size, void *arg)
{
	struct sample_call *c = arg;
	uint32_t raw_size;
	if (type != PERF_RECORD_SAMPLE || size < sizeof(raw_size))
		return;
	memcpy(&raw_size, body, sizeof(raw_size)); /* PERF_SAMPLE_RAW: u32 size, then the bytes */
	if (sizeof(raw_size) + raw_size > size)
		return;
	c->fn((const uint8_t *)body + sizeof(raw_size), raw_size, c->arg);
	c->n++;
}

unsigned long trace_sampler_drain(struct trace_sampler *s, trace_sample_fn fn, void *arg)
{
	struct sample_call c = {.fn = fn, .arg = arg};
	perf_ring_drain(&s->ring, on_record, &c);
	return c.n;
}

void trace_sampler_close(struct trace_sampler *s)
{
	perf_ring_unmap(&s->ring);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}
