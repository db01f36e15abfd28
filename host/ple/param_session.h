/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A change of host PLE parameters that always ends with the originals
 * back: begin (checks, then the originals saved to the state file), apply
 * as often as needed, restore. A process that dies in between leaves the
 * state file, from which ple_restore_from_state() restores later.
 */
#ifndef PLERIG_PARAM_SESSION_H
#define PLERIG_PARAM_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "ple/host_params.h"
#include "ple/state_file.h"

struct ple_session {
	struct ple_host host;
	struct ple_state state; /* the originals, as saved */
	bool active;		/* state saved, not restored yet */
	int lock_fd;		/* the sweep lock (sweep_lock.h) while active, or -1 */
};

/*
 * Take the sweep lock (refused with -EBUSY, naming the holder, while
 * another sweep runs), detect the host under ple_sysfs_root(), check that
 * every one of @names exists and can be changed now (runtime write or
 * reload), refuse while a state file of an unrestored sweep exists, and
 * save the originals. Nothing is changed. 0, or -errno with @err naming
 * the parameter, the module and the fix.
 */
int ple_session_begin(struct ple_session *s, const char *const *names, unsigned n, char *err,
		      size_t errlen);
int ple_session_apply(struct ple_session *s, const struct ple_setting *set, unsigned n, char *err,
		      size_t errlen);
/*
 * Put the originals back, remove the state file and let go of the lock;
 * harmless when not active. On failure the state file stays for `plerig
 * sweep --restore`.
 */
int ple_session_restore(struct ple_session *s, char *err, size_t errlen);

/*
 * `plerig sweep --restore`: restore what the state file says, under the
 * sweep lock (refused while a sweep runs). A module that is not loaded at
 * all (a sweep killed between rmmod and modprobe) is loaded with the saved
 * values. Returns 1 when values were restored (@msg says which), 0 when
 * there was nothing to restore, -errno with @msg saying why not.
 */
int ple_restore_from_state(char *msg, size_t msglen);

#endif
