/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The embedded driver's run state (ROOT/run: the driver's pid file, each
 * domain's status file and QEMU's pid file) in memory. libvirt rewrites a
 * domain's status file six times while it starts it, each time with
 * fsync: 0.3 ms on an idle disk, 13-16 ms each while other work writes to
 * it (strace -T of a start at load 8 here). That state means nothing after
 * a reboot (libvirt's daemons keep it in /run), so ROOT/run becomes a link
 * to a directory of ours on /dev/shm (tmpfs), where fsync costs nothing.
 * The capability cache and QEMU's logs stay in ROOT, on disk.
 *
 * plerig removes only directories it made: named plerig-libvirt-run-XXXXXX
 * in /dev/shm, its user's, closed to others, holding the ROOT file it wrote
 * there with the root they were made for. A root that another user could
 * change (util/safe_dir.h) is left as it is.
 */
#ifndef PLERIG_LIBVIRT_STATE_IN_MEMORY_H
#define PLERIG_LIBVIRT_STATE_IN_MEMORY_H

/*
 * Make @root/run that link, or keep it: a directory there already is
 * replaced only while no driver holds it and no domain's state is in it
 * (a killed plerig's is cleared first, by this run's clean-up, for the
 * next). Best effort: where anything fails, the state stays on disk.
 */
void state_in_memory(const char *root);
/*
 * After the driver closed: remove the link and the directory, unless a
 * domain's state is in it (a later run needs it). Directories whose link
 * went otherwise (a removed cache dir) go in the next state_in_memory.
 */
void state_in_memory_release(const char *root);

#endif
