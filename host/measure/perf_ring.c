// SPDX-License-Identifier: GPL-2.0
#include "measure/perf_ring.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/errbuf.h"

#define MAX_RECORD 65536 /* a record's size is a u16 */

int perf_ring_map(struct perf_ring *r, int fd, unsigned data_pages, const char *what, char *err,
		  size_t errlen)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	memset(r, 0, sizeof(*r));
	if (!data_pages || (data_pages & (data_pages - 1)))
		return errbuf_errno(err, errlen, -EINVAL,
				    "the sample buffer needs a power-of-two page count, not %u",
				    data_pages);
	r->rec = malloc(MAX_RECORD);
	if (!r->rec)
		return errbuf_errno(err, errlen, -ENOMEM,
				    "out of memory for the sample buffer of %s", what);
	r->data_len = (size_t)data_pages * page;
	r->map_len = r->data_len + page;
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->map == MAP_FAILED) {
		int e = errno;
		errbuf_printf(err, errlen, "mmap of the %zu-byte perf ring buffer for %s: %s%s",
			      r->map_len, what, strerror(e),
			      e == EPERM ? " (raise kernel.perf_event_mlock_kb, or run as root)"
					 : "");
		r->map = NULL;
		perf_ring_unmap(r);
		return -e;
	}
	return 0;
}

static void copy_out(const struct perf_ring *r, const uint8_t *data, uint64_t from, void *to,
		     size_t len)
{
	const size_t at = (size_t)(from % r->data_len);
	const size_t first = len < r->data_len - at ? len : r->data_len - at;
	memcpy(to, data + at, first);
	memcpy((uint8_t *)to + first, data, len - first); /* the part that wrapped */
}

unsigned long perf_ring_drain(struct perf_ring *r, perf_record_fn fn, void *arg)
{
	if (!r->map)
		return 0;
	struct perf_event_mmap_page *meta = r->map;
	const uint8_t *data = (const uint8_t *)r->map + (r->map_len - r->data_len);
	const uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;
	unsigned long n = 0;

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		copy_out(r, data, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		copy_out(r, data, tail, r->rec, h.size);
		if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			uint64_t lost; /* struct { u64 id; u64 lost; } */
			memcpy(&lost, r->rec + sizeof(h) + 8, sizeof(lost));
			r->lost += lost;
		}
		fn(h.type, r->rec + sizeof(h), h.size - sizeof(h), arg);
		n++;
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

uint64_t perf_ring_pending(const struct perf_ring *r)
{
	if (!r->map)
		return 0;
	const struct perf_event_mmap_page *meta = r->map;
	return __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE) - meta->data_tail;
}

void perf_ring_unmap(struct perf_ring *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	free(r->rec);
	r->map = NULL;
	r->rec = NULL;
}
