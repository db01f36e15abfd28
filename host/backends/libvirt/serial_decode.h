/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoder of the guest's result frames (plerig/frame.h), as they arrive
 * in the serial log. It decodes the whole log each time it is called: the
 * log is small, and a stateless decoder cannot get out of step. Every
 * length, index and bucket is bounds-checked before it is used: the log is
 * written by a guest, which is input like any other.
 */
#ifndef PLERIG_SERIAL_DECODE_H
#define PLERIG_SERIAL_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plerig/abi.h"
#include "plerig/frame.h"

struct serial_report {
	unsigned nr_vcpus;		  /* in: vCPUs the VM has */
	struct plerig_vcpu_result *vcpus; /* in: nr_vcpus entries, filled from VCPU frames */
	bool have_hello;
	struct plerig_frame_hello hello;
	bool have_end;
	struct plerig_frame_end end;
	uint64_t vcpus_seen; /* bit i: a VCPU frame for vCPU i arrived */
	size_t noise;	     /* bytes before the first frame (firmware output) */
	size_t used;	     /* bytes up to the end of the last whole frame */
};

enum serial_decode_status {
	SERIAL_INCOMPLETE = 0, /* valid so far; the END frame has not arrived */
	SERIAL_COMPLETE = 1,   /* the END frame arrived and the report is whole */
	SERIAL_CORRUPT = -1,   /* err says what is wrong and where */
};

/* Decode @len bytes of log into @rep (its nr_vcpus and vcpus set by the caller). */
enum serial_decode_status serial_decode(const uint8_t *data, size_t len, struct serial_report *rep,
					char *err, size_t errlen);

#endif
