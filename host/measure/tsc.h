/* SPDX-License-Identifier: GPL-2.0 */
/* The host TSC rate, for backends that have no KVM_GET_TSC_KHZ to ask. */
#ifndef PLERIG_TSC_H
#define PLERIG_TSC_H

#include <stdint.h>

#include "storm/tsc.h" /* rdtsc(): the native storm's clock is the same */

/*
 * TSC kHz measured against CLOCK_MONOTONIC_RAW over @window_ms; the
 * error is the clock-read jitter over the window (~1e-5 at 50 ms).
 */
uint64_t tsc_calibrate_khz(unsigned window_ms);

#endif
