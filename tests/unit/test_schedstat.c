// SPDX-License-Identifier: GPL-2.0
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "measure/schedstat.h"
#include "support/check_main.h"

static char err[256];

START_TEST(test_parse_good)
{
	struct schedstat s;

	ck_assert_int_eq(schedstat_parse("1 2 3", &s), 0);
	ck_assert_uint_eq(s.run_ns, 1);
	ck_assert_uint_eq(s.wait_ns, 2);
	ck_assert_uint_eq(s.timeslices, 3);
	ck_assert_int_eq(schedstat_parse("26616670 3523194 78\n", &s), 0);
	ck_assert_uint_eq(s.run_ns, 26616670);
	ck_assert_uint_eq(s.wait_ns, 3523194);
	ck_assert_uint_eq(s.timeslices, 78);
	ck_assert_int_eq(schedstat_parse("0 0 0\n", &s), 0);
	ck_assert_uint_eq(s.run_ns + s.wait_ns + s.timeslices, 0);
	ck_assert_int_eq(schedstat_parse("18446744073709551615 0 7", &s), 0);
	ck_assert_uint_eq(s.run_ns, UINT64_MAX);
	ck_assert_int_eq(schedstat_parse("4  5   6\n", &s), 0);
	ck_assert_uint_eq(s.timeslices, 6);
}
END_TEST

START_TEST(test_parse_bad)
{
	static const char *const bad[] = {
	    "",
	    "\n",
	    "1",
	    "1 2",
	    "1 2\n",
	    "1 2 3 4",
	    "-1 2 3",
	    "1 -2 3",
	    "+1 2 3",
	    " 1 2 3",
	    "1 2 3 ",
	    "1 2 3\n\n",
	    "1 2 3\nx",
	    "1\t2\t3",
	    "1,2,3",
	    "a b c",
	    "1 2 3x",
	    "0x10 2 3",
	    "18446744073709551616 0 0",
	    "1 99999999999999999999999 1",
	};
	struct schedstat s = {11, 22, 33};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(schedstat_parse(bad[i], &s) == -1, "accepted \"%s\"", bad[i]);
	ck_assert_int_eq(schedstat_parse(NULL, &s), -1);
	/* a rejected text leaves the output alone */
	ck_assert_uint_eq(s.run_ns, 11);
	ck_assert_uint_eq(s.wait_ns, 22);
	ck_assert_uint_eq(s.timeslices, 33);
}
END_TEST

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	ck_assert_int_eq(clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts), 0);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void burn_cpu(uint64_t ns)
{
	uint64_t until = thread_cpu_ns() + ns;
	volatile uint64_t sink = 0;

	while (thread_cpu_ns() < until)
		for (int i = 0; i < 10000; i++)
			sink += (uint64_t)i;
	(void)sink;
}

START_TEST(test_read_self)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	struct schedstat before, after, d;

	ck_assert_msg(schedstat_read(tid, &before, err, sizeof(err)) == 0, "%s", err);
	burn_cpu(30 * 1000 * 1000);
	ck_assert_msg(schedstat_read(tid, &after, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_gt(after.run_ns, 0);
	ck_assert_uint_ge(after.timeslices, 1);
	schedstat_delta(&before, &after, &d);
	/* the file lags the clock by at most a tick: demand most of the burn */
	ck_assert_msg(d.run_ns >= 20 * 1000 * 1000, "only %llu ns of 30 ms burn seen",
		      (unsigned long long)d.run_ns);
}
END_TEST

START_TEST(test_read_missing_thread)
{
	struct schedstat s;

	err[0] = '\0';
	/* above any pid_max (2^22), so never a thread of ours */
	ck_assert_int_lt(schedstat_read(0x7fffffff, &s, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "/proc/self/task/2147483647/schedstat"), "got: %s", err);
	ck_assert_msg(strstr(err, "no thread"), "got: %s", err);
}
END_TEST

START_TEST(test_delta)
{
	struct schedstat a = {100, 50, 3}, b = {250, 40, 5}, d;

	schedstat_delta(&a, &b, &d);
	ck_assert_uint_eq(d.run_ns, 150);
	ck_assert_uint_eq(d.wait_ns, 0); /* went backwards: clamped, not wrapped */
	ck_assert_uint_eq(d.timeslices, 2);
	schedstat_delta(&b, &b, &d);
	ck_assert_uint_eq(d.run_ns + d.wait_ns + d.timeslices, 0);
	/* the output may alias an input */
	schedstat_delta(&a, &b, &b);
	ck_assert_uint_eq(b.run_ns, 150);
	ck_assert_uint_eq(b.timeslices, 2);
}
END_TEST

struct ended_thread {
	pid_t tid;
	struct schedstat_kept kept;
};

static void *keep_and_end(void *arg)
{
	struct ended_thread *e = arg;
	e->tid = (pid_t)syscall(SYS_gettid);
	schedstat_keep_own(&e->kept);
	return NULL;
}

/*
 * A thread that ended before the reader came (a vCPU thread that saw STOP
 * and returned, read late under emulation): its /proc entry is gone, and
 * what it kept as it ended stands in; without it, an error, never zeros.
 */
START_TEST(test_read_or_kept_after_the_thread_ended)
{
	struct ended_thread e = {0};
	struct schedstat_kept *k = &e.kept;
	pthread_t t;
	char err[256] = "";
	struct schedstat s = {1, 1, 1};

	ck_assert_int_eq(pthread_create(&t, NULL, keep_and_end, &e), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	const pid_t tid = e.tid;
	ck_assert(__atomic_load_n(&k->valid, __ATOMIC_ACQUIRE));
	ck_assert_int_lt(schedstat_read(tid, &s, err, sizeof(err)), 0);
	ck_assert_int_eq(schedstat_read_or_kept(tid, k, &s, err, sizeof(err)), 0);
	ck_assert_uint_eq(s.run_ns, k->s.run_ns);
	ck_assert_uint_eq(s.timeslices, k->s.timeslices);
	ck_assert_uint_gt(s.timeslices, 0);
	ck_assert_int_lt(schedstat_read_or_kept(tid, NULL, &s, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "no thread"), "got: %s", err);
	/* a live thread is read live, whatever was kept */
	k->s.run_ns = 0;
	ck_assert_int_eq(
	    schedstat_read_or_kept((pid_t)syscall(SYS_gettid), k, &s, err, sizeof(err)), 0);
	ck_assert_uint_gt(s.timeslices, 0);
}
END_TEST

static Suite *schedstat_suite(void)
{
	Suite *s = suite_create("schedstat");
	TCase *parse = tcase_create("parse");
	TCase *proc = tcase_create("proc");

	tcase_add_test(parse, test_parse_good);
	tcase_add_test(parse, test_parse_bad);
	tcase_add_test(parse, test_delta);
	tcase_add_test(proc, test_read_self);
	tcase_add_test(proc, test_read_missing_thread);
	tcase_add_test(proc, test_read_or_kept_after_the_thread_ended);
	suite_add_tcase(s, parse);
	suite_add_tcase(s, proc);
	return s;
}

CHECK_MAIN(schedstat_suite)
