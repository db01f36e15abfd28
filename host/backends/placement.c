// SPDX-License-Identifier: GPL-2.0
#include "backends/placement.h"

int placement_cpu(const struct variant *v, unsigned g)
{
	return v->pin_each ? (int)v->pcpus[g % v->nr_pcpus] : -1;
}

unsigned placement_cpus(const struct variant *v, unsigned g, const unsigned **cpus)
{
	if (!v->pin_each) {
		*cpus = v->pcpus;
		return v->nr_pcpus;
	}
	*cpus = &v->pcpus[g % v->nr_pcpus];
	return 1;
}
