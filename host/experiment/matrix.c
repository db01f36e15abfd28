// SPDX-License-Identifier: GPL-2.0
#include "experiment/matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/backend_limits.h"

static enum plerig_ring resolve_ring(enum ring_choice c, enum plerig_ring ring_auto)
{
	switch (c) {
	case RING_CHOICE_USER:
		return PLERIG_RING_USER;
	case RING_CHOICE_KERNEL:
		return PLERIG_RING_KERNEL;
	case RING_CHOICE_AUTO:
		break;
	}
	return ring_auto;
}

/* Everything but the axes is the plan's common template. */
static void fill_common(struct variant *v, const struct run_plan *o, enum plerig_ring ring_auto)
{
	*v = o->common;
	v->ring = resolve_ring(o->ring, ring_auto);
}

/* Can @b run PLE @ple with halt polling @halt_poll (model/backend_limits.h)? */
static bool can_run(enum backend_kind b, enum ple_mode ple, int64_t halt_poll)
{
	return !(ple == PLE_OFF && backend_cannot(b, SETTING_PLE_OFF)) &&
	       !(halt_poll != HALT_POLL_HOST && backend_cannot(b, SETTING_HALT_POLL));
}

unsigned plan_left_out(const struct run_plan *o, struct left_out *out, unsigned max)
{
	unsigned n = 0;
	for (unsigned b = 0; b < o->nr_backends; b++) {
		const enum backend_kind k = o->backends[b];
		for (unsigned p = 0; p < o->nr_ples && n < max; p++)
			if (o->ples[p] == PLE_OFF && backend_cannot(k, SETTING_PLE_OFF))
				out[n++] = (struct left_out){k, SETTING_PLE_OFF, "--ple off",
							     backend_cannot(k, SETTING_PLE_OFF)};
		for (unsigned h = 0; h < o->nr_halt_polls && n < max; h++) {
			if (o->halt_polls[h] == HALT_POLL_HOST ||
			    !backend_cannot(k, SETTING_HALT_POLL))
				continue;
			out[n] = (struct left_out){k, SETTING_HALT_POLL, "",
						   backend_cannot(k, SETTING_HALT_POLL)};
			snprintf(out[n].what, sizeof(out[n].what), "--halt-poll %lld",
				 (long long)o->halt_polls[h]);
			n++;
		}
	}
	return n;
}

int plan_expand(const struct run_plan *o, const enum plerig_ring ring_auto[BACKEND_COUNT],
		struct variant **out, unsigned *nr)
{
	size_t total = (size_t)o->nr_backends * o->nr_vcpu_counts * o->nr_locks * o->nr_ples *
		       o->nr_relaxes * o->nr_halt_polls;
	struct variant *v;
	unsigned n = 0;

	*out = NULL;
	*nr = 0;
	if (total == 0)
		return 0;
	/* each variant carries a 4 KiB CPU list: keep them off the stack */
	v = calloc(total, sizeof(*v));
	if (!v)
		return -1;
	for (unsigned b = 0; b < o->nr_backends; b++)
		for (unsigned c = 0; c < o->nr_vcpu_counts; c++)
			for (unsigned l = 0; l < o->nr_locks; l++)
				for (unsigned p = 0; p < o->nr_ples; p++)
					for (unsigned r = 0; r < o->nr_relaxes; r++)
						for (unsigned h = 0; h < o->nr_halt_polls; h++) {
							/* what the backend cannot do is left
							 * out (plan_left_out says it) */
							if (!can_run(o->backends[b], o->ples[p],
								     o->halt_polls[h]))
								continue;
							fill_common(&v[n], o,
								    ring_auto[o->backends[b]]);
							v[n].backend = o->backends[b];
							/* the native baseline runs in host user
							 * space, whatever --ring says */
							if (v[n].backend == BACKEND_NATIVE)
								v[n].ring = PLERIG_RING_USER;
							v[n].vcpus = o->vcpu_counts[c];
							v[n].lock = o->locks[l];
							/* pvqspin halts and makes hypercalls: only
							 * ring 0 may */
							if (o->ring == RING_CHOICE_AUTO &&
							    v[n].lock == PLERIG_LOCK_PVQSPIN &&
							    v[n].backend != BACKEND_NATIVE)
								v[n].ring = PLERIG_RING_KERNEL;
							v[n].ple = o->ples[p];
							v[n].relax = o->relaxes[r];
							v[n].halt_poll_ns = o->halt_polls[h];
							n++;
						}
	*out = v;
	*nr = n;
	return 0;
}
