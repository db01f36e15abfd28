/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a Check test keeps its files. Check runs each case in a child
 * process, and a failing ck_assert ends that child with _exit(1): nothing
 * after it runs, a checked fixture's teardown included, so a directory a
 * case or its setup made and meant to remove would stay in /tmp. Instead
 * check_run (support/check_main.h) makes one root directory in the parent
 * before the first case, points TMPDIR at it, and removes it with all it
 * holds after the last, however the cases ended. A case makes its own
 * directories inside it with scratch_dir. A root left by a killed test
 * program (its pid is in the name) is removed when that test starts again.
 */
#ifndef PLERIG_TESTS_SCRATCH_DIR_H
#define PLERIG_TESTS_SCRATCH_DIR_H

#include <stddef.h>

/* Room for a scratch directory's path: a long TMPDIR fails the case, not a snprintf. */
#define SCRATCH_DIR_LEN 128

/*
 * Makes the root, ${TMPDIR:-/tmp}/plerig-PROGRAM-PID.XXXXXX, and sets TMPDIR
 * to it. 0, or -1 with the reason printed.
 */
int scratch_root_make(void);

/* Removes the root and everything in it; nothing if none was made. */
void scratch_root_remove(void);

/* A new directory ROOT/@name.XXXXXX, its path in @buf; fails the case if it cannot. */
void scratch_dir(char *buf, size_t len, const char *name);

#endif
