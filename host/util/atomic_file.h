/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Results files that appear complete or not at all: written next to their
 * name under a temporary one, fsync'ed, then renamed over it. A crash or a
 * full disk leaves the old file (or none), never half of a new one that a
 * later `plerig compare` would misread.
 */
#ifndef PLERIG_ATOMIC_FILE_H
#define PLERIG_ATOMIC_FILE_H

#include <stddef.h>

#include "util/errbuf.h"

/*
 * Write @len bytes of @text to @path as output_path.h says: stdout for
 * "-", straight into a FIFO or a device, atomically over a regular file
 * (through symlinks). @what names the content in messages ("JSON", "CSV").
 * Returns 0, or -1 with a message naming the path and the reason in @err;
 * then the text went to a fallback file, named in the message, if any
 * could be written: plerig-W-PID-XXXXXX.W, W the first word of @what in
 * lower case ("JSON": plerig-json-PID-XXXXXX.json).
 */
int atomic_file_write(const char *path, const char *what, const char *text, size_t len, char *err,
		      size_t errlen);

/*
 * The same, with the fallback file named for @fallback, "NAME.EXT": "junit.xml"
 * gives plerig-junit-PID-XXXXXX.xml.
 */
int atomic_file_write_as(const char *path, const char *what, const char *fallback, const char *text,
			 size_t len, char *err, size_t errlen);

#endif
