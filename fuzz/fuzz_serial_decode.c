// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the serial frame decoder (backends/libvirt/serial_decode.c).
 * The first byte picks the VM's vCPU count and whether the CRCs are fixed
 * up first: random bytes rarely carry a right CRC, so half the inputs get
 * past it and exercise the frame contents.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/libvirt/serial_decode.h"

static void fix_crcs(uint8_t *p, size_t len)
{
	const size_t hsize = sizeof(struct plerig_frame_header);
	size_t at = 0;
	while (at + hsize <= len) {
		struct plerig_frame_header h;
		memcpy(&h, p + at, hsize);
		if (h.magic != PLERIG_FRAME_MAGIC) {
			at++;
			continue;
		}
		if (h.length > len - at - hsize)
			return;
		const size_t covered = hsize - offsetof(struct plerig_frame_header, type) - 4;
		uint32_t crc = plerig_crc32_update(0, p + at + 4, covered);
		h.crc = plerig_crc32_update(crc, p + at + hsize, h.length);
		memcpy(p + at, &h, hsize);
		at += hsize + h.length;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const unsigned nr_vcpus =
	    1 + (data[0] >> 1) % (PLERIG_MAX_VCPUS + 1); /* one too many too */
	const size_t len = size - 1;
	static struct plerig_vcpu_result vcpus[PLERIG_MAX_VCPUS + 1];
	uint8_t *log = malloc(len ? len : 1); /* exactly @len: ASan sees a read past the log */
	if (!log)
		abort();
	memcpy(log, data + 1, len);
	if (data[0] & 1)
		fix_crcs(log, len);
	struct serial_report rep = {.nr_vcpus = nr_vcpus, .vcpus = vcpus};
	char err[256];
	enum serial_decode_status st = serial_decode(log, len, &rep, err, sizeof(err));
	if (rep.used > len || rep.noise > rep.used)
		abort();
	if (st == SERIAL_COMPLETE && (!rep.have_end || rep.end.nr_vcpus > nr_vcpus))
		abort();
	free(log);
	return 0;
}
