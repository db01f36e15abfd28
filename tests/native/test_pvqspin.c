// SPDX-License-Identifier: GPL-2.0
/*
 * Lock pvqspin's protocol on host threads, with the storm's own lock code
 * (guest/storm/locks.c, linked as the native baseline links it) and this
 * file's halt and kick in place of KVM's: a simulated vCPU that halts
 * sleeps on a futex until its unhalted word is set, as KVM's pv_unhalted.
 *
 * The schedule is made adversarial on purpose: the spin threshold is tiny,
 * so nearly every wait halts; halts and kicks yield the CPU at random
 * points (a kick that lands between the waiter's last look and its sleep,
 * a kick that comes late); halts end without a kick at random (interrupts);
 * and a thread marks its own vCPU preempted while it yields, so waiters
 * behind it halt early. More threads than CPUs.
 *
 * A lost wake-up is found without any timing: every thread that has not
 * finished sleeps in a halt, no kick is pending for any of them and none is
 * on its way, so nothing can ever wake one. The hang is then reported as
 * the watchdog reports one: vCPU, its pv state, its node and the lock word.
 * A deliberately broken halt (one that forgets a kick that came before it
 * slept) shows that the detector finds a lost wake-up when there is one.
 */
#include <check.h>
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "storm/locks.h"
#include "storm/storm.h"
#include "support/check_main.h"

#define THREADS		    5
#define ACQUIRES	    3000
#define SPURIOUS_IN	    16	/* one halt in this many ends without a kick */
#define PV_TEST_EARLY_CHECK 256 /* locks.c: relaxes between two looks at the predecessor */

static struct plerig_shared *sh;
static bool broken_halt;     /* the negative control */
static int asleep[THREADS];  /* atomic: in a halt, only a kick can end it */
static int kicks_in_flight;  /* atomic: a kick decided on, its unhalted not yet set */
static unsigned events;	     /* atomic: kicks begun, halts entered and left, ever */
static unsigned finished;    /* atomic: threads done with their acquisitions */
static int stop;	     /* atomic: the detector found a hang, everyone leaves */
static int exclusion_broken; /* atomic */
static int inside;	     /* atomic: threads inside the critical section */

/* A cheap per-thread random number (xorshift), seeded per thread. */
static __thread uint64_t rnd_state;
static unsigned rnd(unsigned n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (unsigned)(rnd_state % n);
}

/* Give the CPU away 0..3 times, marked preempted in the steal area meanwhile. */
static void maybe_preempted(unsigned me)
{
	const unsigned n = rnd(4);
	if (!n)
		return;
	__atomic_store_n(&sh->steal[me].preempted, PLERIG_STEAL_PREEMPTED, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < n; i++)
		sched_yield();
	__atomic_store_n(&sh->steal[me].preempted, 0, __ATOMIC_RELAXED);
}

static void futex_wait(uint32_t *word)
{
	if (syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0) < 0 && errno != EAGAIN &&
	    errno != EINTR)
		ck_abort_msg("FUTEX_WAIT: %s", strerror(errno));
}

int storm_halt(struct plerig_lock_state *l, unsigned me, const uint32_t *state, uint32_t val)
{
	uint32_t *unhalted = &l->pv_nodes[me].unhalted;
	if (__atomic_load_n(state, __ATOMIC_ACQUIRE) != val)
		return 0;
	if (!rnd(SPURIOUS_IN))
		return 1; /* an interrupt ended the halt at once */
	__atomic_store_n(&asleep[me], 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&events, 1, __ATOMIC_SEQ_CST);
	maybe_preempted(me); /* the window between the last look and the sleep */
	if (broken_halt) {
		/* wait for the kick, then forget it, and sleep */
		while (!__atomic_load_n(unhalted, __ATOMIC_ACQUIRE) &&
		       !__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
			sched_yield();
		__atomic_store_n(unhalted, 0, __ATOMIC_RELEASE);
	}
	while (!__atomic_load_n(unhalted, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		futex_wait(unhalted);
	/*
	 * Awake from here on: say so before consuming the kick, so that the
	 * detector never sees this vCPU asleep with its unhalted word already
	 * cleared (a woken thread preempted between the two would otherwise
	 * look like a lost wake-up), and a leaving counts an event first.
	 */
	__atomic_store_n(&asleep[me], 0, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&events, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(unhalted, 0, __ATOMIC_SEQ_CST);
	return 1;
}

void storm_kick(struct plerig_lock_state *l, unsigned vcpu)
{
	uint32_t *unhalted = &l->pv_nodes[vcpu].unhalted;
	__atomic_add_fetch(&events, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&kicks_in_flight, 1, __ATOMIC_SEQ_CST);
	if (rnd(2))
		sched_yield(); /* a late kick */
	__atomic_store_n(unhalted, 1, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&kicks_in_flight, 1, __ATOMIC_SEQ_CST);
	if (syscall(SYS_futex, unhalted, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) < 0)
		ck_abort_msg("FUTEX_WAKE: %s", strerror(errno));
}

void storm_yield_to(unsigned vcpu)
{
	(void)vcpu;
	sched_yield();
}

static void *thread_main(void *arg)
{
	const unsigned me = (unsigned)(uintptr_t)arg;
	const struct lock_ops *ops = lock_ops_for(PLERIG_LOCK_PVQSPIN, PLERIG_RELAX_PAUSE);
	rnd_state = 0x9e3779b97f4a7c15ull * (me + 1);
	for (unsigned i = 0; i < ACQUIRES && !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); i++) {
		ops->acquire(&sh->lock, me);
		if (__atomic_fetch_add(&inside, 1, __ATOMIC_ACQ_REL))
			__atomic_store_n(&exclusion_broken, 1, __ATOMIC_RELAXED);
		sh->lock.protected_counter++;
		if (!rnd(8))
			maybe_preempted(me); /* a holder preempted */
		__atomic_sub_fetch(&inside, 1, __ATOMIC_ACQ_REL);
		ops->release(&sh->lock, me);
	}
	__atomic_add_fetch(&finished, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * Nothing can wake anyone: every unfinished thread sleeps, no kick is
 * pending or on its way, and nothing happened while we looked (a thread
 * that sleeps leaves only through a kick, which counts an event first).
 */
static bool lost_wakeup(void)
{
	const unsigned before = __atomic_load_n(&events, __ATOMIC_SEQ_CST);
	const unsigned done = __atomic_load_n(&finished, __ATOMIC_SEQ_CST);
	unsigned sleeping = 0;
	if (done == THREADS || __atomic_load_n(&kicks_in_flight, __ATOMIC_SEQ_CST))
		return false;
	for (unsigned t = 0; t < THREADS; t++) {
		if (!__atomic_load_n(&asleep[t], __ATOMIC_SEQ_CST))
			continue;
		if (__atomic_load_n(&sh->lock.pv_nodes[t].unhalted, __ATOMIC_SEQ_CST))
			return false;
		sleeping++;
	}
	return sleeping + done == THREADS && !__atomic_load_n(&kicks_in_flight, __ATOMIC_SEQ_CST) &&
	       __atomic_load_n(&finished, __ATOMIC_SEQ_CST) == done &&
	       __atomic_load_n(&events, __ATOMIC_SEQ_CST) == before;
}

static const char *const pv_state_names[] = {"running", "halted", "kicked"};

/* What the watchdog says of a hang: each sleeping vCPU's state, its node and the lock word. */
static void describe_hang(char *buf, size_t len)
{
	int n = snprintf(buf, len, "lost wake-up: lock tail %u;",
			 __atomic_load_n(&sh->lock.mcs_tail, __ATOMIC_RELAXED));
	for (unsigned t = 0; t < THREADS && n > 0 && (size_t)n < len; t++) {
		const uint32_t st = __atomic_load_n(&sh->lock.pv_nodes[t].state, __ATOMIC_RELAXED);
		if (__atomic_load_n(&asleep[t], __ATOMIC_RELAXED))
			n += snprintf(buf + n, len - (size_t)n,
				      " vCPU %u halted, pv state %s, node locked %u next %u;", t,
				      st < 3 ? pv_state_names[st] : "?",
				      sh->lock.mcs_nodes[t].locked, sh->lock.mcs_nodes[t].next);
	}
}

/* Runs the threads until they finish or a lost wake-up is certain; 1 if it was. */
static int run_threads(char *hang, size_t len)
{
	pthread_t threads[THREADS];
	int hung = 0;
	sh = calloc(1, sizeof(*sh));
	ck_assert_ptr_nonnull(sh);
	sh->lock.pv_spin_threshold = 2 * PV_TEST_EARLY_CHECK + 1; /* two looks, then halt */
	sh->lock.pv_unhalt = 1;
	sh->lock.pv_preempt_check = 1;
	for (unsigned t = 0; t < THREADS; t++)
		ck_assert_int_eq(
		    pthread_create(&threads[t], NULL, thread_main, (void *)(uintptr_t)t), 0);
	while (__atomic_load_n(&finished, __ATOMIC_SEQ_CST) < THREADS) {
		/* twice, a scheduler round apart: a state seen once may be on its way out */
		if (lost_wakeup()) {
			sched_yield();
			if (lost_wakeup()) {
				describe_hang(hang, len);
				hung = 1;
				break;
			}
		}
		usleep(1000);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (unsigned t = 0; t < THREADS; t++) {
		/* wake every sleeper: they see stop and leave */
		__atomic_store_n(&sh->lock.pv_nodes[t].unhalted, 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, &sh->lock.pv_nodes[t].unhalted, FUTEX_WAKE_PRIVATE, 1, NULL,
			NULL, 0);
	}
	for (unsigned t = 0; t < THREADS; t++)
		pthread_join(threads[t], NULL);
	return hung;
}

START_TEST(excludes_and_loses_no_wakeup)
{
	char hang[1024] = "";
	ck_assert_msg(!run_threads(hang, sizeof(hang)), "%s", hang);
	ck_assert_msg(!exclusion_broken, "two threads inside the critical section at once");
	ck_assert_uint_eq(sh->lock.protected_counter, (uint64_t)THREADS * ACQUIRES);
	uint64_t halts = 0, sent = 0, received = 0, early = 0;
	for (unsigned t = 0; t < THREADS; t++) {
		const struct plerig_pv_counts *c = &sh->lock.pv_nodes[t].counts;
		halts += c->halts;
		sent += c->kicks_sent;
		received += c->kicks_received;
		early += c->early_halts;
	}
	/* the slow path ran, not just the fast one */
	ck_assert_msg(halts > 0 && sent > 0, "halts %llu, kicks sent %llu",
		      (unsigned long long)halts, (unsigned long long)sent);
	ck_assert_msg(received <= sent, "kicks received %llu > sent %llu",
		      (unsigned long long)received, (unsigned long long)sent);
	/* early: depends on the schedule, a preempted predecessor is seen or not */
	printf("pvqspin: %llu halts, %llu kicks sent, %llu received, %llu early halts\n",
	       (unsigned long long)halts, (unsigned long long)sent, (unsigned long long)received,
	       (unsigned long long)early);
	free(sh);
}
END_TEST

START_TEST(a_halt_that_forgets_a_kick_is_caught)
{
	char hang[1024] = "";
	broken_halt = true;
	ck_assert_msg(run_threads(hang, sizeof(hang)),
		      "the broken halt lost no wake-up: the detector would miss one");
	ck_assert_msg(strstr(hang, "halted, pv state"), "%s", hang);
	free(sh);
}
END_TEST

static Suite *pvqspin_suite(void)
{
	Suite *s = suite_create("pvqspin");
	TCase *tc = tcase_create("protocol");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, excludes_and_loses_no_wakeup);
	tcase_add_test(tc, a_halt_that_forgets_a_kick_is_caught);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(pvqspin_suite)
