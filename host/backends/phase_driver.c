// SPDX-License-Identifier: GPL-2.0
#include "backends/phase_driver.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "util/interrupt.h"

#define POLL_FAST_NS 20000ull	 /* while waiting for boot and the first acquisition */
#define POLL_SLOW_NS 50000000ull /* while measuring: the main thread stays out of the way */

int variant_result_init(struct variant_result *r, const struct variant *v)
{
	memset(r, 0, sizeof(*r));
	r->variant = *v;
	r->ok = true;
	r->nr_records = v->vms * v->vcpus;
	r->records = calloc(r->nr_records, sizeof(r->records[0]));
	r->protected_counter = calloc(v->vms, sizeof(r->protected_counter[0]));
	if (!r->records || !r->protected_counter)
		return phase_driver_fail(r, "out of memory for %u vCPU records", r->nr_records);
	return 0;
}

int phase_driver_fail(struct variant_result *r, const char *fmt, ...)
{
	r->ok = false;
	if (r->error[0]) /* keep the first cause */
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
	return -1;
}

uint64_t phase_driver_elapsed(const struct phase_driver *d)
{
	return monotonic_ns() - d->t0;
}

static unsigned nr_units(const struct phase_driver *d)
{
	return d->v->vms * d->v->vcpus;
}

static struct plerig_vcpu_result *guest_result(struct phase_driver *d, unsigned g)
{
	return &d->ops->shared(d->ctx, g / d->v->vcpus)->vcpu[g % d->v->vcpus];
}

void phase_driver_set_phase(struct phase_driver *d, enum plerig_phase phase)
{
	for (unsigned i = 0; i < d->v->vms; i++)
		__atomic_store_n(&d->ops->shared(d->ctx, i)->phase, phase, __ATOMIC_RELEASE);
}

static enum plerig_phase phase_of(struct phase_driver *d, unsigned vm)
{
	return __atomic_load_n(&d->ops->shared(d->ctx, vm)->phase, __ATOMIC_ACQUIRE);
}

/* A unit that left early failed; Ctrl-C ends the run too. */
static int check_units(struct phase_driver *d)
{
	for (unsigned g = 0; g < nr_units(d); g++) {
		const char *message = NULL;
		int outcome = d->ops->outcome(d->ctx, g, &message);
		if (outcome == UNIT_FAILED)
			return phase_driver_fail(d->r, "%s", message ? message : "unit failed");
		if (outcome == UNIT_DONE && phase_of(d, g / d->v->vcpus) != PLERIG_PHASE_STOP)
			return phase_driver_fail(
			    d->r, "VM %u vCPU %u finished before it was told to stop",
			    g / d->v->vcpus, g % d->v->vcpus);
	}
	if (interrupt_requested())
		return phase_driver_fail(d->r, "interrupted by signal %d", interrupt_signal());
	return 0;
}

static bool all_ready(struct phase_driver *d)
{
	for (unsigned g = 0; g < nr_units(d); g++)
		if (!d->ops->ready(d->ctx, g))
			return false;
	return true;
}

static bool any_acquired(struct phase_driver *d)
{
	for (unsigned g = 0; g < nr_units(d); g++) {
		const struct plerig_vcpu_result *res = guest_result(d, g);
		if (__atomic_load_n(&res->unmeasured_acquisitions, __ATOMIC_RELAXED) ||
		    __atomic_load_n(&res->acquisitions, __ATOMIC_RELAXED))
			return true;
	}
	return false;
}

static bool all_done(struct phase_driver *d)
{
	for (unsigned g = 0; g < nr_units(d); g++)
		if (d->ops->outcome(d->ctx, g, NULL) != UNIT_DONE)
			return false;
	return true;
}

/*
 * Poll @done every @poll_ns until it holds (1), or @deadline passes (0),
 * or a unit fails or Ctrl-C comes (-1).
 */
static int wait_for(struct phase_driver *d, bool (*done)(struct phase_driver *), uint64_t deadline,
		    uint64_t poll_ns)
{
	for (;;) {
		if (done && done(d))
			return 1;
		if (check_units(d))
			return -1;
		uint64_t now = monotonic_ns();
		if (now >= deadline)
			return 0;
		sleep_ns(deadline - now < poll_ns ? deadline - now : poll_ns);
	}
}

static const char *state_name(uint32_t s)
{
	static const char *const names[] = {"OFF", "READY", "RUNNING", "DONE", "FAULT"};
	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

static int report_hang(struct phase_driver *d, const char *stage)
{
	for (unsigned g = 0; g < nr_units(d); g++) {
		if (d->ops->outcome(d->ctx, g, NULL) == UNIT_DONE)
			continue;
		return phase_driver_fail(d->r,
					 "watchdog: VM %u vCPU %u did not %s within %.1f s (guest "
					 "state %s); stopped it",
					 g / d->v->vcpus, g % d->v->vcpus, stage, d->v->timeout_s,
					 state_name(guest_result(d, g)->state));
	}
	return phase_driver_fail(d->r, "watchdog: the VMs did not %s within %.1f s", stage,
				 d->v->timeout_s);
}

static uint64_t timeout_ns(const struct phase_driver *d)
{
	return (uint64_t)(d->v->timeout_s * 1e9);
}

static int boot(struct phase_driver *d)
{
	int rc = wait_for(d, all_ready, monotonic_ns() + timeout_ns(d), POLL_FAST_NS);
	if (rc == 0)
		return report_hang(d, "come up");
	if (rc < 0)
		return -1;
	d->r->timing.ready_ns = phase_driver_elapsed(d);
	uint64_t emulated = 0;
	struct kvm_stats_snapshot s;
	for (unsigned g = 0; g < nr_units(d); g++)
		if (d->ops->kvm_stats(d->ctx, g, &s) && s.valid[KVM_STAT_INSN_EMULATION])
			emulated += s.value[KVM_STAT_INSN_EMULATION];
	d->r->timing.setup_insn_emulated = emulated;
	return 0;
}

static int warm_up(struct phase_driver *d)
{
	const uint64_t start = monotonic_ns();
	const uint64_t end = start + (uint64_t)(d->v->warmup_s * 1e9);
	const uint64_t first_deadline = start + timeout_ns(d);
	phase_driver_set_phase(d, PLERIG_PHASE_WARMUP);
	d->ops->open_gate(d->ctx);
	/* the first acquisition may take longer than the warm-up itself */
	int rc =
	    wait_for(d, any_acquired, first_deadline > end ? first_deadline : end, POLL_FAST_NS);
	if (rc == 0)
		return report_hang(d, "take the lock once");
	if (rc < 0)
		return -1;
	d->r->timing.first_acq_ns = phase_driver_elapsed(d);
	return wait_for(d, NULL, end, POLL_SLOW_NS) < 0 ? -1 : 0;
}

struct snapshot {
	struct schedstat sched;
	struct kvm_stats_snapshot kvm;
	struct ple_counts ple;
};

static void take_snapshots(struct phase_driver *d, struct snapshot *s)
{
	char err[256];
	for (unsigned g = 0; g < nr_units(d); g++) {
		/* an unreadable counter is reported as invalid, not as a failed run */
		if (schedstat_read(d->ops->tid(d->ctx, g), &s[g].sched, err, sizeof(err)))
			memset(&s[g].sched, 0, sizeof(s[g].sched));
		if (!d->ops->kvm_stats(d->ctx, g, &s[g].kvm))
			memset(&s[g].kvm, 0, sizeof(s[g].kvm));
		d->ops->ple_counts(d->ctx, g, &s[g].ple);
	}
}

static int measure(struct phase_driver *d)
{
	const unsigned n = nr_units(d);
	struct snapshot *before = calloc(n, sizeof(*before));
	struct snapshot *after = calloc(n, sizeof(*after));
	int rc = -1;
	if (!before || !after) {
		phase_driver_fail(d->r, "out of memory for snapshots");
		goto out;
	}
	take_snapshots(d, before);
	const uint64_t m0 = monotonic_ns();
	phase_driver_set_phase(d, PLERIG_PHASE_MEASURE);
	if (wait_for(d, NULL, m0 + (uint64_t)(d->v->duration_s * 1e9), POLL_SLOW_NS) < 0)
		goto out;
	const uint64_t m1 = monotonic_ns();
	take_snapshots(d, after);
	phase_driver_set_phase(d, PLERIG_PHASE_STOP);
	d->r->interval_s = (double)(m1 - m0) / 1e9;
	for (unsigned g = 0; g < n; g++) {
		schedstat_delta(&before[g].sched, &after[g].sched, &d->r->records[g].sched);
		kvm_stats_delta(&before[g].kvm, &after[g].kvm, &d->r->records[g].kvm);
		ple_counts_delta(&before[g].ple, &after[g].ple, &d->r->records[g].ple);
	}
	rc = 0;
out:
	free(before);
	free(after);
	return rc;
}

static int stop(struct phase_driver *d)
{
	int rc = wait_for(d, all_done, monotonic_ns() + timeout_ns(d), POLL_FAST_NS);
	if (rc == 0)
		return report_hang(d, "stop");
	if (rc < 0)
		return -1;
	d->r->timing.stopped_ns = phase_driver_elapsed(d);
	return 0;
}

static void collect(struct phase_driver *d)
{
	for (unsigned g = 0; g < nr_units(d); g++) {
		struct vcpu_record *rec = &d->r->records[g];
		rec->vm = g / d->v->vcpus;
		rec->vcpu = g % d->v->vcpus;
		rec->host_cpu = d->ops->host_cpu(d->ctx, g);
		rec->tid = d->ops->tid(d->ctx, g);
		rec->guest = *guest_result(d, g);
	}
	for (unsigned i = 0; i < d->v->vms; i++)
		d->r->protected_counter[i] = d->ops->shared(d->ctx, i)->lock.protected_counter;
}

static int check_mutual_exclusion(struct phase_driver *d)
{
	for (unsigned i = 0; i < d->v->vms; i++) {
		uint64_t sum = 0;
		for (unsigned j = 0; j < d->v->vcpus; j++) {
			const struct plerig_vcpu_result *res =
			    &d->r->records[i * d->v->vcpus + j].guest;
			sum += res->acquisitions + res->unmeasured_acquisitions;
		}
		if (sum != d->r->protected_counter[i])
			return phase_driver_fail(
			    d->r,
			    "VM %u: the lock did not exclude: %llu acquisitions "
			    "but the protected counter reads %llu",
			    i, (unsigned long long)sum,
			    (unsigned long long)d->r->protected_counter[i]);
	}
	return 0;
}

int phase_driver_run(struct phase_driver *d)
{
	if (boot(d) || warm_up(d) || measure(d) || stop(d))
		return -1;
	collect(d);
	return check_mutual_exclusion(d);
}
