// SPDX-License-Identifier: GPL-2.0
#include "util/pinned_thread.h"

#include <errno.h>
#include <signal.h>

int pinned_thread_create(pthread_t *thread, const cpu_set_t *cpus, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	int rc = pthread_attr_init(&attr);
	if (rc)
		return rc;
	rc = pthread_attr_setaffinity_np(&attr, sizeof(*cpus), cpus);
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old); /* the new thread inherits the mask */
	if (!rc)
		rc = pthread_create(thread, &attr, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return rc;
}

int pinned_thread_move_off(pid_t tid, int cpu)
{
	cpu_set_t others;
	if (sched_getaffinity(0, sizeof(others), &others))
		return -errno;
	if (cpu >= 0 && cpu < CPU_SETSIZE)
		CPU_CLR(cpu, &others);
	if (!CPU_COUNT(&others))
		return -EINVAL;
	return sched_setaffinity(tid, sizeof(others), &others) ? -errno : 0;
}
