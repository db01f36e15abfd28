/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cache directory that keeps what was used last: an entry's modification
 * time is its last use (a use touches it), and of the entries a caller
 * counts, all but the newest few go. L1's boot media and saved states are
 * such caches (hundreds of MB an entry).
 */
#ifndef PLERIG_KEEP_NEWEST_H
#define PLERIG_KEEP_NEWEST_H

#include <stdbool.h>
#include <sys/stat.h>

/* Whether the entry @name (@st: its lstat) of the directory is one of those counted. */
typedef bool (*keep_counted_fn)(const char *path, const char *name, const struct stat *st,
				void *arg);

/*
 * The entries of @dir that @counted accepts ("." and ".." never), newest
 * first by modification time: all but the @keep newest are given to @drop,
 * oldest last. Best effort: 0, or -1 with errno where @dir cannot be read.
 */
int keep_newest(const char *dir, unsigned keep, keep_counted_fn counted,
		void (*drop)(const char *path), void *arg);

#endif
