/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small text files: sysfs attributes, procfs and tracefs entries, plerig's
 * own state. Each call is one open/read or open/write, so a sysfs write is
 * one store to the attribute, as the kernel expects.
 */
#ifndef PLERIG_TEXT_FILE_H
#define PLERIG_TEXT_FILE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Read @path whole into @buf (NUL-terminated, trailing newlines removed).
 * Returns the length, or -errno (-EFBIG when it does not fit).
 */
ssize_t text_file_read(const char *path, char *buf, size_t len);

/*
 * Is @path a regular file that can be opened for reading? Opened with
 * O_NONBLOCK, so a FIFO is refused at once instead of waiting for a writer.
 * 0, or -1 with the reason (without the path) in @err.
 */
int text_file_check_regular(const char *path, char *err, size_t errlen);

/* Write @text to an existing file with a single write(). 0 or -errno. */
int text_file_write(const char *path, const char *text);

/* Append @text to an existing file with a single write() (`echo v >> file`). 0 or -errno. */
int text_file_append(const char *path, const char *text);

#endif
