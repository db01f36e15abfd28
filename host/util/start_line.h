/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where vCPU (or native) threads wait once they are set up, until every
 * one of the run is: boot never competes with a running storm, and the
 * storm starts everywhere at once.
 */
#ifndef PLERIG_START_LINE_H
#define PLERIG_START_LINE_H

#include <pthread.h>
#include <stdbool.h>

struct start_line {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool open;
};

void start_line_init(struct start_line *g);
void start_line_open(struct start_line *g);
/* Wait until the start line opens or *@abandon becomes non-zero (atomic). */
void start_line_wait(struct start_line *g, const int *abandon);
/* Wake the waiters so that they look at their abandon flag again. */
void start_line_wake(struct start_line *g);
void start_line_destroy(struct start_line *g);

#endif
