// SPDX-License-Identifier: GPL-2.0
/*
 * storm_halt() and storm_kick() for the native baseline: a host thread
 * stands in for a halted vCPU by sleeping on a futex, its node's unhalted
 * word standing in for KVM's pv_unhalted. A kick sets the word and wakes
 * the sleeper; a halt consumes it, so a kick that comes before the halt
 * makes the halt return at once, as on KVM.
 */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "storm/storm.h"

int storm_halt(struct plerig_lock_state *l, unsigned me, const uint32_t *state, uint32_t val)
{
	uint32_t *unhalted = &l->pv_nodes[me].unhalted;
	if (__atomic_load_n(state, __ATOMIC_ACQUIRE) != val)
		return 0;
	while (!__atomic_exchange_n(unhalted, 0, __ATOMIC_ACQ_REL))
		/* EAGAIN: kicked meanwhile, EINTR: a signal; anything else (no futex at all)
		 * leaves a poll of the word, which is as correct and only slower */
		if (syscall(SYS_futex, unhalted, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0) < 0 &&
		    errno != EAGAIN && errno != EINTR)
			sched_yield();
	return 1;
}

void storm_kick(struct plerig_lock_state *l, unsigned vcpu)
{
	uint32_t *unhalted = &l->pv_nodes[vcpu].unhalted;
	__atomic_store_n(unhalted, 1, __ATOMIC_RELEASE);
	/* cannot fail: the word is mapped, private to this process, and 4-byte aligned */
	(void)syscall(SYS_futex, unhalted, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
