/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files of one run (config, serial logs, a copy of the guest image
 * where QEMU may not reach the original) in a directory of their own
 * under $TMPDIR, removed with everything in it when the run ends.
 */
#ifndef PLERIG_RUN_DIR_H
#define PLERIG_RUN_DIR_H

#include <limits.h>
#include <stddef.h>

struct run_dir {
	char path[PATH_MAX];
};

int run_dir_create(struct run_dir *d, char *err, size_t errlen);
/* @name inside the directory, into @out. */
int run_dir_file(const struct run_dir *d, const char *name, char *out, size_t len);
/* Write @len bytes to @name (mode 0644: QEMU may run as another user). */
int run_dir_write(const struct run_dir *d, const char *name, const void *data, size_t len,
		  char *err, size_t errlen);
/* Read all of @path (at most @max bytes) into a malloc'ed buffer; -1 with @err. */
int read_whole_file(const char *path, size_t max, unsigned char **data, size_t *len, char *err,
		    size_t errlen);
/* Remove every file in it, then it. Safe to call twice, or on one never created. */
void run_dir_remove(struct run_dir *d);

#endif
