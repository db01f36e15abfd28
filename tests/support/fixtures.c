// SPDX-License-Identifier: GPL-2.0
#include "support/fixtures.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

struct variant fixture_variant(enum backend_kind backend, unsigned vcpus,
			       enum plerig_lock_kind lock, enum plerig_relax_kind relax)
{
	struct variant v;

	memset(&v, 0, sizeof(v));
	v.backend = backend;
	v.lock = lock;
	v.relax = relax;
	v.ring = PLERIG_RING_KERNEL;
	v.vms = 1;
	v.vcpus = vcpus;
	v.pin_each = true;
	v.cs_cycles = 100;
	v.think_cycles = 50;
	v.stall_us = 50.0;
	v.warmup_s = 0.2;
	v.duration_s = 2.0;
	/* plerig's default is 10 s; with the load average at 28 the stop of an
	 * over-committed ring-0 storm once took longer here */
	v.timeout_s = 60.0;
	v.pv_spin_threshold = 1u << 15;
	v.halt_poll_ns = HALT_POLL_HOST;
	return v;
}

void fixture_pin(struct variant *v, const unsigned *cpus, unsigned n)
{
	ck_assert_uint_le(n, PLERIG_MAX_PCPUS);
	v->nr_pcpus = n;
	memcpy(v->pcpus, cpus, n * sizeof(cpus[0]));
}

void fixture_result(struct variant_result *r, const struct variant *v, double interval_s)
{
	const unsigned n = v->vms * v->vcpus;

	memset(r, 0, sizeof(*r));
	r->variant = *v;
	r->ok = true;
	r->interval_s = interval_s;
	r->tsc_khz = FIXTURE_TSC_KHZ;
	r->nr_records = n;
	r->records = calloc(n, sizeof(*r->records));
	r->protected_counter = calloc(v->vms, sizeof(*r->protected_counter));
	ck_assert_ptr_nonnull(r->records);
	ck_assert_ptr_nonnull(r->protected_counter);
	for (unsigned i = 0; i < n; i++) {
		struct vcpu_record *rec = &r->records[i];
		rec->vm = i / v->vcpus;
		rec->vcpu = i % v->vcpus;
		rec->host_cpu = v->pin_each && v->nr_pcpus ? (int)v->pcpus[i % v->nr_pcpus] : -1;
		rec->tid = FIXTURE_TID + (pid_t)i;
	}
}

void fixture_busy_vcpu(struct vcpu_record *rec, uint64_t acq)
{
	struct plerig_vcpu_result *g = &rec->guest;

	g->acquisitions = acq;
	g->unmeasured_acquisitions = 10;
	g->contended = acq / 2;
	g->wait_total_cycles = 4 * acq;
	g->wait_max_cycles = 900;
	g->stalls = 3;
	g->stalled_cycles = 200000000;
	g->hold_max_cycles = 40;
	g->holder_preemptions = 2;
	rec->sched.wait_ns = 500000000;
	rec->sched.run_ns = 1500000000;
	rec->sched.timeslices = 77;
}

void fixture_series(struct series *s, const struct variant *v, unsigned nr_runs)
{
	memset(s, 0, sizeof(*s));
	s->variant = *v;
	s->nr_runs = nr_runs;
	s->runs = calloc(nr_runs, sizeof(*s->runs));
	ck_assert_ptr_nonnull(s->runs);
}
