/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM module parameters given beyond a host's stock ones: the emulated
 * host's --module-params, "NAME=VALUE ..." for the vendor module (kvm_intel,
 * kvm_amd) and "kvm.NAME=VALUE" for kvm.ko, as make ple-test's PLE_MODPARAMS
 * (tests/ple/check-inputs holds the same rules). Checked as text here (the
 * controller, before anything boots), applied inside L1 by reloading the
 * modules, each name held to the loaded module's own parameters.
 */
#ifndef PLERIG_MODULE_PARAMS_H
#define PLERIG_MODULE_PARAMS_H

#include <stddef.h>

#include "ple/host_params.h"

#define MODULE_PARAMS_MAX 16 /* of each module */

struct module_params {
	struct ple_setting vendor[MODULE_PARAMS_MAX]; /* the vendor module's */
	unsigned nr_vendor;
	struct ple_setting core[MODULE_PARAMS_MAX]; /* kvm.ko's, "kvm." dropped */
	unsigned nr_core;
};

/*
 * "ple_window=16384 kvm.halt_poll_ns=0" (blanks between pairs; a value of
 * letters, digits and . , : + - _) into @p. 0, or -1 with @err saying which
 * pair is not NAME=VALUE and what is.
 */
int module_params_parse(const char *text, struct module_params *p, char *err, size_t errlen);

/*
 * Inside L1: @module (the loaded vendor module) and, when @given has kvm.ko's,
 * kvm unloaded and loaded again, kvm with @given's, @module with @stock's and
 * then @given's (the later of two values wins, as on modprobe's command line).
 * Every name is first held to the module's parameters under the sysfs root
 * (ple_sysfs_root(): refused, naming those it has, before anything is
 * unloaded), and every value read back after, the stock ones too (those none
 * given replaced). @applied: the given parameters
 * as the modules read them now ("ple_window=16384 kvm.halt_poll_ns=0"). 0, or
 * -1 with @err (then the modules are loaded as they were, where that can be).
 */
int module_params_apply(const char *module, const struct module_params *stock,
			const struct module_params *given, char *applied, size_t len, char *err,
			size_t errlen);

#endif
