/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reloading a KVM vendor module with new parameter values: the only way to
 * change a read-only (0444) PLE parameter without a reboot.
 */
#ifndef PLERIG_MODULE_RELOAD_H
#define PLERIG_MODULE_RELOAD_H

#include <stddef.h>

#include "ple/host_params.h"

/* The most parameters one modprobe passes: a vendor module has about 30. */
#define MODULE_MAX_PARAMS 64

/* $PLERIG_MODPROBE, or "modprobe" (searched in PATH). */
const char *module_modprobe_command(void);
/* $PLERIG_RMMOD, or "rmmod" (searched in PATH). */
const char *module_rmmod_command(void);

/*
 * `rmmod @module`, then `modprobe @module p1=v1 p2=v2 ...`. Only the vendor
 * module goes: `modprobe -r` would unload kvm too (nothing else uses it),
 * losing whatever its writable parameters (halt_poll_ns, ...) were set to
 * at run time, and reloading it costs as much again. When the second step
 * fails, the module is loaded once more without the new values,
 * so that the host is not left without KVM. 0, or -errno with @err saying
 * which command failed, what it printed and what to do.
 */
int module_reload(const char *module, const struct ple_setting *params, unsigned n, char *err,
		  size_t errlen);

/* `rmmod @module` alone: 0, or -errno with @err saying what rmmod printed. */
int module_unload(const char *module, char *err, size_t errlen);

/*
 * `modprobe @module p1=v1 ...` alone, for a module that is not loaded (a
 * sweep killed between the two steps of a reload). 0, or -errno with @err.
 */
int module_load(const char *module, const struct ple_setting *params, unsigned n, char *err,
		size_t errlen);

#endif
