// SPDX-License-Identifier: GPL-2.0
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "measure/thread_state.h"
#include "support/check_main.h"

/* A storm thread's stat, seen when the watchdog fired: runnable on CPU 0. */
static const char starved[] =
    "10255 (plerig) R 6351 6341 14915 0 -1 4194368 3 0 0 0 4 0 0 0 20 0 2 0 312426 92893184 "
    "3757 18446744073709551615 94577171922944 94577172192281 140725682216640 0 0 0 16387 4 "
    "16387 0 0 0 -1 0 0 0 0 0 0 94577172313872 94577172330288 94577805930496 140725682219526 "
    "140725682219652 140725682219652 140725682221035 0\n";

/* Fields 4 to 38 of a stat line, after "(name) S": 39, the CPU, comes next. */
#define TO_CPU " 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 6 7 8 9 10 11 12 13 14 15 16 17 18 0 0 17"

START_TEST(test_parse_good)
{
	struct thread_state t;
	ck_assert_int_eq(thread_state_parse(starved, &t), 0);
	ck_assert_int_eq(t.state, 'R');
	ck_assert_int_eq(t.cpu, 0);
	/* a name with blanks and parentheses: the last ')' ends it */
	ck_assert_int_eq(thread_state_parse("7 (a) b (c)) S" TO_CPU " 13 0 0", &t), 0);
	ck_assert_int_eq(t.state, 'S');
	ck_assert_int_eq(t.cpu, 13);
	ck_assert_int_eq(thread_state_parse("7 (x) D" TO_CPU " 1", &t),
			 0); /* an older kernel's end */
	ck_assert_int_eq(t.state, 'D');
	ck_assert_int_eq(t.cpu, 1);
}
END_TEST

START_TEST(test_parse_bad)
{
	static const char *const bad[] = {
	    "",
	    "1 (x)",
	    "1 (x) R",
	    "1 (x) R 1 2 3",
	    "1 (x) R" TO_CPU,
	    "1 (x) R" TO_CPU " ",
	    "1 (x) R" TO_CPU " x 0",
	    "1 (x) R" TO_CPU " -1 0",
	    "1 (x) R" TO_CPU " 13x 0",
	    "1 (x) R" TO_CPU " 99999999999999999999 0",
	    "1 (x)  R" TO_CPU " 1 0",
	    "1 x R" TO_CPU " 1 0",
	    "1 (x) R 1  1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 6 7 8 9 10 11 12 13 14 15 16 17 18 0 "
	    "0 "
	    "17 1 0",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct thread_state t = {'?', -7};
		ck_assert_msg(thread_state_parse(bad[i], &t) == -1, "accepted \"%s\"", bad[i]);
		ck_assert_int_eq(t.cpu, -7); /* untouched */
	}
	ck_assert_int_eq(thread_state_parse(NULL, &(struct thread_state){0}), -1);
}
END_TEST

START_TEST(test_read_self)
{
	struct thread_state t;
	char err[256];
	ck_assert_int_eq(thread_state_read((pid_t)syscall(SYS_gettid), &t, err, sizeof(err)), 0);
	ck_assert_int_eq(t.state, 'R'); /* this thread is running: it reads its own file */
	ck_assert_int_ge(t.cpu, 0);
}
END_TEST

static void *nap(void *arg)
{
	pid_t *tid = arg;
	__atomic_store_n(tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	pause(); /* sleeps until the test cancels it */
	return NULL;
}

START_TEST(test_read_sleeper)
{
	pthread_t thread;
	pid_t tid = 0;
	char err[256];
	struct thread_state t = {0};
	ck_assert_int_eq(pthread_create(&thread, NULL, nap, &tid), 0);
	/* it may not have reached pause() yet: wait for S, not for a time */
	do {
		while (!__atomic_load_n(&tid, __ATOMIC_ACQUIRE))
			sched_yield();
		ck_assert_int_eq(thread_state_read(tid, &t, err, sizeof(err)), 0);
		sched_yield();
	} while (t.state == 'R');
	ck_assert_int_eq(t.state, 'S');
	pthread_cancel(thread);
	pthread_join(thread, NULL);
	ck_assert_int_ne(thread_state_read(tid, &t, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "/stat"));
}
END_TEST

static Suite *thread_state_suite(void)
{
	Suite *s = suite_create("thread_state");
	TCase *parse = tcase_create("parse");
	TCase *proc = tcase_create("proc");
	tcase_add_test(parse, test_parse_good);
	tcase_add_test(parse, test_parse_bad);
	tcase_add_test(proc, test_read_self);
	tcase_add_test(proc, test_read_sleeper);
	suite_add_tcase(s, parse);
	suite_add_tcase(s, proc);
	return s;
}

CHECK_MAIN(thread_state_suite)
