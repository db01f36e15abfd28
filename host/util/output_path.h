/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a results file goes, decided before anything is written: "-" is
 * stdout; a FIFO or a character device is written straight through (so
 * /dev/null stays a device); a regular file or a name not there yet is
 * replaced atomically (atomic_file.h), through symlinks to their target
 * where the link is the user's own or root's (another user's link could
 * lead the write to any file of the user's: refused, as the kernel's
 * fs.protected_symlinks refuses it in sticky directories); anything else
 * (a directory, a socket, a block device) is refused.
 */
#ifndef PLERIG_OUTPUT_PATH_H
#define PLERIG_OUTPUT_PATH_H

#include <stddef.h>

enum output_kind {
	OUTPUT_STDOUT,	/* "-" */
	OUTPUT_STREAM,	/* a FIFO or a character device: open and write */
	OUTPUT_REPLACE, /* a regular file or a new name: temporary file and rename */
	OUTPUT_REFUSED, /* a directory, a socket, a block device, a bad name */
};

/*
 * Classify @path. For OUTPUT_REPLACE, @target (of @target_len) receives the
 * name to rename onto: @path itself, or where its symlinks lead. On
 * OUTPUT_REFUSED, @err says why (without the path).
 */
enum output_kind output_path_classify(const char *path, char *target, size_t target_len, char *err,
				      size_t errlen);

/*
 * Before an experiment: can @path (given with @option, e.g. "--json") be
 * written? 0, or -1 with "OPTION PATH: reason" in @err.
 */
int output_path_check(const char *option, const char *path, char *err, size_t errlen);

/*
 * When writing failed: @len bytes of @text into a fresh file (O_EXCL) in
 * $TMPDIR, /tmp or the current directory, named plerig-WHAT-PID-XXXXXX.EXT.
 * 0 with its name in @name, or -1.
 */
int output_path_fallback(const char *what, const char *ext, const char *text, size_t len,
			 char *name, size_t name_len);

#endif
