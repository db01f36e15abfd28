/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The error convention of plerig's modules: a caller's (char *err, size_t
 * errlen) buffer receives one line saying what failed and how to fix it.
 * The whole message is written by the printable rule (util/printable.h):
 * a file name, host name or libvirt answer it quotes cannot break the
 * line or send a terminal escape sequence, wherever the message is shown.
 *
 *   if (fd < 0)
 *           return errbuf_printf(err, errlen, "opening %s: %s", path, strerror(errno));
 *
 * Never snprintf(err, ...) then return: scripts/lint-errors refuses it, and a
 * buffer of another size than ERRBUF_SIZE.
 *
 * Which buffer a failure or a missing figure goes to:
 * - (err, errlen): an operation failed and the caller stops or reports it.
 *   Returns -1 (errbuf_printf), or a -errno the caller tells apart
 *   (errbuf_errno); a pointer or enum is returned on its own line after
 *   errbuf_printf. A caller that only passes it on declares
 *   `char err[ERRBUF_SIZE]`.
 * - run_fail(r, ...) (backends/run_result.h): a run failed; the first reason
 *   is kept in its record (r->error), which the results carry as its error.
 *   Inside a backend's run, an err from a lower layer ends up there.
 * - (why, len): a reason why a figure is n/a or why plerig chose a way,
 *   not an error: the function still succeeds, and the figure is written
 *   as null with this reason. Filled with errbuf_printf too (its -1 unused).
 */
#ifndef PLERIG_ERRBUF_H
#define PLERIG_ERRBUF_H

#include <limits.h>
#include <stddef.h>

/*
 * Every error buffer's size: the longest path (PATH_MAX) and a sentence
 * around it. A message naming two long paths is cut, never overflowed.
 */
#define ERRBUF_SIZE (PATH_MAX + 256)

/* Format into @err (if there is one); always returns -1, for `return errbuf_printf(...)`. */
int errbuf_printf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * The same, for a function that returns a -errno: returns @neg_errno, for
 * `return errbuf_errno(err, errlen, -errno, "...: %s", strerror(errno))`
 * (errno is read before anything in the call can change it).
 */
int errbuf_errno(char *err, size_t errlen, int neg_errno, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
