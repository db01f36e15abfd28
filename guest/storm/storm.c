// SPDX-License-Identifier: GPL-2.0
#include <stdint.h>

#include "plerig/histogram.h"
#include "storm/locks.h"
#include "storm/relax.h"
#include "storm/storm.h"
#include "storm/tsc.h"

/* Busy work of a given length that is not a lock spin: no relax inside. */
static inline uint64_t spin_until(uint64_t deadline)
{
	uint64_t now;
	do
		now = rdtsc();
	while ((int64_t)(deadline - now) > 0);
	return now;
}

static inline uint32_t phase_of(const struct plerig_shared *sh)
{
	return __atomic_load_n(&sh->phase, __ATOMIC_ACQUIRE);
}

/* Thresholds copied out of the shared config once, off the hot path. */
struct thresholds {
	uint64_t stall;
	uint64_t hold_preempt;
};

/*
 * A stall is a long wait for another holder. A long uncontended
 * acquisition is this vCPU's own preemption, which run_delay shows.
 */
/* Where steal time is not registered: a counter that never moves, read all the same. */
static const uint64_t no_steal_time;

/*
 * @stolen_in_wait / @stolen_in_hold: the vCPU's own steal time grew, i.e.
 * the hypervisor kept it off its CPU, during the wait / the hold.
 */
static inline void record(struct plerig_vcpu_result *r, const struct thresholds *t, int contended,
			  uint64_t wait, uint64_t hold, int stolen_in_wait, int stolen_in_hold)
{
	r->acquisitions++;
	r->contended += (uint64_t)contended;
	r->wait_total_cycles += wait;
	if (wait > r->wait_max_cycles)
		r->wait_max_cycles = wait;
	r->hist_wait[plerig_hist_bucket(wait)]++;
	if (contended && wait > t->stall) {
		r->stalls++;
		r->stalled_cycles += wait;
		r->stalls_self_preempted += (uint64_t)stolen_in_wait;
	}
	r->hold_total_cycles += hold;
	if (hold > r->hold_max_cycles)
		r->hold_max_cycles = hold;
	r->hist_hold[plerig_hist_bucket(hold)]++;
	if (hold > t->hold_preempt) {
		r->holder_preemptions++;
		r->preempted_hold_cycles += hold;
		r->holder_preemptions_steal += (uint64_t)stolen_in_hold;
	}
}

/* What one vCPU's storm needs, read out of the shared config once. */
struct storm {
	struct plerig_shared *sh;
	struct plerig_vcpu_result *r;
	const struct lock_ops *ops;
	unsigned me;
	uint64_t cs_cycles;
	uint64_t think_cycles;
	struct thresholds t;
	uint64_t measure_from;		 /* self-timed: TSC where MEASURE starts */
	uint64_t measure_until;		 /* self-timed: TSC where STOP starts */
	const volatile uint64_t *steal;	 /* this vCPU's steal time (ns), or no_steal_time */
	struct plerig_pv_node *pv;	 /* lock pvqspin: this vCPU's halt-path counts, else NULL */
	struct plerig_pv_counts pv_base; /* pv's counts where the measured interval began */
};

/* The halt path of the measured interval so far, after a measured iteration. */
static inline void pv_account(struct plerig_vcpu_result *r, const struct plerig_pv_node *pv,
			      const struct plerig_pv_counts *base)
{
	r->pv.halts = pv->counts.halts - base->halts;
	r->pv.kicks_sent = pv->counts.kicks_sent - base->kicks_sent;
	r->pv.kicks_received = pv->counts.kicks_received - base->kicks_received;
	r->pv.spurious_wakeups = pv->counts.spurious_wakeups - base->spurious_wakeups;
	r->pv.early_halts = pv->counts.early_halts - base->early_halts;
}

/* The phase of a self-timed run at TSC @now: the same answer on every vCPU. */
static inline uint32_t phase_at(const struct storm *s, uint64_t now)
{
	if ((int64_t)(now - s->measure_from) < 0)
		return PLERIG_PHASE_WARMUP;
	return (int64_t)(now - s->measure_until) < 0 ? PLERIG_PHASE_MEASURE : PLERIG_PHASE_STOP;
}

/*
 * The hot loop, instantiated twice (self_timed is a constant in each
 * copy): the phase comes from the host's word in memory, or from the TSC
 * this loop reads anyway, and neither copy pays for the other's test.
 */
static inline __attribute__((always_inline)) void storm_loop(struct storm *s, uint32_t phase,
							     const int self_timed)
{
	struct plerig_shared *sh = s->sh;
	struct plerig_vcpu_result *r = s->r;
	const struct lock_ops *ops = s->ops;
	const unsigned me = s->me;
	volatile uint64_t *counter = &sh->lock.protected_counter;

	/*
	 * An iteration counts only if MEASURE held at its start and at its end:
	 * the figures then cover the host's measured interval and nothing else.
	 */
	int started = 0;
	while (phase < PLERIG_PHASE_STOP) {
		const int measured_start = phase == PLERIG_PHASE_MEASURE;
		if (measured_start && !started) {
			started = 1;
			r->measure_start_tsc = rdtsc();
			if (s->pv)
				s->pv_base = s->pv->counts;
		}
		const uint64_t s0 = *s->steal;
		const uint64_t t0 = rdtsc();
		const int contended = ops->acquire(&sh->lock, me);
		const uint64_t t1 = rdtsc();
		const uint64_t s1 = *s->steal;
		*counter = *counter + 1;
		sh->lock.holder = me;
		spin_until(t1 + s->cs_cycles);
		ops->release(&sh->lock, me);
		const uint64_t t2 = rdtsc();
		const uint64_t s2 = *s->steal;
		phase = self_timed ? phase_at(s, t2) : phase_of(sh);
		if (measured_start && phase == PLERIG_PHASE_MEASURE) {
			record(r, &s->t, contended, t1 - t0, t2 - t1, s1 != s0, s2 != s1);
			r->measure_end_tsc = t2;
			if (s->pv)
				pv_account(r, s->pv, &s->pv_base);
		} else
			r->unmeasured_acquisitions++;
		if (s->pv && s->pv->kick_latency) {
			if (measured_start && phase == PLERIG_PHASE_MEASURE) {
				r->hist_kick[plerig_hist_bucket(s->pv->kick_latency)]++;
				if (s->pv->kick_latency > r->kick_latency_max_cycles)
					r->kick_latency_max_cycles = s->pv->kick_latency;
			}
			s->pv->kick_latency = 0;
		}
		spin_until(t2 + s->think_cycles);
	}
}

/*
 * pvqspin halts and kicks only where the host said it may; elsewhere it is
 * test-and-set, as Linux's virt_spin_lock() makes it, and the host, which
 * set the flag, says so in the results.
 */
static unsigned lock_to_run(const struct plerig_config *cfg)
{
	if (cfg->lock == PLERIG_LOCK_PVQSPIN && !(cfg->flags & PLERIG_CONFIG_PV_UNHALT))
		return PLERIG_LOCK_TAS;
	return cfg->lock;
}

/* Lock pvqspin's settings, in the lock's read-mostly line: every vCPU writes the same values. */
static void pv_setup(struct plerig_shared *sh)
{
	const struct plerig_config *cfg = &sh->config;
	struct plerig_lock_state *l = &sh->lock;
	__atomic_store_n(&l->pv_spin_threshold, cfg->pv_spin_threshold, __ATOMIC_RELAXED);
	__atomic_store_n(&l->pv_unhalt, (cfg->flags & PLERIG_CONFIG_PV_UNHALT) != 0,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&l->pv_preempt_check, (cfg->flags & PLERIG_CONFIG_STEAL_TIME) != 0,
			 __ATOMIC_RELAXED);
}

void storm_run(struct plerig_shared *sh, unsigned me)
{
	const struct plerig_config *cfg = &sh->config;
	const unsigned lock = lock_to_run(cfg);
	struct storm s = {
	    .sh = sh,
	    .r = &sh->vcpu[me],
	    .ops = lock_ops_for(lock, cfg->relax),
	    .me = me,
	    .cs_cycles = cfg->cs_cycles,
	    .think_cycles = cfg->think_cycles,
	    .t = {cfg->stall_cycles, cfg->hold_preempt_cycles},
	    .steal = cfg->flags & PLERIG_CONFIG_STEAL_TIME ? &sh->steal[me].steal : &no_steal_time,
	    .pv = lock == PLERIG_LOCK_PVQSPIN ? &sh->lock.pv_nodes[me] : 0,
	};
	const int self_timed = (cfg->flags & PLERIG_CONFIG_SELF_TIMED) != 0;
	uint32_t phase;

	s.r->apic_id = me;
	/* every vCPU writes the same value: no vCPU has to come first */
	__atomic_store_n(&sh->lock.pv_yield_spins, cfg->pv_yield_spins ? cfg->pv_yield_spins : 1,
			 __ATOMIC_RELAXED);
	pv_setup(sh);
	__atomic_store_n(&s.r->state, PLERIG_VCPU_READY, __ATOMIC_RELEASE);
	while ((phase = phase_of(sh)) == PLERIG_PHASE_BOOT)
		RELAX_pause();
	__atomic_store_n(&s.r->state, PLERIG_VCPU_RUNNING, __ATOMIC_RELEASE);
	if (self_timed) {
		/* start_tsc was written before the phase left BOOT (acquire above) */
		s.measure_from = sh->start_tsc + cfg->warmup_cycles;
		s.measure_until = s.measure_from + cfg->measure_cycles;
		storm_loop(&s, phase_at(&s, rdtsc()), 1);
	} else
		storm_loop(&s, phase, 0);
	__atomic_store_n(&s.r->state, PLERIG_VCPU_DONE, __ATOMIC_RELEASE);
}
