/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The threads that run storms (vCPU threads, native storm threads): born
 * on a CPU set, and with Ctrl-C blocked, so that only the main thread
 * takes it and tears the run down in order.
 */
#ifndef PLERIG_PINNED_THREAD_H
#define PLERIG_PINNED_THREAD_H

#include <pthread.h>
#include <sched.h>
#include <sys/types.h>

/* 0, or an errno value (as pthread_create). */
int pinned_thread_create(pthread_t *thread, const cpu_set_t *cpus, void *(*fn)(void *), void *arg);
/*
 * Let thread @tid of this process run on every CPU the calling thread may
 * use but @cpu. 0, or -errno (-EINVAL: no other CPU to go to).
 */
int pinned_thread_move_off(pid_t tid, int cpu);

#endif
