/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Encoder of the result frames (plerig/frame.h). Freestanding, so the
 * host's tests build the same encoder that the guest runs.
 */
#ifndef PLERIG_GUEST_FRAMES_H
#define PLERIG_GUEST_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "plerig/frame.h"

struct frame_buf {
	uint8_t *data;
	size_t cap;
	size_t len;
	int overflow; /* a frame did not fit: it and every later one were dropped */
};

/* A frame with a payload given whole. */
void frame_put(struct frame_buf *b, unsigned type, unsigned index, const void *payload, size_t len);
/* A VCPU frame; without histograms (a fault report at ring 0) each is sent empty. */
void frame_put_vcpu(struct frame_buf *b, unsigned index, const struct plerig_vcpu_result *r,
		    int with_histograms);

#endif
