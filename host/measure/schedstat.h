/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host scheduler view of a thread: /proc/self/task/TID/schedstat holds
 * "run_ns wait_ns timeslices": time on a CPU, time runnable but waiting in
 * a run queue (the run-queue delay a preempted vCPU suffers), and the
 * number of times it was scheduled in.
 */
#ifndef PLERIG_SCHEDSTAT_H
#define PLERIG_SCHEDSTAT_H

#include <stdint.h>
#include <sys/types.h>

struct schedstat {
	uint64_t run_ns;
	uint64_t wait_ns;
	uint64_t timeslices;
};

/* Parse the file's text; 0 on success, -1 if malformed. */
int schedstat_parse(const char *text, struct schedstat *out);
/* Read for a thread of this process; 0, or -errno with @err filled. */
int schedstat_read(pid_t tid, struct schedstat *out, char *err, size_t errlen);
/* The same for a thread of any process (QEMU's vCPU threads): /proc/TID. */
int schedstat_read_any(pid_t tid, struct schedstat *out, char *err, size_t errlen);
void schedstat_delta(const struct schedstat *before, const struct schedstat *after,
		     struct schedstat *out);

/*
 * A thread's last reading, taken by the thread itself as it ends: once it
 * has returned its /proc/self/task/TID is gone, and a reader that comes
 * late (a host thread slow to take the snapshots after STOP, as under
 * emulation) would otherwise find no run time at all, so that its CPU
 * time looks like other work's.
 */
struct schedstat_kept {
	int valid; /* atomic: set after s, by the thread */
	struct schedstat s;
};

/* Called by the ending thread itself: keep its own figures in @k. */
void schedstat_keep_own(struct schedstat_kept *k);
/*
 * Thread @tid of this process now, or, when it has ended, what it kept
 * in @k (NULL: nothing kept). 0, or -errno with @err filled.
 */
int schedstat_read_or_kept(pid_t tid, const struct schedstat_kept *k, struct schedstat *out,
			   char *err, size_t errlen);

#endif
