// SPDX-License-Identifier: GPL-2.0
#include <check.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backends/unit_evidence.h"
#include "support/check_main.h"

#define SECOND 1000000000ull

static char text[320];

static const char *describe(const struct unit_evidence *e)
{
	unit_evidence_describe(e, "STOP", text, sizeof(text));
	return text;
}

/* As seen at load 25 on 2 CPUs: runnable on CPU 0, no CPU at all in the 10 s since STOP. */
START_TEST(test_starved)
{
	const struct unit_evidence e = {.tid = 10255,
					.have_state = true,
					.state = {'R', 0},
					.have_ran = true,
					.ran_ns = 0,
					.idle_ns = 10 * SECOND,
					.waited_ns = 10 * SECOND};
	ck_assert(unit_evidence_starved(&e));
	ck_assert_str_eq(describe(&e), "its thread 10255 was runnable (R) on CPU 0 but had no CPU "
				       "for the last 10.0 s (ran 0.0 ms in the 10.0 s since STOP): "
				       "a busy host, not a hung guest");
	/* ran a little after STOP, then nothing: the time without counts, not the total */
	struct unit_evidence late = e;
	late.ran_ns = 3972000;
	late.idle_ns = 9990000000ull;
	ck_assert(unit_evidence_starved(&late));
	ck_assert_ptr_nonnull(strstr(describe(&late), "no CPU for the last 10.0 s (ran 4.0 ms"));
}
END_TEST

/* Its waiter, spinning on the other CPU meanwhile: it ran, so the host is not to blame. */
START_TEST(test_ran)
{
	const struct unit_evidence e = {.tid = 10256,
					.have_state = true,
					.state = {'R', 1},
					.have_ran = true,
					.ran_ns = 7086227000ull,
					.idle_ns = 0,
					.waited_ns = 10 * SECOND};
	ck_assert(!unit_evidence_starved(&e));
	ck_assert_str_eq(describe(&e), "its thread 10256 (R, CPU 1) ran 7086.2 ms of the 10.0 s "
				       "since STOP");
	struct unit_evidence edge = e;
	edge.idle_ns = UNIT_STARVED_NS;
	ck_assert(unit_evidence_starved(&edge));
	edge.idle_ns = UNIT_STARVED_NS - 1;
	ck_assert(!unit_evidence_starved(&edge));
}
END_TEST

/* A sleeping thread got no CPU because it did not ask for one: blocked, not starved. */
START_TEST(test_blocked)
{
	const struct unit_evidence e = {.tid = 5,
					.have_state = true,
					.state = {'S', 1},
					.have_ran = true,
					.ran_ns = 0,
					.idle_ns = 10 * SECOND,
					.waited_ns = 10 * SECOND};
	ck_assert(!unit_evidence_starved(&e));
	ck_assert_ptr_nonnull(strstr(describe(&e), "not runnable (state S, CPU 1)"));
}
END_TEST

/* Without its figures no verdict: neither starved nor guilty. */
START_TEST(test_unknown)
{
	struct unit_evidence e = {.tid = 0, .waited_ns = 10 * SECOND};
	ck_assert(!unit_evidence_starved(&e));
	ck_assert_str_eq(describe(&e),
			 "its thread has not started running in the 10.0 s since STOP");
	e = (struct unit_evidence){
	    .tid = 9, .have_state = true, .state = {'R', 0}, .idle_ns = 10 * SECOND};
	ck_assert(!unit_evidence_starved(&e)); /* no CPU time read */
	ck_assert_str_eq(describe(&e), "its thread 9 could not be read in /proc");
}
END_TEST

/* This thread, marked and looked at again: its own state and CPU time, from /proc. */
START_TEST(test_take_self)
{
	const pid_t tid = (pid_t)syscall(SYS_gettid);
	struct unit_mark m;
	struct unit_evidence e;
	unit_mark_take(&m, tid, 100);
	ck_assert(m.have_sched);
	unit_evidence_take(&e, &m, tid, 100 + SECOND);
	ck_assert_int_eq(e.tid, tid);
	ck_assert(e.have_state && e.have_ran);
	ck_assert_int_eq(e.state.state, 'R');
	ck_assert_uint_eq(e.waited_ns, SECOND);
	ck_assert_uint_le(e.idle_ns, SECOND);
	/* a thread that was not started at the mark: its whole life counts */
	unit_mark_take(&m, 0, 100);
	ck_assert(!m.have_sched);
	unit_evidence_take(&e, &m, tid, 100 + SECOND);
	struct schedstat life;
	ck_assert_int_eq(schedstat_read(tid, &life, text, sizeof(text)), 0);
	ck_assert(e.have_ran);
	ck_assert_uint_le(e.ran_ns, life.run_ns); /* all of it, read a moment earlier */
	/* another thread at the mark (a tid reused): no CPU time claimed */
	unit_mark_take(&m, tid, 100);
	m.tid = tid + 1;
	unit_evidence_take(&e, &m, tid, 100 + SECOND);
	ck_assert(e.have_state && !e.have_ran);
}
END_TEST

/* Looks that see the CPU time grow move the last time it ran; looks that do not, do not. */
START_TEST(test_watch)
{
	const pid_t tid = (pid_t)syscall(SYS_gettid);
	struct unit_mark m;
	unit_mark_take(&m, tid, 100);
	m.last_run_ns = m.sched.run_ns = 0; /* as if it had not run before the mark */
	unit_mark_watch(&m, tid, 200);
	struct schedstat now;
	ck_assert_int_eq(schedstat_read(tid, &now, text, sizeof(text)), 0);
	ck_assert_uint_eq(m.last_ran_ns, now.run_ns ? 200 : 100);
	m.last_run_ns = UINT64_MAX; /* a CPU time this thread will not reach: "grew" */
	unit_mark_watch(&m, tid, 300);
	ck_assert_uint_eq(m.last_ran_ns, 300);
	unit_mark_watch(&m, 0, 400); /* no thread: nothing learnt */
	ck_assert_uint_eq(m.last_ran_ns, 300);
}
END_TEST

static Suite *unit_evidence_suite(void)
{
	Suite *s = suite_create("unit_evidence");
	TCase *words = tcase_create("words");
	TCase *proc = tcase_create("proc");
	tcase_add_test(words, test_starved);
	tcase_add_test(words, test_ran);
	tcase_add_test(words, test_blocked);
	tcase_add_test(words, test_unknown);
	tcase_add_test(proc, test_take_self);
	tcase_add_test(proc, test_watch);
	suite_add_tcase(s, words);
	suite_add_tcase(s, proc);
	return s;
}

CHECK_MAIN(unit_evidence_suite)
