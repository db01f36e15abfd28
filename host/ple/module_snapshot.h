/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A KVM module as sysfs shows it at one moment: whether it is loaded, which
 * load it is, and every one of its parameters. Two snapshots tell whether a
 * module was reloaded in between (the kernel makes /sys/module/M anew at
 * each load: another inode) and what of its parameters changed: what
 * `plerig check`'s `expect = module-params` holds a scenario's params = to.
 */
#ifndef PLERIG_MODULE_SNAPSHOT_H
#define PLERIG_MODULE_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>

#include "ple/host_params.h"

#define MODULE_SNAPSHOT_MAX   96 /* parameters of one module (kvm_intel has ~30) */
#define MODULE_SNAPSHOT_VALUE 64

struct module_snapshot {
	char module[PLE_MODULE_LEN];
	bool loaded;		  /* ROOT/module/M exists */
	unsigned long long inode; /* of ROOT/module/M: another one after a reload */
	unsigned n;		  /* parameters, sorted by name */
	struct {
		char name[PLE_NAME_LEN];
		char value[MODULE_SNAPSHOT_VALUE]; /* as sysfs shows it, or "(unreadable: why)" */
	} p[MODULE_SNAPSHOT_MAX];
};

/* @module under the sysfs root @root now. */
void module_snapshot_take(const char *root, const char *module, struct module_snapshot *s);

/* @name's value in @s, or NULL when it has no such parameter. */
const char *module_snapshot_value(const struct module_snapshot *s, const char *name);

/*
 * Is @now the same load of the module as @then, with every parameter as it
 * was? true; else false with @why naming what differs ("kvm was reloaded
 * (/sys/module/kvm is another directory now)", "halt_poll_ns 200001 ->
 * 200000").
 */
bool module_snapshot_same(const struct module_snapshot *then, const struct module_snapshot *now,
			  char *why, size_t len);

/* "ple_gap=128 ple_window=4096 ...", at most @len - 1 characters (then "..."). */
void module_snapshot_list(const struct module_snapshot *s, char *buf, size_t len);

#endif
