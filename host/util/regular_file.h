/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Input files read whole, after refusing anything that is not a regular
 * file: a FIFO with no writer would block the read for ever, and a device
 * or a FIFO has no size a cap could be checked against beforehand. The
 * open itself never blocks (O_NONBLOCK), so a FIFO is refused at once.
 */
#ifndef PLERIG_REGULAR_FILE_H
#define PLERIG_REGULAR_FILE_H

#include <stddef.h>

/*
 * Read @name, relative to @dirfd (AT_FDCWD, or an open directory), into a
 * malloc'ed, NUL-terminated @text of @len bytes (it may hold NUL bytes of
 * its own: compare @len with strlen). @flags adds to the open flags:
 * O_NOFOLLOW refuses a symbolic link. More than @max bytes is refused.
 * 0, or -errno with the reason, without the name, in @err: -ELOOP a
 * symbolic link under O_NOFOLLOW, -EINVAL not a regular file, -EFBIG
 * larger than @max.
 */
int regular_file_read(int dirfd, const char *name, int flags, size_t max, char **text, size_t *len,
		      char *err, size_t errlen);

/* "256 KiB", "4 MiB": a size cap as messages state it. */
const char *regular_file_size_text(size_t bytes, char *buf, size_t len);

#endif
