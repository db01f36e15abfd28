// SPDX-License-Identifier: GPL-2.0
/*
 * Ticket, test-and-test-and-set, MCS and pv queued (pvqspin) locks, each
 * instantiated once per relax instruction. The acquire functions are named
 * plerig_acquire_<lock>_<relax> (and the queued locks' releases, which also
 * spin, plerig_release_<mcs|pvqspin>_<relax>) and kept out of line, so that
 * the spin loop of every variant can be found and checked in the built
 * binary.
 *
 * Whom a spinner waits for (pv-yield's target): for a ticket lock the
 * owner of the ticket now served, the holder or, after a release, the
 * next waiter, which a fair lock must wait for even while it is
 * preempted; for MCS the predecessor in the queue (in release, the
 * successor that has not linked in yet); for test-and-set the last
 * acquirer.
 */
#include <stddef.h>
#include <stdint.h>

#include "storm/locks.h"
#include "storm/relax.h"
#include "storm/storm.h"
#include "storm/tsc.h"

#define SPIN_ATTR __attribute__((noinline, used))
/*
 * The same, without loop alignment: GCC pads the pvqspin spin loop's head
 * with a one-byte NOP executed on the way in, which is the NOP relax's
 * byte outside every spin loop (tests/guest/test_relax_bytes.py).
 */
#if defined(__clang__)
/* clang aligns no loop head with a NOP here, and has no optimize attribute */
#define SPIN_ATTR_UNALIGNED SPIN_ATTR
#else
#define SPIN_ATTR_UNALIGNED __attribute__((noinline, used, optimize("align-loops=1")))
#endif

_Static_assert((PLERIG_MAX_VCPUS & (PLERIG_MAX_VCPUS - 1)) == 0,
	       "ticket % PLERIG_MAX_VCPUS must stay right when the ticket counter wraps");

static inline unsigned ticket_served_by(struct plerig_lock_state *l)
{
	const uint32_t head = __atomic_load_n(&l->ticket_head, __ATOMIC_RELAXED);
	return __atomic_load_n(&l->ticket_owner[head % PLERIG_MAX_VCPUS], __ATOMIC_RELAXED);
}

/* The tail's vCPU: the successor a releasing MCS holder waits to link in. */
static inline unsigned mcs_newest_waiter(struct plerig_lock_state *l)
{
	return __atomic_load_n(&l->mcs_tail, __ATOMIC_RELAXED) - 1;
}

#define DEFINE_TICKET(relax)                                                                       \
	SPIN_ATTR int plerig_acquire_ticket_##relax(struct plerig_lock_state *l, unsigned me)      \
	{                                                                                          \
		(void)me; /* pv-yield's only */                                                    \
		RELAX_STATE_##relax const uint32_t ticket =                                        \
		    __atomic_fetch_add(&l->ticket_tail, 1, __ATOMIC_RELAXED);                      \
		if (RELAX_WANTS_TARGET_##relax)                                                    \
			__atomic_store_n(&l->ticket_owner[ticket % PLERIG_MAX_VCPUS], me,          \
					 __ATOMIC_RELAXED);                                        \
		if (__atomic_load_n(&l->ticket_head, __ATOMIC_ACQUIRE) == ticket)                  \
			return 0;                                                                  \
		while (__atomic_load_n(&l->ticket_head, __ATOMIC_ACQUIRE) != ticket)               \
			RELAX_##relax(ticket_served_by(l));                                        \
		return 1;                                                                          \
	}

#define DEFINE_TAS(relax)                                                                          \
	SPIN_ATTR int plerig_acquire_tas_##relax(struct plerig_lock_state *l, unsigned me)         \
	{                                                                                          \
		(void)me; /* pv-yield's only */                                                    \
		RELAX_STATE_##relax if (!__atomic_exchange_n(&l->tas_word, 1,                      \
							     __ATOMIC_ACQUIRE)) return 0;          \
		do                                                                                 \
			while (__atomic_load_n(&l->tas_word, __ATOMIC_RELAXED))                    \
				RELAX_##relax(__atomic_load_n(&l->holder, __ATOMIC_RELAXED));      \
		while (__atomic_exchange_n(&l->tas_word, 1, __ATOMIC_ACQUIRE));                    \
		return 1;                                                                          \
	}

/* MCS links are vCPU index + 1 so that 0 means "none" (see the ABI). */

/* Queue @me behind the tail: its predecessor's link + 1, 0 when the lock was free. */
static inline uint32_t mcs_enqueue(struct plerig_lock_state *l, unsigned me)
{
	struct plerig_mcs_node *node = &l->mcs_nodes[me];
	__atomic_store_n(&node->next, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&node->locked, 1, __ATOMIC_RELAXED);
	const uint32_t prev = __atomic_exchange_n(&l->mcs_tail, me + 1, __ATOMIC_ACQ_REL);
	if (prev)
		__atomic_store_n(&l->mcs_nodes[prev - 1].next, me + 1, __ATOMIC_RELEASE);
	return prev;
}

/*
 * A queued lock's release: the successor's link + 1, after waiting for one
 * that swapped the tail but has not linked in yet; 0 when the queue emptied.
 * The caller hands the lock over (the relax needs the caller's names).
 */
#define MCS_SUCCESSOR(relax, next)                                                                 \
	do {                                                                                       \
		struct plerig_mcs_node *node = &l->mcs_nodes[me];                                  \
		next = __atomic_load_n(&node->next, __ATOMIC_ACQUIRE);                             \
		if (!next) {                                                                       \
			uint32_t self = me + 1;                                                    \
			if (__atomic_compare_exchange_n(&l->mcs_tail, &self, 0, 0,                 \
							__ATOMIC_RELEASE, __ATOMIC_RELAXED))       \
				break;                                                             \
			/* a successor swapped the tail but has not linked in yet */               \
			while (!(next = __atomic_load_n(&node->next, __ATOMIC_ACQUIRE)))           \
				RELAX_##relax(mcs_newest_waiter(l));                               \
		}                                                                                  \
	} while (0)

#define DEFINE_MCS(relax)                                                                          \
	SPIN_ATTR int plerig_acquire_mcs_##relax(struct plerig_lock_state *l, unsigned me)         \
	{                                                                                          \
		RELAX_STATE_##relax const uint32_t prev = mcs_enqueue(l, me);                      \
		if (!prev)                                                                         \
			return 0;                                                                  \
		while (__atomic_load_n(&l->mcs_nodes[me].locked, __ATOMIC_ACQUIRE))                \
			RELAX_##relax(prev - 1);                                                   \
		return 1;                                                                          \
	}                                                                                          \
	SPIN_ATTR void plerig_release_mcs_##relax(struct plerig_lock_state *l, unsigned me)        \
	{                                                                                          \
		RELAX_STATE_##relax uint32_t next;                                                 \
		MCS_SUCCESSOR(relax, next);                                                        \
		if (next)                                                                          \
			__atomic_store_n(&l->mcs_nodes[next - 1].locked, 0, __ATOMIC_RELEASE);     \
	}

/*
 * pvqspin: the MCS queue above with the paravirtual slow path of Linux's
 * pv qspinlock (kernel/locking/qspinlock_paravirt.h, pv_wait_node and
 * pv_kick_node; arch/x86/kernel/kvm.c, kvm_wait and kvm_kick_cpu). Every
 * waiter waits on its own node, the queue's head for the holder as the
 * others for their predecessor, so one protocol covers both:
 *
 * - spin up to pv_spin_threshold relaxes; every PV_EARLY_CHECK of them,
 *   look whether the predecessor's vCPU is preempted (the preempted byte
 *   KVM writes into its steal-time area) and stop spinning at once if so;
 * - then publish state HALTED, and only after a full barrier look at the
 *   lock once more: halt only if it is still not handed over;
 * - the releaser hands over, and only after a full barrier looks at the
 *   successor's state: HALTED means it halts or is about to, and the one
 *   releaser that turns it into KICKED kicks its vCPU.
 *
 * The two barriers make a lost wake-up impossible: either the waiter sees
 * the hand-over and does not halt, or the releaser sees HALTED and kicks.
 * A kick that comes before the HLT is not lost either: KVM keeps it
 * (pv_unhalted) and the next HLT returns at once, and storm_halt() halts
 * only while the state is still HALTED, checked with interrupts off.
 * A waiter that comes back with the lock still taken (a stale kick, an
 * interrupt) counts a spurious wake-up and starts over.
 */
#define PV_EARLY_CHECK 256u /* relaxes between two looks at the predecessor, as pv_wait_early */

static inline int vcpu_is_preempted(struct plerig_lock_state *l, unsigned vcpu)
{
	if (!__atomic_load_n(&l->pv_preempt_check, __ATOMIC_RELAXED))
		return 0;
	/* every environment keeps the lock inside its struct plerig_shared */
	const struct plerig_shared *sh =
	    (const struct plerig_shared *)((const char *)l - offsetof(struct plerig_shared, lock));
	return __atomic_load_n(&sh->steal[vcpu].preempted, __ATOMIC_RELAXED) &
	       PLERIG_STEAL_PREEMPTED;
}

/* The waiter, back from a halt or from not halting: was it kicked, is it the holder now? */
static inline int pv_woken(struct plerig_lock_state *l, unsigned me, int halted)
{
	struct plerig_pv_node *pv = &l->pv_nodes[me];
	const uint64_t now = rdtsc();
	if (__atomic_exchange_n(&pv->state, PLERIG_PV_RUNNING, __ATOMIC_ACQ_REL) ==
	    PLERIG_PV_KICKED) {
		pv->counts.kicks_received++;
		pv->kick_latency = now - __atomic_load_n(&pv->kick_tsc, __ATOMIC_RELAXED);
	}
	if (!__atomic_load_n(&l->mcs_nodes[me].locked, __ATOMIC_ACQUIRE))
		return 1;
	pv->counts.spurious_wakeups += (uint64_t)halted;
	return 0;
}

/* Publish HALTED, look once more, halt if still not handed over; 1 if it halted. */
static inline int pv_wait(struct plerig_lock_state *l, unsigned me, int early)
{
	struct plerig_pv_node *pv = &l->pv_nodes[me];
	__atomic_store_n(&pv->state, PLERIG_PV_HALTED, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* pairs with pv_kick's */
	if (!__atomic_load_n(&l->mcs_nodes[me].locked, __ATOMIC_RELAXED))
		return 0;
	const int halted = storm_halt(l, me, &pv->state, PLERIG_PV_HALTED);
	pv->counts.halts += (uint64_t)halted;
	pv->counts.early_halts += (uint64_t)(halted && early);
	return halted;
}

/* The releaser, after the hand-over: kick the successor if it halted. */
static void pv_kick(struct plerig_lock_state *l, unsigned me, unsigned waiter)
{
	struct plerig_pv_node *pv = &l->pv_nodes[waiter];
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* the hand-over before the state: pv_wait's */
	uint32_t halted = PLERIG_PV_HALTED;
	if (__atomic_load_n(&pv->state, __ATOMIC_RELAXED) != halted)
		return;
	/* before the claim, so that a waiter that sees KICKED sees this time */
	__atomic_store_n(&pv->kick_tsc, rdtsc(), __ATOMIC_RELAXED);
	if (!__atomic_compare_exchange_n(&pv->state, &halted, PLERIG_PV_KICKED, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return;
	storm_kick(l, waiter);
	l->pv_nodes[me].counts.kicks_sent++;
}

#define DEFINE_PVQSPIN(relax)                                                                      \
	SPIN_ATTR_UNALIGNED int plerig_acquire_pvqspin_##relax(struct plerig_lock_state *l,        \
							       unsigned me)                        \
	{                                                                                          \
		RELAX_STATE_##relax const uint32_t prev = mcs_enqueue(l, me);                      \
		if (!prev)                                                                         \
			return 0;                                                                  \
		const uint32_t threshold =                                                         \
		    __atomic_load_n(&l->pv_spin_threshold, __ATOMIC_RELAXED);                      \
		for (;;) {                                                                         \
			int early = 0;                                                             \
			for (uint32_t spins = 1; spins <= threshold; spins++) {                    \
				if (!__atomic_load_n(&l->mcs_nodes[me].locked, __ATOMIC_ACQUIRE))  \
					return 1;                                                  \
				if (!(spins % PV_EARLY_CHECK) && vcpu_is_preempted(l, prev - 1)) { \
					early = 1;                                                 \
					break;                                                     \
				}                                                                  \
				RELAX_##relax(prev - 1);                                           \
			}                                                                          \
			if (pv_woken(l, me, pv_wait(l, me, early)))                                \
				return 1;                                                          \
		}                                                                                  \
	}                                                                                          \
	SPIN_ATTR void plerig_release_pvqspin_##relax(struct plerig_lock_state *l, unsigned me)    \
	{                                                                                          \
		RELAX_STATE_##relax uint32_t next;                                                 \
		MCS_SUCCESSOR(relax, next);                                                        \
		if (!next)                                                                         \
			return;                                                                    \
		__atomic_store_n(&l->mcs_nodes[next - 1].locked, 0, __ATOMIC_RELEASE);             \
		pv_kick(l, me, next - 1);                                                          \
	}

static void release_ticket(struct plerig_lock_state *l, unsigned me)
{
	(void)me;
	/* only the holder writes the head */
	__atomic_store_n(&l->ticket_head, l->ticket_head + 1, __ATOMIC_RELEASE);
}

static void release_tas(struct plerig_lock_state *l, unsigned me)
{
	(void)me;
	__atomic_store_n(&l->tas_word, 0, __ATOMIC_RELEASE);
}

#define DEFINE_ALL(relax, value)                                                                   \
	DEFINE_TICKET(relax) DEFINE_TAS(relax) DEFINE_MCS(relax) DEFINE_PVQSPIN(relax)
FOR_EACH_RELAX(DEFINE_ALL)

#define OPS_ROW(relax, value)                                                                      \
	[value] = {                                                                                \
	    [PLERIG_LOCK_TICKET] = {plerig_acquire_ticket_##relax, release_ticket},                \
	    [PLERIG_LOCK_TAS] = {plerig_acquire_tas_##relax, release_tas},                         \
	    [PLERIG_LOCK_MCS] = {plerig_acquire_mcs_##relax, plerig_release_mcs_##relax},          \
	    [PLERIG_LOCK_PVQSPIN] = {plerig_acquire_pvqspin_##relax,                               \
				     plerig_release_pvqspin_##relax},                              \
	},

static const struct lock_ops ops_table[PLERIG_RELAX_COUNT][PLERIG_LOCK_COUNT] = {
    FOR_EACH_RELAX(OPS_ROW)};

const struct lock_ops *lock_ops_for(unsigned lock, unsigned relax)
{
	if (lock >= PLERIG_LOCK_COUNT || relax >= PLERIG_RELAX_COUNT)
		return 0;
	return &ops_table[relax][lock];
}
