/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the scheduler says of one thread of this process right now, from
 * /proc/self/task/TID/stat: its state (R running or waiting for a CPU,
 * S sleeping, D in uninterruptible sleep, ...) and the CPU it runs on or
 * last ran on. With schedstat's CPU time it tells a thread the host does
 * not run from one that runs and does not finish.
 */
#ifndef PLERIG_THREAD_STATE_H
#define PLERIG_THREAD_STATE_H

#include <stddef.h>
#include <sys/types.h>

struct thread_state {
	char state; /* the one-letter state of proc(5) */
	int cpu;    /* "processor": where it runs, or ran last */
};

/* Parse the text of a stat file; 0, or -1 if malformed. */
int thread_state_parse(const char *text, struct thread_state *out);
/* Read it for thread @tid of this process; 0, or -errno with @err filled. */
int thread_state_read(pid_t tid, struct thread_state *out, char *err, size_t errlen);

#endif
