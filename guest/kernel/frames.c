// SPDX-License-Identifier: GPL-2.0
#include "kernel/frames.h"

/* Byte copy: the guest has no libc, and the payloads are small. */
static void copy_bytes(uint8_t *dst, const void *src, size_t n)
{
	const uint8_t *s = src;
	for (size_t i = 0; i < n; i++)
		dst[i] = s[i];
}

static int reserve(struct frame_buf *b, size_t n)
{
	if (b->overflow || b->cap - b->len < n) {
		b->overflow = 1;
		return -1;
	}
	return 0;
}

/* Fill in the header of the frame that starts at @start and ends at b->len. */
static void seal(struct frame_buf *b, size_t start, unsigned type, unsigned index)
{
	struct plerig_frame_header h = {
	    .magic = PLERIG_FRAME_MAGIC,
	    .type = (uint16_t)type,
	    .index = (uint16_t)index,
	    .length = (uint32_t)(b->len - start - sizeof(h)),
	};
	const size_t covered =
	    sizeof(h) - __builtin_offsetof(struct plerig_frame_header, type) - sizeof(h.crc);
	h.crc = plerig_crc32_update(0, &h.type, covered);
	h.crc = plerig_crc32_update(h.crc, b->data + start + sizeof(h), h.length);
	copy_bytes(b->data + start, &h, sizeof(h));
}

void frame_put(struct frame_buf *b, unsigned type, unsigned index, const void *payload, size_t len)
{
	const size_t start = b->len;
	if (reserve(b, sizeof(struct plerig_frame_header) + len))
		return;
	copy_bytes(b->data + start + sizeof(struct plerig_frame_header), payload, len);
	b->len = start + sizeof(struct plerig_frame_header) + len;
	seal(b, start, type, index);
}

/* A histogram as a count and its non-zero buckets; room was reserved for the worst case. */
static void put_histogram(struct frame_buf *b, const uint64_t *hist, int with_buckets)
{
	uint32_t n = 0;
	const size_t count_at = b->len;
	b->len += sizeof(n);
	for (unsigned i = 0; with_buckets && i < PLERIG_HIST_BUCKETS; i++) {
		if (!hist[i])
			continue;
		const struct plerig_frame_bucket e = {.bucket = i, .count = hist[i]};
		copy_bytes(b->data + b->len, &e, sizeof(e));
		b->len += sizeof(e);
		n++;
	}
	copy_bytes(b->data + count_at, &n, sizeof(n));
}

void frame_put_vcpu(struct frame_buf *b, unsigned index, const struct plerig_vcpu_result *r,
		    int with_histograms)
{
	const size_t start = b->len;
	const size_t most = with_histograms ? PLERIG_FRAME_VCPU_MAX : PLERIG_FRAME_VCPU_BARE;
	if (reserve(b, sizeof(struct plerig_frame_header) + most))
		return;
	b->len = start + sizeof(struct plerig_frame_header);
	copy_bytes(b->data + b->len, r, PLERIG_FRAME_VCPU_FIXED);
	b->len += PLERIG_FRAME_VCPU_FIXED;
	put_histogram(b, r->hist_wait, with_histograms);
	put_histogram(b, r->hist_hold, with_histograms);
	put_histogram(b, r->hist_kick, with_histograms);
	seal(b, start, PLERIG_FRAME_VCPU, index);
}
