/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every figure a guest reports about itself is untrusted input: a broken
 * or hostile guest can write anything into shared memory or its serial
 * frames. Before a run counts as good, its records go through one check,
 * the same for every backend (the phase driver for kvm and native, the
 * libvirt backend after decoding the frames): each vCPU's state, sums that
 * must not overflow, counts that must nest (stalls within contended
 * acquisitions within acquisitions, ...), histograms that add up to the
 * acquisitions, times that fit the measured interval, and the lock's
 * exclusion (the protected counter against the acquisitions, summed
 * without wrapping).
 */
#ifndef PLERIG_GUEST_FIGURES_H
#define PLERIG_GUEST_FIGURES_H

#include <stddef.h>

#include "model/results.h"

/*
 * The TSC cycles a vCPU may report for the measured interval: the
 * interval (r->interval_s at r->tsc_khz), or the host's window from the
 * MEASURE flip to the STOP flip where that is longer (it reads the
 * counters in between: a busy host can take a while), plus 2 % and
 * 10 ms. 0 without a TSC rate.
 */
uint64_t guest_figures_max_cycles(const struct variant_result *r);

/*
 * What is wrong with the figures of record @rec of @r, in @why (one line),
 * returning -1; 0 when they are possible.
 */
int guest_figures_check_vcpu(const struct variant_result *r, const struct vcpu_record *rec,
			     char *why, size_t len);

/*
 * All records of @r and each VM's exclusion, once the records are filled
 * in and r->interval_s and r->tsc_khz are set: 0, or -1 with the first
 * impossible figure recorded as the run's failure ("VM 0 vCPU 1: guest
 * reported impossible figures: ...").
 */
int run_check_guest_figures(struct variant_result *r);

#endif
