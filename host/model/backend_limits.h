/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a backend cannot do, said once: the command line refuses a setting
 * no backend of a run can take, the matrix leaves out the variants a
 * backend cannot run (and says so), and the table prints n/a with the
 * same reason where a column names a setting the backend does not have.
 */
#ifndef PLERIG_BACKEND_LIMITS_H
#define PLERIG_BACKEND_LIMITS_H

#include "model/variant.h"

enum backend_setting {
	SETTING_PLE_OFF,     /* --ple off: PAUSE interception turned off for the VM */
	SETTING_HALT_POLL,   /* --halt-poll other than host: KVM's halt polling set per VM */
	SETTING_RING_KERNEL, /* --ring kernel: the storm at guest ring 0 */
	SETTING_COUNT
};

/* Why @b cannot take @s (static text), or NULL where it can. */
const char *backend_cannot(enum backend_kind b, enum backend_setting s);

/*
 * How to get @s where no backend of a run can take it: "add --backend kvm, or ...".
 * (--inject under native is no silent no-op: the variant fails, saying so.)
 */
const char *backend_setting_fix(enum backend_setting s);

/*
 * Why @v's ple (halt-poll) column is n/a: nothing intercepts PAUSE there
 * (there is no KVM halt polling there), so "on" ("host") would name a
 * setting the run does not have. NULL where the column is what it says.
 */
const char *variant_ple_na(const struct variant *v);
const char *variant_halt_poll_na(const struct variant *v);

#endif
