// SPDX-License-Identifier: GPL-2.0
#include <stdint.h>

#include "plerig/histogram.h"
#include "storm/locks.h"
#include "storm/relax.h"
#include "storm/storm.h"

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

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
static inline void record(struct plerig_vcpu_result *r, const struct thresholds *t, int contended,
			  uint64_t wait, uint64_t hold)
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
	}
	r->hold_total_cycles += hold;
	if (hold > r->hold_max_cycles)
		r->hold_max_cycles = hold;
	r->hist_hold[plerig_hist_bucket(hold)]++;
	if (hold > t->hold_preempt) {
		r->holder_preemptions++;
		r->preempted_hold_cycles += hold;
	}
}

void storm_run(struct plerig_shared *sh, unsigned me)
{
	const struct plerig_config *cfg = &sh->config;
	struct plerig_vcpu_result *r = &sh->vcpu[me];
	const struct lock_ops *ops = lock_ops_for(cfg->lock, cfg->relax);
	const uint64_t cs_cycles = cfg->cs_cycles;
	const uint64_t think_cycles = cfg->think_cycles;
	const struct thresholds t = {cfg->stall_cycles, cfg->hold_preempt_cycles};
	volatile uint64_t *counter = &sh->lock.protected_counter;
	uint32_t phase;

	r->apic_id = me;
	__atomic_store_n(&r->state, PLERIG_VCPU_READY, __ATOMIC_RELEASE);
	while ((phase = phase_of(sh)) == PLERIG_PHASE_BOOT)
		RELAX_pause();
	__atomic_store_n(&r->state, PLERIG_VCPU_RUNNING, __ATOMIC_RELEASE);

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
		}
		const uint64_t t0 = rdtsc();
		const int contended = ops->acquire(&sh->lock, me);
		const uint64_t t1 = rdtsc();
		*counter = *counter + 1;
		spin_until(t1 + cs_cycles);
		ops->release(&sh->lock, me);
		const uint64_t t2 = rdtsc();
		phase = phase_of(sh);
		if (measured_start && phase == PLERIG_PHASE_MEASURE) {
			record(r, &t, contended, t1 - t0, t2 - t1);
			r->measure_end_tsc = t2;
		} else
			r->unmeasured_acquisitions++;
		spin_until(t2 + think_cycles);
	}
	__atomic_store_n(&r->state, PLERIG_VCPU_DONE, __ATOMIC_RELEASE);
}
