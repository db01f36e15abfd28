// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the results-file loader of `plerig compare`
 * (compare/results_file.c), on any bytes, then what compare reads of an
 * accepted file: every variant's values of every metric.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compare/results_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	if (fd < 0) {
		fd = memfd_create("plerig-fuzz-results", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	const struct metric *all[64];
	const unsigned n = nr_metrics < 64 ? nr_metrics : 64;
	for (unsigned i = 0; i < n; i++)
		all[i] = &metrics[i];
	struct results_file f;
	char err[512];
	if (results_file_load(path, all, n, &f, err, sizeof(err)) == 0) {
		for (unsigned v = 0; v < f.nr_variants; v++) {
			double *values = calloc(f.variants[v].nr_runs + 1, sizeof(*values));
			if (!values)
				abort();
			for (unsigned m = 0; m < n; m++) {
				const char *why = NULL;
				if (results_file_values(&f.variants[v], all[m], values, &why) >
				    f.variants[v].nr_runs)
					abort();
				/* the reason is read whole: ASan checks it is a live string */
				if (why) {
					volatile size_t len = strlen(why);
					(void)len;
				}
			}
			results_file_member(&f.variants[v], "stall_us");
			free(values);
		}
		results_file_free(&f);
	}
	return 0;
}
