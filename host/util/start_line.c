// SPDX-License-Identifier: GPL-2.0
#include "util/start_line.h"

void start_line_init(struct start_line *g)
{
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	g->open = false;
}

void start_line_open(struct start_line *g)
{
	pthread_mutex_lock(&g->lock);
	g->open = true;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

void start_line_wait(struct start_line *g, const int *abandon)
{
	pthread_mutex_lock(&g->lock);
	while (!g->open && !__atomic_load_n(abandon, __ATOMIC_ACQUIRE))
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

void start_line_wake(struct start_line *g)
{
	pthread_mutex_lock(&g->lock);
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

void start_line_destroy(struct start_line *g)
{
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
}
