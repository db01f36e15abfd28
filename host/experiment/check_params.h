/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `expect = module-params`: a scenario's params = (a sweep point) held to
 * what the KVM modules show in sysfs around it. The value asked reads back
 * once set and still after the runs; afterwards every parameter of the
 * vendor module reads as before the scenario; and kvm.ko is never reloaded
 * (the same /sys/module/kvm, every parameter as it was: a value written to
 * it at run time, or given when it was loaded, survives). What make
 * ple-test's L1 checked around its gate with logging modprobe and rmmod
 * wrappers and a halt_poll_ns written before it, as a case of the check.
 */
#ifndef PLERIG_CHECK_PARAMS_H
#define PLERIG_CHECK_PARAMS_H

#include "experiment/check_ctx.h"

struct check_params_watch;

/* Before @s's params are set: the modules as they are. NULL when @s does not expect it. */
struct check_params_watch *check_params_watch(const struct scenario *s);

/* The params are set (@failed: NULL, or why setting them failed: a failed case). */
void check_params_set(struct check_params_watch *w, const char *failed);

/* No case after all (the scenario is skipped as a whole): @w freed. */
void check_params_forget(struct check_params_watch *w);

/* The scenario's runs are over, its params not restored yet. */
void check_params_ran(struct check_params_watch *w);

/*
 * The originals are back (or could not be): the case module-params, then
 * @w freed. Harmless with NULL. 0, or -1 out of memory.
 */
int check_params_judge(struct check_ctx *k, const struct scenario *s, struct check_params_watch *w);

#endif
