// SPDX-License-Identifier: GPL-2.0
/*
 * Ticket, test-and-test-and-set and MCS locks, each instantiated once per
 * relax instruction. The acquire functions are named
 * plerig_acquire_<lock>_<relax> (and MCS's release, which also spins,
 * plerig_release_mcs_<relax>) and kept out of line, so that the spin
 * loop of every variant can be found and checked in the built binary.
 *
 * Whom a spinner waits for (pv-yield's target): for a ticket lock the
 * owner of the ticket now served, the holder or, after a release, the
 * next waiter, which a fair lock must wait for even while it is
 * preempted; for MCS the predecessor in the queue (in release, the
 * successor that has not linked in yet); for test-and-set the last
 * acquirer.
 */
#include <stdint.h>

#include "storm/locks.h"
#include "storm/relax.h"
#include "storm/storm.h"

#define SPIN_ATTR __attribute__((noinline, used))

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
#define DEFINE_MCS(relax)                                                                          \
	SPIN_ATTR int plerig_acquire_mcs_##relax(struct plerig_lock_state *l, unsigned me)         \
	{                                                                                          \
		RELAX_STATE_##relax struct plerig_mcs_node *node = &l->mcs_nodes[me];              \
		__atomic_store_n(&node->next, 0, __ATOMIC_RELAXED);                                \
		__atomic_store_n(&node->locked, 1, __ATOMIC_RELAXED);                              \
		const uint32_t prev = __atomic_exchange_n(&l->mcs_tail, me + 1, __ATOMIC_ACQ_REL); \
		if (!prev)                                                                         \
			return 0;                                                                  \
		__atomic_store_n(&l->mcs_nodes[prev - 1].next, me + 1, __ATOMIC_RELEASE);          \
		while (__atomic_load_n(&node->locked, __ATOMIC_ACQUIRE))                           \
			RELAX_##relax(prev - 1);                                                   \
		return 1;                                                                          \
	}                                                                                          \
	SPIN_ATTR void plerig_release_mcs_##relax(struct plerig_lock_state *l, unsigned me)        \
	{                                                                                          \
		RELAX_STATE_##relax struct plerig_mcs_node *node = &l->mcs_nodes[me];              \
		uint32_t next = __atomic_load_n(&node->next, __ATOMIC_ACQUIRE);                    \
		if (!next) {                                                                       \
			uint32_t self = me + 1;                                                    \
			if (__atomic_compare_exchange_n(&l->mcs_tail, &self, 0, 0,                 \
							__ATOMIC_RELEASE, __ATOMIC_RELAXED))       \
				return;                                                            \
			/* a successor swapped the tail but has not linked in yet */               \
			while (!(next = __atomic_load_n(&node->next, __ATOMIC_ACQUIRE)))           \
				RELAX_##relax(mcs_newest_waiter(l));                               \
		}                                                                                  \
		__atomic_store_n(&l->mcs_nodes[next - 1].locked, 0, __ATOMIC_RELEASE);             \
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

#define DEFINE_ALL(relax, value) DEFINE_TICKET(relax) DEFINE_TAS(relax) DEFINE_MCS(relax)
FOR_EACH_RELAX(DEFINE_ALL)

#define OPS_ROW(relax, value)                                                                      \
	[value] = {                                                                                \
	    [PLERIG_LOCK_TICKET] = {plerig_acquire_ticket_##relax, release_ticket},                \
	    [PLERIG_LOCK_TAS] = {plerig_acquire_tas_##relax, release_tas},                         \
	    [PLERIG_LOCK_MCS] = {plerig_acquire_mcs_##relax, plerig_release_mcs_##relax},          \
	},

static const struct lock_ops ops_table[PLERIG_RELAX_COUNT][PLERIG_LOCK_COUNT] = {
    FOR_EACH_RELAX(OPS_ROW)};

const struct lock_ops *lock_ops_for(unsigned lock, unsigned relax)
{
	if (lock >= PLERIG_LOCK_COUNT || relax >= PLERIG_RELAX_COUNT)
		return 0;
	return &ops_table[relax][lock];
}
