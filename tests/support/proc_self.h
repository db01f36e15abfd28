/* SPDX-License-Identifier: GPL-2.0 */
/* What the tests that run storms need to know of this process. */
#ifndef PLERIG_TEST_PROC_SELF_H
#define PLERIG_TEST_PROC_SELF_H

#include <check.h>
#include <dirent.h>
#include <sched.h>
#include <time.h>

/* Entries of /proc/self/fd or /proc/self/task: a run must leave as many as it found. */
static inline unsigned count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	unsigned n = 0;
	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/*
 * The threads of this process once those a run joined are gone:
 * pthread_join() returns when the kernel clears the thread's tid, before
 * the task leaves /proc/self/task, and on a busy host that can take a
 * while. Polls up to 10 s for the count to fall to @expected; returns the
 * last count (more than @expected: a thread left behind).
 */
static inline unsigned threads_after_join(unsigned expected)
{
	unsigned n = count_entries("/proc/self/task");
	for (unsigned i = 0; n > expected && i < 10000; i++) {
		nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
		n = count_entries("/proc/self/task");
	}
	return n;
}

/* The first @max CPUs this process may run on; returns how many. */
static inline unsigned first_cpus(unsigned *cpus, unsigned max)
{
	cpu_set_t set;
	unsigned n = 0;
	ck_assert_int_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	for (unsigned c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

#endif
