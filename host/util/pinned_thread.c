// SPDX-License-Identifier: GPL-2.0
#include "util/pinned_thread.h"

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
