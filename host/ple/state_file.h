/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The original PLE parameter values, on disk before the first change, so
 * that `plerig sweep --restore` can put them back after a crash or a kill
 * -9. Written atomically; removed once the originals are back. With them
 * the module's other parameters that a reload passes again (enable_apicv=N,
 * pt_mode=-1: ple_host_kept_params), so that a restore that has to load
 * the module (a sweep killed between rmmod and modprobe) loads it as it was.
 */
#ifndef PLERIG_STATE_FILE_H
#define PLERIG_STATE_FILE_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "ple/host_params.h"

/* The most of a module's other parameters kept: with the PLE ones, one modprobe's worth. */
#define PLE_MAX_KEPT 48

struct ple_state {
	pid_t pid;		     /* the sweep that wrote it */
	char root[PATH_MAX];	     /* its sysfs root */
	char module[PLE_MODULE_LEN]; /* the module whose parameters it changed */
	unsigned n;
	struct ple_setting orig[PLE_MAX_PARAMS];
	unsigned nk;
	struct ple_setting kept[PLE_MAX_KEPT]; /* the module's other parameters, as they were */
};

/* $PLERIG_STATE_DIR, or /var/lib/plerig. */
const char *ple_state_dir(void);
/*
 * Create the directory (0700) unless it is there. It, and every directory
 * on the way, must be plerig's user's or root's and closed to others'
 * writes (util/safe_dir.h): else -EPERM with @err. 0, or -errno with @err.
 */
int ple_state_dir_make(char *err, size_t errlen);
/* DIR/ple-params.state */
void ple_state_path(char *buf, size_t len);

/* The file's text, and back. Pure: unit-tested. 0, or -1 with @err. */
int ple_state_format(const struct ple_state *s, char *buf, size_t len);
int ple_state_parse(const char *text, struct ple_state *s, char *err, size_t errlen);

/* Create the directory if needed and replace the file atomically (never through a link). 0 or
 * -errno. */
int ple_state_save(const struct ple_state *s, char *err, size_t errlen);
/* 0, -ENOENT when there is no state file (err untouched), or -errno (a link there, a directory
 * another user could change). */
int ple_state_load(struct ple_state *s, char *err, size_t errlen);
int ple_state_remove(char *err, size_t errlen);

#endif
