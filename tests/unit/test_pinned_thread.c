// SPDX-License-Identifier: GPL-2.0
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "support/check_main.h"
#include "util/pinned_thread.h"

static int first_allowed(const cpu_set_t *set)
{
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set))
			return c;
	return -1;
}

static void *nap(void *arg)
{
	__atomic_store_n((pid_t *)arg, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	pause(); /* until the test cancels it */
	return NULL;
}

/*
 * The stop's rescue: a thread pinned to one CPU ends up on every other CPU
 * the calling (main) thread may use.
 */
START_TEST(test_move_off)
{
	cpu_set_t allowed, one, now;
	ck_assert_int_eq(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
	const int cpu = first_allowed(&allowed);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	pthread_t thread;
	pid_t tid = 0;
	ck_assert_int_eq(pinned_thread_create(&thread, &one, nap, &tid), 0);
	while (!__atomic_load_n(&tid, __ATOMIC_ACQUIRE))
		sched_yield();
	if (CPU_COUNT(&allowed) == 1) { /* nowhere to go: said, and the thread stays */
		ck_assert_int_eq(pinned_thread_move_off(tid, cpu), -EINVAL);
		ck_assert_int_eq(sched_getaffinity(tid, sizeof(now), &now), 0);
		ck_assert(CPU_EQUAL(&now, &one));
	} else {
		ck_assert_int_eq(pinned_thread_move_off(tid, cpu), 0);
		ck_assert_int_eq(sched_getaffinity(tid, sizeof(now), &now), 0);
		ck_assert(!CPU_ISSET(cpu, &now));
		ck_assert_int_eq(CPU_COUNT(&now), CPU_COUNT(&allowed) - 1);
	}
	pthread_cancel(thread);
	pthread_join(thread, NULL);
}
END_TEST

START_TEST(test_move_off_no_thread)
{
	/* pid_max is at most 2^22: no such thread; CPU -1: no CPU to leave, so somewhere to go */
	ck_assert_int_eq(pinned_thread_move_off(1 << 23, -1), -ESRCH);
}
END_TEST

static Suite *pinned_thread_suite(void)
{
	Suite *s = suite_create("pinned_thread");
	TCase *move = tcase_create("move_off");
	tcase_add_test(move, test_move_off);
	tcase_add_test(move, test_move_off_no_thread);
	suite_add_tcase(s, move);
	return s;
}

CHECK_MAIN(pinned_thread_suite)
