/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a plerig killed with SIGKILL leaves behind, found and removed by the
 * next plerig, whatever its cache dir. Each libvirt run directory
 * ($TMPDIR/plerig-libvirt-PID-XXXXXX) names its owner (file "owner": pid and
 * process start time), each domain it creates ("domain-I": name and the
 * embedded driver's root) and, once known, its QEMU ("qemu-I": pid and
 * start time). A directory whose owner no longer runs is an orphan: its
 * QEMUs are killed (only a process whose command line names the domain),
 * the domains' state in the embedded driver's root is removed, then the
 * directory itself.
 */
#ifndef PLERIG_LV_ORPHANS_H
#define PLERIG_LV_ORPHANS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * Sweep $TMPDIR (or /tmp) and /tmp for run directories of dead plerig
 * processes and remove what they left, one line on @say per removal.
 * Returns how many orphaned run directories were removed.
 */
unsigned orphans_sweep(FILE *say);

/*
 * QEMU capability probes that a plerig killed while libvirt probed left
 * running under @root (the embedded driver's root, which this process now
 * holds): ROOT/lib/qemu/qmp-XXXXXX/ with qmp.pid and qmp.monitor, the QEMU
 * daemonized, so nothing else ever stops it. A process is killed only if
 * it started before this one and its command line names that directory;
 * the directory goes with it, as does one a minute old with no probe
 * running. Returns how many were killed.
 */
unsigned orphans_kill_stale_probes(const char *root, FILE *say);

/* Keep the newest @keep plerig-*.log files of @root/log/qemu, remove the others. */
void orphans_trim_qemu_logs(const char *root, unsigned keep);
/* Keep the newest @keep regular files PREFIX*SUFFIX of @dir, remove the others. */
void orphans_trim_logs(const char *dir, const char *prefix, const char *suffix, unsigned keep);

#endif
