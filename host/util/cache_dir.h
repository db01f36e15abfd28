/* SPDX-License-Identifier: GPL-2.0 */
/* Where plerig keeps what it may rebuild (--cache-dir): the embedded driver's state, L1's media. */
#ifndef PLERIG_CACHE_DIR_H
#define PLERIG_CACHE_DIR_H

#include <stddef.h>

/* $XDG_CACHE_HOME/plerig, else ~/.cache/plerig. 0, or -1 with @err. */
int cache_dir_default(char *out, size_t len, char *err, size_t errlen);

/*
 * Create @path and its parents (mode 0700) as needed, walked by util/safe_dir's
 * rules (no other user's directory or link on the way). 0, or -1 with @err.
 */
int mkdir_p(const char *path, char *err, size_t errlen);

#endif
