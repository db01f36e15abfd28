/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How to apply a tune's answer, and what each way also changes: the
 * modprobe.d line for a module parameter (and the run-time write where
 * the kernel allows one), and for per-VM PLE off QEMU's -overcommit
 * cpu-pm=on and the libvirt domain XML that passes it.
 */
#ifndef PLERIG_TUNE_APPLY_H
#define PLERIG_TUNE_APPLY_H

#include <stdbool.h>
#include <stdint.h>

#include "model/tune_space.h"

struct tune_advice {
	char modprobe[256]; /* the line for /etc/modprobe.d/, and how it takes effect */
	char runtime[256];  /* the write that takes effect now, "" where none */
	char also[512];	    /* what else the parameter changes */
	char qemu[128];	    /* per-VM PLE off: QEMU's option */
	char qemu_also[512];
	char libvirt[512]; /* the same in a libvirt domain */
	char libvirt_also[256];
	char guest[384]; /* what the guest side changes, "" where nothing */
};

/* @value of @sp's parameter on @module; @writable: sysfs takes it at run time now. */
void tune_advice_make(const struct tune_space *sp, const char *module, uint64_t value,
		      bool writable, struct tune_advice *out);

#endif
