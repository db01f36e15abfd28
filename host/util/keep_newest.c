// SPDX-License-Identifier: GPL-2.0
#include "util/keep_newest.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/strfmt.h"

struct entry {
	char path[PATH_MAX];
	struct timespec used;
};

/* newest first; equal times by path, so the same directory always prunes alike */
static int newest_first(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	if (a->used.tv_sec != b->used.tv_sec)
		return a->used.tv_sec > b->used.tv_sec ? -1 : 1;
	if (a->used.tv_nsec != b->used.tv_nsec)
		return a->used.tv_nsec > b->used.tv_nsec ? -1 : 1;
	return strcmp(a->path, b->path);
}

int keep_newest(const char *dir, unsigned keep, keep_counted_fn counted,
		void (*drop)(const char *path), void *arg)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct entry *all = NULL;
	size_t n = 0, room = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    pathf(path, sizeof(path), "%s/%s", dir, e->d_name) || lstat(path, &st) ||
		    !counted(path, e->d_name, &st, arg))
			continue;
		if (n == room) {
			struct entry *more = realloc(all, (room ? 2 * room : 8) * sizeof(*all));
			if (!more)
				break; /* what was read so far is pruned: best effort */
			all = more;
			room = room ? 2 * room : 8;
		}
		str_copy(all[n].path, sizeof(all[n].path), path);
		all[n++].used = st.st_mtim;
	}
	closedir(d);
	if (n)
		qsort(all, n, sizeof(*all), newest_first);
	for (size_t i = keep; i < n; i++)
		drop(all[i].path);
	free(all);
	return 0;
}
