// SPDX-License-Identifier: GPL-2.0
#include "util/at_once.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

unsigned at_once(void *items, size_t size, unsigned n, void *(*fn)(void *))
{
	pthread_t *threads = calloc(n ? n : 1, sizeof(*threads));
	bool *started = calloc(n ? n : 1, sizeof(*started));
	unsigned failed = 0;
	for (unsigned i = 0; threads && started && i < n; i++)
		started[i] =
		    pthread_create(&threads[i], NULL, fn, (char *)items + (size_t)i * size) == 0;
	for (unsigned i = 0; i < n; i++) {
		void *rc = NULL;
		if (started && started[i])
			pthread_join(threads[i], &rc);
		else
			rc = fn((char *)items + (size_t)i * size);
		failed += rc != NULL;
	}
	free(threads);
	free(started);
	return failed;
}
