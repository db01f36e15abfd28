// SPDX-License-Identifier: GPL-2.0
#include "model/plan.h"

#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "model/verdict.h"
#include "util/cpulist.h"

unsigned allowed_host_cpus(unsigned *cpus, unsigned max)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) != 0 || CPU_COUNT(&set) == 0) {
		/* more CPUs than a cpu_set_t holds: fall back to what is online */
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		if (n < 1)
			n = 1;
		if (n > CPU_SETSIZE)
			n = CPU_SETSIZE;
		for (long i = 0; i < n; i++)
			CPU_SET((int)i, &set);
	}
	return cpulist_from_set(&set, cpus, max);
}

void run_plan_default_vcpus(struct run_plan *p)
{
	unsigned n = p->common.nr_pcpus ? p->common.nr_pcpus : 1;
	unsigned a = n < PLERIG_MAX_VCPUS ? n : PLERIG_MAX_VCPUS;
	unsigned b = 2 * n < PLERIG_MAX_VCPUS ? 2 * n : PLERIG_MAX_VCPUS;

	p->vcpu_counts[0] = a;
	p->nr_vcpu_counts = 1;
	if (b != a)
		p->vcpu_counts[p->nr_vcpu_counts++] = b;
}

void run_plan_fit_host(struct run_plan *p, unsigned cpus)
{
	if (!cpus)
		return;
	if (!p->pcpus_given) {
		p->common.nr_pcpus = cpus < PLERIG_MAX_PCPUS ? cpus : PLERIG_MAX_PCPUS;
		for (unsigned i = 0; i < p->common.nr_pcpus; i++)
			p->common.pcpus[i] = i;
	}
	if (!p->vcpus_given)
		run_plan_default_vcpus(p);
}

void run_plan_defaults(struct run_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->backends[0] = BACKEND_KVM;
	p->nr_backends = 1;
	p->locks[0] = PLERIG_LOCK_TICKET;
	p->nr_locks = 1;
	p->relaxes[0] = PLERIG_RELAX_PAUSE;
	p->relaxes[1] = PLERIG_RELAX_NOP;
	p->nr_relaxes = 2;
	p->ples[0] = PLE_ON;
	p->nr_ples = 1;
	p->halt_polls[0] = HALT_POLL_HOST;
	p->nr_halt_polls = 1;
	p->ring = RING_CHOICE_AUTO;

	struct variant *c = &p->common;
	c->vms = 1;
	c->nr_pcpus = allowed_host_cpus(c->pcpus, PLERIG_MAX_PCPUS);
	c->pin_each = true;
	c->duration_s = 3.0;
	c->warmup_s = 0.2;
	c->timeout_s = 10.0;
	c->stall_us = 50.0;
	c->cs_cycles = 100;
	c->think_cycles = 100;
	c->pv_yield_spins = 1024;
	c->pv_spin_threshold = 1u << 15; /* Linux's SPIN_THRESHOLD */
	run_plan_default_vcpus(p);

	p->repeat = 1;
	p->discard_rounds = -1;
	p->order = ORDER_INTERLEAVE;
	p->threshold_pct = VERDICT_DEFAULT_THRESHOLD_PCT;
}

bool run_plan_uses_kvm(const struct run_plan *p)
{
	for (unsigned i = 0; i < p->nr_backends; i++)
		if (p->backends[i] == BACKEND_KVM || p->backends[i] == BACKEND_LIBVIRT)
			return true;
	return false;
}
