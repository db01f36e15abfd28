// SPDX-License-Identifier: GPL-2.0
#include "backends/phase_driver.h"

#include <stdlib.h>
#include <string.h>

#include "backends/guest_figures.h"
#include "backends/guest_status.h"
#include "backends/run_result.h"
#include "util/clock.h"
#include "util/errbuf.h"
#include "util/interrupt.h"

#define POLL_FAST_NS 20000ull	 /* while waiting for boot and the first acquisition */
#define POLL_SLOW_NS 50000000ull /* while measuring: the main thread stays out of the way */

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
			return run_fail(d->r, "%s", message ? message : "unit failed");
		if (outcome == UNIT_DONE && phase_of(d, g / d->v->vcpus) != PLERIG_PHASE_STOP)
			return run_fail(d->r, "VM %u vCPU %u finished before it was told to stop",
					g / d->v->vcpus, g % d->v->vcpus);
	}
	if (interrupt_requested())
		return run_fail(d->r, "interrupted by signal %d", interrupt_signal());
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
		if (d->ops->drain)
			d->ops->drain(d->ctx);
		uint64_t now = monotonic_ns();
		if (now >= deadline)
			return 0;
		sleep_ns(deadline - now < poll_ns ? deadline - now : poll_ns);
	}
}

static int report_hang(struct phase_driver *d, const char *stage)
{
	for (unsigned g = 0; g < nr_units(d); g++) {
		if (d->ops->outcome(d->ctx, g, NULL) == UNIT_DONE)
			continue;
		char lock[160];
		guest_lock_describe(d->ops->shared(d->ctx, g / d->v->vcpus), g % d->v->vcpus, lock,
				    sizeof(lock));
		return run_fail(d->r,
				"watchdog: VM %u vCPU %u did not %s within %.1f s (guest "
				"state %s; %s); stopped it",
				g / d->v->vcpus, g % d->v->vcpus, stage, d->v->timeout_s,
				guest_state_name(guest_result(d, g)->state), lock);
	}
	return run_fail(d->r, "watchdog: the VMs did not %s within %.1f s", stage, d->v->timeout_s);
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

static void take_snapshots(struct phase_driver *d, struct counter_snapshot *s)
{
	char err[ERRBUF_SIZE];
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
	struct interval_snapshots snap = {0};
	if (interval_snapshots_alloc(&snap, d->r))
		return -1;
	interval_snapshots_load(&snap, d->r, false);
	take_snapshots(d, snap.before);
	const uint64_t m0 = monotonic_ns();
	if (d->ops->interval)
		d->ops->interval(d->ctx, m0, 0);
	phase_driver_set_phase(d, PLERIG_PHASE_MEASURE);
	int rc = wait_for(d, NULL, m0 + (uint64_t)(d->v->duration_s * 1e9), POLL_SLOW_NS);
	if (rc >= 0) {
		/*
		 * STOP first, then the clock and the counters: the interval then
		 * holds every iteration a unit counted (each began after MEASURE
		 * and ended before it saw STOP), however long this thread waits
		 * for a CPU on a busy host, and the counters cover the interval.
		 */
		phase_driver_set_phase(d, PLERIG_PHASE_STOP);
		const uint64_t m1 = monotonic_ns();
		take_snapshots(d, snap.after);
		interval_snapshots_load(&snap, d->r, true);
		d->r->interval_s = (double)(m1 - m0) / 1e9;
		d->r->window_s = d->r->interval_s; /* MEASURE to STOP, as the units saw it */
		interval_snapshots_delta(&snap, d->r);
		if (d->ops->interval)
			d->ops->interval(d->ctx, m0, m1);
	}
	interval_snapshots_free(&snap);
	return rc < 0 ? -1 : 0;
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
		rec->lifetime.valid =
		    d->ops->lifetime && d->ops->lifetime(d->ctx, g, &rec->lifetime);
	}
	for (unsigned i = 0; i < d->v->vms; i++)
		d->r->protected_counter[i] = d->ops->shared(d->ctx, i)->lock.protected_counter;
}

int phase_driver_run(struct phase_driver *d)
{
	if (boot(d) || warm_up(d) || measure(d) || stop(d))
		return -1;
	collect(d);
	return run_check_guest_figures(d->r);
}
