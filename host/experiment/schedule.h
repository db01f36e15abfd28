/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The order in time of every run: discarded warm-up rounds first, then
 * the measured rounds, interleaved (A B C A B C), shuffled per round with
 * a seed, or sequential (A A A B B B).
 */
#ifndef PLERIG_SCHEDULE_H
#define PLERIG_SCHEDULE_H

#include "model/plan.h"

struct slot {
	unsigned variant;
	unsigned round; /* rounds < discard are thrown away */
};

/* calloc'ed (discard + repeat) * nr_variants slots, or NULL. */
struct slot *schedule_plan(enum run_order order, unsigned nr_variants, unsigned discard,
			   unsigned repeat, unsigned long long seed, unsigned *nr_slots);

/*
 * One host's schedule when each host of --connect runs its own, all at
 * once: its variants are @first .. @first + @count - 1 of the experiment's,
 * ordered as schedule_plan orders @count variants, with the same seed
 * (hosts with as many variants see them in the same order). calloc'ed, or
 * NULL.
 */
struct slot *schedule_host(enum run_order order, unsigned first, unsigned count, unsigned discard,
			   unsigned repeat, unsigned long long seed, unsigned *nr_slots);

#endif
