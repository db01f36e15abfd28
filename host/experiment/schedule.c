// SPDX-License-Identifier: GPL-2.0
#include "experiment/schedule.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>

struct slot *schedule_plan(enum run_order order, unsigned nr_variants, unsigned discard,
			   unsigned repeat, unsigned long long seed, unsigned *nr_slots)
{
	const unsigned rounds = discard + repeat;
	const unsigned n = rounds * nr_variants;
	struct slot *slots = calloc(n ? n : 1, sizeof(*slots));
	unsigned *perm = calloc(nr_variants ? nr_variants : 1, sizeof(*perm));
	gsl_rng *rng = order == ORDER_SHUFFLE ? gsl_rng_alloc(gsl_rng_mt19937) : NULL;
	if (!slots || !perm || (order == ORDER_SHUFFLE && !rng)) {
		free(slots);
		free(perm);
		if (rng)
			gsl_rng_free(rng);
		return NULL;
	}
	if (rng)
		gsl_rng_set(rng, (unsigned long)seed);
	unsigned k = 0;
	if (order == ORDER_SEQUENTIAL) {
		for (unsigned v = 0; v < nr_variants; v++)
			for (unsigned r = 0; r < rounds; r++)
				slots[k++] = (struct slot){v, r};
	} else {
		for (unsigned r = 0; r < rounds; r++) {
			for (unsigned v = 0; v < nr_variants; v++)
				perm[v] = v;
			if (rng)
				gsl_ran_shuffle(rng, perm, nr_variants, sizeof(perm[0]));
			for (unsigned v = 0; v < nr_variants; v++)
				slots[k++] = (struct slot){perm[v], r};
		}
	}
	free(perm);
	if (rng)
		gsl_rng_free(rng);
	*nr_slots = n;
	return slots;
}

struct slot *schedule_host(enum run_order order, unsigned first, unsigned count, unsigned discard,
			   unsigned repeat, unsigned long long seed, unsigned *nr_slots)
{
	struct slot *slots = schedule_plan(order, count, discard, repeat, seed, nr_slots);
	for (unsigned i = 0; slots && i < *nr_slots; i++)
		slots[i].variant += first;
	return slots;
}
