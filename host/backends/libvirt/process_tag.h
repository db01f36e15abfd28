/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A process named so that a reused pid is not taken for it: "PID STARTTIME"
 * (the start time in clock ticks since boot, field 22 of /proc/PID/stat).
 * A run directory's "owner", a domain's QEMU and a remote pool's holder are
 * written as such tags; orphans.h and domain_owner.h read them back to tell
 * whether their process still runs.
 */
#ifndef PLERIG_LV_PROCESS_TAG_H
#define PLERIG_LV_PROCESS_TAG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Field 22 of /proc/@pid/stat into @out; -1 when it does not run. */
int process_start_time(pid_t pid, unsigned long long *out);
/* "PID STARTTIME\n" of process @pid into @out; -1 when it does not run. */
int process_tag(pid_t pid, char *out, size_t len);
/* Does process @pid run, started at @start (as its tag has it)? */
bool process_runs(int pid, unsigned long long start);

#endif
