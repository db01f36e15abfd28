// SPDX-License-Identifier: GPL-2.0
#include "util/at_once.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

/*
 * Under AddressSanitizer (make sanitize-test) the items run one after the
 * other: libvirt forks its ssh and helpers from one host's thread and the
 * child allocates before exec (opendir to close its fds), and GCC 12's ASan
 * allocator is not fork-safe: when another host's thread held its lock at
 * the fork, the child waited on it for ever (test_redaction timed out in
 * two sanitize runs, gdb showed the child in SizeClassAllocator64's lock).
 * glibc's malloc takes its locks across fork, so plain builds open at once.
 */
#if defined(__SANITIZE_ADDRESS__)
#define AT_ONCE_THREADS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AT_ONCE_THREADS 0
#endif
#endif
#ifndef AT_ONCE_THREADS
#define AT_ONCE_THREADS 1
#endif

unsigned at_once(void *items, size_t size, unsigned n, void *(*fn)(void *))
{
	pthread_t *threads = calloc(n ? n : 1, sizeof(*threads));
	bool *started = calloc(n ? n : 1, sizeof(*started));
	unsigned failed = 0;
	for (unsigned i = 0; AT_ONCE_THREADS && threads && started && i < n; i++)
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
