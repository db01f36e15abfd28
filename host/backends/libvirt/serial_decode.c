// SPDX-License-Identifier: GPL-2.0
#include "backends/libvirt/serial_decode.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

_Static_assert(PLERIG_MAX_VCPUS <= 64, "serial_report.vcpus_seen is a uint64_t");

static enum serial_decode_status corrupt(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static enum serial_decode_status corrupt(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return SERIAL_CORRUPT;
}

/* Where the first frame starts: after anything the firmware printed. */
static size_t find_magic(const uint8_t *data, size_t len)
{
	const uint32_t magic = PLERIG_FRAME_MAGIC;
	for (size_t i = 0; i + sizeof(magic) <= len; i++)
		if (!memcmp(data + i, &magic, sizeof(magic)))
			return i;
	return len;
}

static size_t max_payload(unsigned type)
{
	switch (type) {
	case PLERIG_FRAME_HELLO:
		return sizeof(struct plerig_frame_hello);
	case PLERIG_FRAME_VCPU:
		return PLERIG_FRAME_VCPU_MAX;
	case PLERIG_FRAME_END:
		return sizeof(struct plerig_frame_end);
	}
	return 0;
}

struct cursor {
	const uint8_t *p;
	size_t left;
};

static int take(struct cursor *c, void *out, size_t n)
{
	if (c->left < n)
		return -1;
	memcpy(out, c->p, n);
	c->p += n;
	c->left -= n;
	return 0;
}

static int decode_histogram(struct cursor *c, uint64_t *hist, const char *name, unsigned vcpu,
			    char *err, size_t errlen)
{
	uint32_t n;
	if (take(c, &n, sizeof(n)))
		return corrupt(err, errlen, "vCPU %u: %s histogram cut short", vcpu, name);
	if (n > PLERIG_HIST_BUCKETS || (size_t)n * sizeof(struct plerig_frame_bucket) > c->left)
		return corrupt(err, errlen,
			       "vCPU %u: %s histogram claims %u buckets, %zu bytes left", vcpu,
			       name, n, c->left);
	long last = -1;
	for (uint32_t i = 0; i < n; i++) {
		struct plerig_frame_bucket b = {0};
		take(c, &b, sizeof(b)); /* cannot fail: n buckets fit, checked above */
		if (b.bucket >= PLERIG_HIST_BUCKETS || (long)b.bucket <= last)
			return corrupt(err, errlen,
				       "vCPU %u: %s histogram bucket %u out of order or range",
				       vcpu, name, b.bucket);
		last = b.bucket;
		hist[b.bucket] = b.count;
	}
	return 0;
}

static int decode_vcpu(struct serial_report *rep, unsigned index, const uint8_t *payload,
		       size_t len, char *err, size_t errlen)
{
	if (index >= rep->nr_vcpus)
		return corrupt(err, errlen, "results for vCPU %u of a VM with %u", index,
			       rep->nr_vcpus);
	if (rep->vcpus_seen & (1ull << index))
		return corrupt(err, errlen, "results for vCPU %u twice", index);
	struct plerig_vcpu_result *r = &rep->vcpus[index];
	struct cursor c = {payload, len};
	memset(r, 0, sizeof(*r));
	if (take(&c, r, PLERIG_FRAME_VCPU_FIXED))
		return corrupt(err, errlen, "vCPU %u: %zu-byte result, shorter than its fixed part",
			       index, len);
	if (r->state > PLERIG_VCPU_FAULT)
		return corrupt(err, errlen, "vCPU %u: state %u out of range", index, r->state);
	if (decode_histogram(&c, r->hist_wait, "wait", index, err, errlen) ||
	    decode_histogram(&c, r->hist_hold, "hold", index, err, errlen) ||
	    decode_histogram(&c, r->hist_kick, "kick", index, err, errlen))
		return -1;
	if (c.left)
		return corrupt(err, errlen, "vCPU %u: %zu stray bytes after the histograms", index,
			       c.left);
	rep->vcpus_seen |= 1ull << index;
	return 0;
}

static unsigned popcount(uint64_t v)
{
	return (unsigned)__builtin_popcountll(v);
}

/* The END frame closes the report: what it announces must be what came. */
static enum serial_decode_status check_end(const struct serial_report *rep, char *err,
					   size_t errlen)
{
	const struct plerig_frame_end *e = &rep->end;
	if (e->status >= PLERIG_END_STATUS_COUNT)
		return corrupt(err, errlen, "end frame with status %u", e->status);
	if (e->nr_vcpus != popcount(rep->vcpus_seen))
		return corrupt(err, errlen, "end frame announces %u vCPU results, %u arrived",
			       e->nr_vcpus, popcount(rep->vcpus_seen));
	/* a vCPU 0 that ran the storm said hello first: without it, the first
	 * frame was lost (a damaged magic makes it look like firmware noise) */
	if (e->status != PLERIG_END_BAD_CONFIG && !rep->have_hello)
		return corrupt(err, errlen, "results without the hello frame that starts them");
	if (e->status == PLERIG_END_OK && e->nr_vcpus != rep->nr_vcpus)
		return corrupt(err, errlen, "results for %u of %u vCPUs", e->nr_vcpus,
			       rep->nr_vcpus);
	return SERIAL_COMPLETE;
}

enum serial_decode_status serial_decode(const uint8_t *data, size_t len, struct serial_report *rep,
					char *err, size_t errlen)
{
	const size_t hsize = sizeof(struct plerig_frame_header);
	rep->have_hello = rep->have_end = false;
	rep->vcpus_seen = 0;
	if (rep->nr_vcpus > PLERIG_MAX_VCPUS)
		return corrupt(err, errlen, "%u vCPUs: the decoder tracks at most %u",
			       rep->nr_vcpus, (unsigned)PLERIG_MAX_VCPUS);
	size_t at = rep->noise = find_magic(data, len);
	rep->used = at;
	while (len - at >= hsize) {
		struct plerig_frame_header h;
		memcpy(&h, data + at, hsize);
		if (h.magic != PLERIG_FRAME_MAGIC)
			return corrupt(err, errlen, "no frame at byte %zu (magic 0x%08x)", at,
				       h.magic);
		const size_t most = max_payload(h.type);
		if (!most)
			return corrupt(err, errlen, "unknown frame type %u at byte %zu", h.type,
				       at);
		if (h.length > most)
			return corrupt(err, errlen,
				       "frame at byte %zu: %u-byte payload, type %u allows %zu", at,
				       h.length, h.type, most);
		if (len - at - hsize < h.length)
			break; /* the rest has not been written yet */
		const uint8_t *payload = data + at + hsize;
		const size_t covered = hsize - offsetof(struct plerig_frame_header, type) - 4;
		uint32_t crc = plerig_crc32_update(0, data + at + 4, covered);
		crc = plerig_crc32_update(crc, payload, h.length);
		if (crc != h.crc)
			return corrupt(err, errlen,
				       "frame at byte %zu: CRC 0x%08x, computed 0x%08x", at, h.crc,
				       crc);
		if (rep->have_end)
			return corrupt(err, errlen, "frame at byte %zu after the end frame", at);
		if (h.type == PLERIG_FRAME_VCPU) {
			if (decode_vcpu(rep, h.index, payload, h.length, err, errlen))
				return SERIAL_CORRUPT;
		} else if (h.length != most) {
			return corrupt(err, errlen,
				       "frame at byte %zu: %u-byte payload, type %u needs %zu", at,
				       h.length, h.type, most);
		} else if (h.type == PLERIG_FRAME_HELLO) {
			if (rep->have_hello)
				return corrupt(err, errlen, "a second hello frame at byte %zu", at);
			memcpy(&rep->hello, payload, sizeof(rep->hello));
			rep->have_hello = true;
		} else {
			memcpy(&rep->end, payload, sizeof(rep->end));
			rep->have_end = true;
		}
		at += hsize + h.length;
		rep->used = at;
	}
	return rep->have_end ? check_end(rep, err, errlen) : SERIAL_INCOMPLETE;
}
