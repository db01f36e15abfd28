/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One sweep at a time per state directory: a POSIX record lock on
 * DIR/ple-params.lock, taken before the state file is looked at and held
 * until the originals are back. The kernel drops it when the holder dies,
 * kill -9 included, so a stale lock cannot exist; and F_GETLK names the
 * holder's pid without a race against it writing that pid down.
 */
#ifndef PLERIG_SWEEP_LOCK_H
#define PLERIG_SWEEP_LOCK_H

#include <stddef.h>
#include <sys/types.h>

/* DIR/ple-params.lock, DIR as ple_state_dir() says. */
void sweep_lock_path(char *buf, size_t len);

/*
 * Take the lock without waiting (creating the directory and the file when
 * needed). Returns its fd (>= 0), to pass to sweep_lock_release(); -EBUSY
 * when another process holds it, with its pid in @holder and a message
 * naming it in @err; or another -errno with @err.
 */
int sweep_lock_acquire(pid_t *holder, char *err, size_t errlen);

/*
 * The pid holding the lock now, 0 when nobody does (or there is no lock
 * file); creates nothing. For a refusal that would otherwise blame the
 * host for what a running sweep is doing to it (a module it has unloaded).
 */
pid_t sweep_lock_holder(void);

/* -EBUSY, with the message sweep_lock_acquire() gives, naming @holder, in @err. */
int sweep_lock_busy(pid_t holder, char *err, size_t errlen);

/* Give it back (closing @fd drops a POSIX lock); harmless for fd < 0. */
void sweep_lock_release(int fd);

#endif
