/* SPDX-License-Identifier: GPL-2.0 */
/* Running a helper program (modprobe, virsh, qemu) and keeping what it said. */
#ifndef PLERIG_SPAWN_H
#define PLERIG_SPAWN_H

#include <stddef.h>

/*
 * Run @argv (argv[0] searched in PATH) with stdin on /dev/null and stdout
 * plus stderr captured into @out (NUL-terminated, the tail kept when it is
 * too long; @out may be NULL). A program still running after @timeout_ms
 * is killed. Returns its exit status (0-255), 128 + signal when it was
 * killed, or -errno when it could not be run at all (-ENOENT: no such
 * program, -ETIMEDOUT), with @err naming the step that failed.
 */
int spawn_capture(char *const argv[], char *out, size_t outlen, int timeout_ms, char *err,
		  size_t errlen);

#endif
