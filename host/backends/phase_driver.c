// SPDX-License-Identifier: GPL-2.0
#include "backends/phase_driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/guest_figures.h"
#include "backends/guest_status.h"
#include "backends/run_result.h"
#include "backends/unit_evidence.h"
#include "util/clock.h"
#include "util/errbuf.h"
#include "util/interrupt.h"
#include "util/pinned_thread.h"

#define POLL_FAST_NS 20000ull	 /* while waiting for boot and the first acquisition */
#define POLL_SLOW_NS 50000000ull /* while measuring: the main thread stays out of the way */
#define WATCH_NS     10000000ull /* how often the units' CPU time is looked at in a wait */

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

/* Every unit's thread now, as the start of a wait named @name (for the watchdog's report). */
static void mark_units(struct phase_driver *d, const char *name)
{
	const uint64_t now = monotonic_ns();
	d->mark_name = name;
	d->watched_ns = now;
	for (unsigned g = 0; d->marks && g < nr_units(d); g++)
		unit_mark_take(&d->marks[g], d->ops->tid(d->ctx, g), now);
}

/*
 * After STOP the placement has done its job, and a unit's thread only has
 * to run a few microseconds to leave: one the host has left runnable
 * without a CPU for UNIT_STARVED_NS goes to the other CPUs, where it soon
 * preempts its lock partner's spin. At load 20-30 on 2 CPUs, of the stops
 * still running 1 s after STOP, 5 of 11 took 4.5-10 s more without the
 * move (the watchdog's 10 s failures); 22 moved ones were done within
 * 0.14 s of the move.
 */
static void rescue(struct phase_driver *d, unsigned g, uint64_t now)
{
	struct unit_evidence e;
	const pid_t tid = d->ops->tid(d->ctx, g);
	unit_evidence_take(&e, &d->marks[g], tid, now);
	if (!unit_evidence_starved(&e))
		return;
	/* once: a thread with nowhere to go (one allowed CPU) is left to the watchdog */
	d->rescued[g] = pinned_thread_move_off(tid, e.state.cpu) == 0 ? UNIT_MOVED : UNIT_STAYED;
}

/* Note which units' threads got CPU time (for the report), and rescue the stop. */
static void watch_units(struct phase_driver *d)
{
	const uint64_t now = monotonic_ns();
	if (!d->marks || now - d->watched_ns < WATCH_NS)
		return;
	d->watched_ns = now;
	for (unsigned g = 0; g < nr_units(d); g++) {
		if (d->ops->outcome(d->ctx, g, NULL) == UNIT_DONE)
			continue;
		unit_mark_watch(&d->marks[g], d->ops->tid(d->ctx, g), now);
		if (d->rescue && d->rescued && d->rescued[g] == UNIT_NOT_MOVED &&
		    now - d->marks[g].last_ran_ns >= UNIT_STARVED_NS)
			rescue(d, g, now);
	}
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
		watch_units(d);
		uint64_t now = monotonic_ns();
		if (now >= deadline)
			return 0;
		sleep_ns(deadline - now < poll_ns ? deadline - now : poll_ns);
	}
}

/*
 * "; unfinished: VM 0 vCPU 0 RUNNING locked 1 ..., vCPU 2 ...": every unit
 * but @chosen that did not finish, with its queue node, so that a hang in
 * a queued lock shows the whole queue (whom each waits for, who halted,
 * who was kicked), not one waiter in it.
 */
static void describe_unfinished(struct phase_driver *d, unsigned chosen, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (unsigned g = 0; g < nr_units(d) && used < len; g++) {
		if (g == chosen || d->ops->outcome(d->ctx, g, NULL) == UNIT_DONE)
			continue;
		char node[160];
		guest_node_describe(d->ops->shared(d->ctx, g / d->v->vcpus), g % d->v->vcpus, node,
				    sizeof(node));
		const int n =
		    snprintf(buf + used, len - used, "%sVM %u vCPU %u %s%s%s",
			     used ? ", " : "; unfinished too: ", g / d->v->vcpus, g % d->v->vcpus,
			     guest_state_name(guest_result(d, g)->state), node[0] ? " " : "", node);
		used += n > 0 ? (size_t)n : 0;
	}
}

/*
 * Name the unit that did not finish, with what the host did with its
 * thread since the wait began: one the host gave no CPU first, since a
 * waiter spinning behind it is only its victim. The other unfinished
 * units follow, each with its queue node.
 */
static int report_hang(struct phase_driver *d, const char *stage)
{
	const uint64_t now = monotonic_ns();
	int chosen = -1;
	struct unit_evidence e = {0};
	for (unsigned g = 0; g < nr_units(d); g++) {
		if (d->ops->outcome(d->ctx, g, NULL) == UNIT_DONE)
			continue;
		struct unit_evidence ge = {0};
		if (d->marks)
			unit_evidence_take(&ge, &d->marks[g], d->ops->tid(d->ctx, g), now);
		if (chosen < 0 || (unit_evidence_starved(&ge) && !unit_evidence_starved(&e))) {
			chosen = (int)g;
			e = ge;
		}
	}
	if (chosen < 0)
		return run_fail(d->r, "watchdog: the VMs did not %s within %.1f s", stage,
				d->v->timeout_s);
	const unsigned g = (unsigned)chosen;
	char lock[160], host[320] = "", others[320];
	guest_lock_describe(d->ops->shared(d->ctx, g / d->v->vcpus), g % d->v->vcpus, lock,
			    sizeof(lock));
	describe_unfinished(d, g, others, sizeof(others));
	if (d->marks)
		unit_evidence_describe(&e, d->mark_name, host, sizeof(host));
	const bool moved = d->rescued && d->rescued[g] == UNIT_MOVED;
	return run_fail(
	    d->r,
	    "watchdog: VM %u vCPU %u did not %s within %.1f s (guest state %s; %s)%s%s%s%s; "
	    "stopped it",
	    g / d->v->vcpus, g % d->v->vcpus, stage, d->v->timeout_s,
	    guest_state_name(guest_result(d, g)->state), lock, host[0] ? ": " : "", host,
	    moved ? ", even moved off its CPU after 1 s without one" : "", others);
}

static uint64_t timeout_ns(const struct phase_driver *d)
{
	return (uint64_t)(d->v->timeout_s * 1e9);
}

static int boot(struct phase_driver *d)
{
	mark_units(d, "boot began");
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
	d->ops->open_start_line(d->ctx);
	mark_units(d, "the start line opened");
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

static void take_snapshots(struct phase_driver *d, struct counter_snapshot *s, const char *when)
{
	char err[ERRBUF_SIZE];
	for (unsigned g = 0; g < nr_units(d); g++) {
		/*
		 * A unit's thread may have ended before this thread came to read it
		 * (it saw STOP, reported DONE and returned): what it kept then. An
		 * unreadable counter is reported as unmeasured, not as a failed run
		 * and not as no run time (its CPU time would look like other work's).
		 */
		const struct schedstat_kept *kept =
		    d->ops->kept_sched ? d->ops->kept_sched(d->ctx, g) : NULL;
		if (schedstat_read_or_kept(d->ops->tid(d->ctx, g), kept, &s[g].sched, err,
					   sizeof(err))) {
			memset(&s[g].sched, 0, sizeof(s[g].sched));
			if (!d->r->sched_why[0])
				errbuf_printf(d->r->sched_why, sizeof(d->r->sched_why),
					      "VM %u vCPU %u's run time was not read %s: %s",
					      g / d->v->vcpus, g % d->v->vcpus, when, err);
		}
		if (!d->ops->kvm_stats(d->ctx, g, &s[g].kvm))
			memset(&s[g].kvm, 0, sizeof(s[g].kvm));
		d->ops->ple_counts(d->ctx, g, &s[g].ple);
	}
}

/*
 * Each VM's lock counter, read where the run time is (take_snapshots): at
 * the end, each becomes the acquisitions between the two readings. Without
 * memory the figure is left out (NULL), not made up.
 */
static void count_lock_moves(struct phase_driver *d, uint64_t *moves, bool after)
{
	for (unsigned m = 0; moves && m < d->v->vms; m++) {
		const uint64_t now = __atomic_load_n(
		    &d->ops->shared(d->ctx, m)->lock.protected_counter, __ATOMIC_RELAXED);
		moves[m] = after ? now - moves[m] : now;
	}
}

static int measure(struct phase_driver *d)
{
	struct interval_snapshots snap = {0};
	if (interval_snapshots_alloc(&snap, d->r))
		return -1;
	uint64_t *moves = calloc(d->v->vms, sizeof(*moves));
	interval_snapshots_load(&snap, d->r, false);
	take_snapshots(d, snap.before, "at the start of the interval");
	count_lock_moves(d, moves, false);
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
		mark_units(d, "STOP");
		take_snapshots(d, snap.after, "at its end");
		count_lock_moves(d, moves, true);
		d->r->window_acquisitions = moves;
		moves = NULL;
		interval_snapshots_load(&snap, d->r, true);
		d->r->interval_s = (double)(m1 - m0) / 1e9;
		d->r->window_s = d->r->interval_s; /* MEASURE to STOP, as the units saw it */
		interval_snapshots_delta(&snap, d->r);
		if (d->ops->interval)
			d->ops->interval(d->ctx, m0, m1);
	}
	interval_snapshots_free(&snap);
	free(moves);
	return rc < 0 ? -1 : 0;
}

static int stop(struct phase_driver *d)
{
	d->rescue = true;
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
	/* without marks (out of memory) the watchdog still reports, without the host's side */
	d->marks = calloc(nr_units(d), sizeof(d->marks[0]));
	d->rescued = calloc(nr_units(d), sizeof(d->rescued[0]));
	int rc = boot(d) || warm_up(d) || measure(d) || stop(d) ? -1 : 0;
	free(d->marks);
	free(d->rescued);
	d->marks = NULL;
	d->rescued = NULL;
	if (rc)
		return -1;
	collect(d);
	return run_check_guest_figures(d->r);
}
