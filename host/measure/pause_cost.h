/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one PAUSE costs on this CPU, in TSC cycles: Intel's PLE window
 * counts time at the TSC's rate and AMD's pause filter counts PAUSEs, and
 * a PAUSE takes about 10 to 140 cycles depending on the CPU, so the same
 * window means very different spin counts on different machines.
 */
#ifndef PLERIG_PAUSE_COST_H
#define PLERIG_PAUSE_COST_H

#include <stdbool.h>
#include <stdint.h>

struct pause_cost {
	bool valid;
	double tsc_cycles; /* per PAUSE: the least of a few tries (interruptions only add) */
	double ns;	   /* the same at the TSC's rate */
	uint64_t tsc_khz;
	unsigned pauses; /* per try */
	char why[128];	 /* when not valid */
};

/* A few tries of a loop of PAUSEs on this thread, a few ms in all. */
void pause_cost_measure(struct pause_cost *out);

#endif
