/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mmap'ed ring buffer of a sampling perf event: map it, and hand each
 * record written since the last drain to a callback, copied out whole even
 * where it wraps around the end of the buffer. Records the kernel could
 * not write (the buffer was full) arrive as PERF_RECORD_LOST: they are
 * added up in @lost and also handed to the callback.
 */
#ifndef PLERIG_PERF_RING_H
#define PLERIG_PERF_RING_H

#include <stddef.h>
#include <stdint.h>

struct perf_ring {
	void *map; /* metadata page + data pages; NULL when unmapped */
	size_t map_len;
	size_t data_len;
	uint64_t lost; /* records the kernel dropped, from PERF_RECORD_LOST */
	uint8_t *rec;  /* one record, copied out of the ring */
};

/*
 * Map @data_pages pages (a power of two) of perf event @fd's buffer.
 * 0, or -errno with @err (@what names the event in it).
 */
int perf_ring_map(struct perf_ring *r, int fd, unsigned data_pages, const char *what, char *err,
		  size_t errlen);

/* @type is the record's PERF_RECORD_*; @body/@size what follows its header. */
typedef void (*perf_record_fn)(uint32_t type, const void *body, size_t size, void *arg);

/* Hand every record so far to @fn, oldest first, and free its space. Returns how many. */
unsigned long perf_ring_drain(struct perf_ring *r, perf_record_fn fn, void *arg);
/* Bytes written and not yet drained. */
uint64_t perf_ring_pending(const struct perf_ring *r);
/* Harmless on an unmapped ring. */
void perf_ring_unmap(struct perf_ring *r);

#endif
