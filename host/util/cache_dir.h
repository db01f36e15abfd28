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

/*
 * A --cache-dir given on the command line, held to util/safe_dir's rules
 * before anything runs, so that a directory another user can change is bad
 * input (exit 2), not a failed run: @path walked as mkdir_p does but not
 * created (a missing directory is fine here: the run makes it), and its
 * libvirt/ (the embedded driver's root) walked too where it is there. 0, or
 * -1 with @err naming the option, the directory at fault and why.
 */
int cache_dir_given(const char *path, char *err, size_t errlen);

/*
 * @path as an absolute path into @out (relative: under the working
 * directory). What plerig hands on (Bochs' configuration, the links of a
 * staged state) resolves elsewhere than here. 0, or -1 with @err.
 */
int cache_dir_absolute(const char *path, char *out, size_t len, char *err, size_t errlen);

#endif
