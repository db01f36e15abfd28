// SPDX-License-Identifier: GPL-2.0
#include "support/trace_sampler.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "measure/trace_counter.h"

int trace_sampler_open(struct trace_sampler *s, const char *tracefs, const char *system,
		       const char *event, pid_t tid, unsigned data_pages, char *err, size_t errlen)
{
	struct perf_event_attr attr;
	long page = sysconf(_SC_PAGESIZE);

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->tid = tid;
	if (!data_pages || (data_pages & (data_pages - 1))) {
		snprintf(err, errlen, "the sample buffer needs a power-of-two page count, not %u",
			 data_pages);
		return -EINVAL;
	}
	memset(&attr, 0, sizeof(attr));
	attr.sample_period = 1; /* every hit */
	attr.sample_type = PERF_SAMPLE_RAW;
	attr.wakeup_events = 1;
	int fd = trace_perf_open(&attr, tracefs, system, event, tid, err, errlen);
	if (fd < 0)
		return fd;
	s->data_len = (size_t)data_pages * (size_t)page;
	s->map_len = s->data_len + (size_t)page;
	s->map = mmap(NULL, s->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (s->map == MAP_FAILED) {
		int e = errno;
		snprintf(err, errlen, "mmap of the %zu-byte perf ring buffer for %s:%s: %s%s",
			 s->map_len, system, event, strerror(e),
			 e == EPERM ? " (raise kernel.perf_event_mlock_kb, or run as root)" : "");
		s->map = NULL;
		close(fd);
		return -e;
	}
	s->fd = fd;
	return 0;
}

unsigned long trace_sampler_drain(struct trace_sampler *s, trace_sample_fn fn, void *arg)
{
	struct perf_event_mmap_page *meta = s->map;
	const uint8_t *data = (const uint8_t *)s->map + sysconf(_SC_PAGESIZE);
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;
	unsigned long n = 0;
	uint8_t *rec = malloc(65536);
	if (!rec)
		return 0;

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		/* a record may wrap around the end of the buffer: copy it out whole */
		for (size_t i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(tail + i) % s->data_len];
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		for (size_t i = 0; i < h.size; i++)
			rec[i] = data[(tail + i) % s->data_len];
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + sizeof(uint32_t)) {
			uint32_t size;
			memcpy(&size, rec + sizeof(h), sizeof(size));
			if (sizeof(h) + sizeof(size) + size <= h.size) {
				fn(rec + sizeof(h) + sizeof(size), size, arg);
				n++;
			}
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			uint64_t lost;
			memcpy(&lost, rec + sizeof(h) + 8, sizeof(lost));
			s->lost += lost;
		}
		tail += h.size;
	}
	free(rec);
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

void trace_sampler_close(struct trace_sampler *s)
{
	if (s->map)
		munmap(s->map, s->map_len);
	s->map = NULL;
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}
