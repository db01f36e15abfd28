/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Directories where plerig keeps state that it later acts on: the embedded
 * libvirt driver's root under --cache-dir (a qemu.conf plerig writes, a
 * run link whose target it removes), the sweep's saved PLE parameters.
 * When plerig runs as root, another user who can write anywhere on the way
 * there could point those writes and removals at a file of root's. So such
 * a directory is reached by walking each component from / with O_NOFOLLOW
 * and checking each one found:
 *
 * - a directory must be owned by plerig's user (its effective uid) or by
 *   root, and no one else may write to it; one that others may write to is
 *   passed through only when it is sticky (/tmp, /dev/shm: there no one
 *   can rename or remove another's entry), and the last one never;
 * - a symbolic link is followed only when it is owned by plerig's user or
 *   root (as fs.protected_symlinks does in sticky directories).
 *
 * Files in such a directory are then opened relative to it (openat) and
 * never through a symbolic link: a link planted at a file's name is
 * replaced, not followed.
 */
#ifndef PLERIG_SAFE_DIR_H
#define PLERIG_SAFE_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Make the directories that are missing, mode 0700 (plerig's user's, as all the others). */
#define SAFE_DIR_CREATE 1u

/*
 * Open @path (a relative one from the working directory, whose own path
 * is walked too) by the rules above. An O_DIRECTORY file descriptor, or
 * -1 with @err naming the directory or link at fault, why, and what to do;
 * errno is ENOENT when a component is missing (without SAFE_DIR_CREATE).
 */
int safe_dir_open(const char *path, unsigned flags, char *err, size_t errlen);

/*
 * @rel ("etc", "cache/qemu/capabilities") under @dirfd, a directory
 * safe_dir_open gave, by the same rules; @shown is @dirfd's path, for
 * messages. As safe_dir_open.
 */
int safe_dir_open_at(int dirfd, const char *shown, const char *rel, unsigned flags, char *err,
		     size_t errlen);

/* May @uid's files decide where plerig writes: plerig's own user, or root? */
bool safe_dir_trusted_owner(uid_t uid);

/* All of @len bytes to @fd, through EINTR and short writes: 0, or -1 with errno. */
int safe_file_write_all(int fd, const void *data, size_t len);

/*
 * Replace @name in @dirfd (named @shown in messages) with the @len bytes
 * of @data, mode @mode (less the umask): a new file created exclusively
 * under a temporary name (so a link planted there fails the create),
 * written, fsync'ed, renamed over @name (a link at @name is replaced, not
 * followed), and the directory fsync'ed. 0, or -1 with @err.
 */
int safe_file_replace(int dirfd, const char *shown, const char *name, const void *data, size_t len,
		      mode_t mode, char *err, size_t errlen);

#endif
