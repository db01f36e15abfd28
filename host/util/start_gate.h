/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where vCPU (or native) threads wait once they are set up, until every
 * one of the run is: boot never competes with a running storm, and the
 * storm starts everywhere at once.
 */
#ifndef PLERIG_START_GATE_H
#define PLERIG_START_GATE_H

#include <pthread.h>
#include <stdbool.h>

struct start_gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool open;
};

void start_gate_init(struct start_gate *g);
void start_gate_open(struct start_gate *g);
/* Wait until the gate opens or *@abandon becomes non-zero (atomic). */
void start_gate_wait(struct start_gate *g, const int *abandon);
/* Wake the waiters so that they look at their abandon flag again. */
void start_gate_wake(struct start_gate *g);
void start_gate_destroy(struct start_gate *g);

#endif
