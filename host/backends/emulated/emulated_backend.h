/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The emulated host (`--connect emulated`): Bochs' Intel CPU with VMX and
 * PAUSE-loop exiting, L1 (the kernel under test) loading the real
 * kvm_intel, and inside it this same plerig, which runs every variant with
 * its kvm (or native) backend and sends the result back whole: the figures
 * of this host are computed by the code that computes them everywhere.
 * Time there is emulated seconds (Bochs' instruction clock). Needs no
 * /dev/kvm, VMX or SVM here: the one place kvm_intel's PLE runs on every
 * machine.
 */
#ifndef PLERIG_EMULATED_BACKEND_H
#define PLERIG_EMULATED_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "backends/backend.h"

struct emulated_options {
	const char *kernel;	/* --kernel: a linux-image .deb or a bzImage; NULL: Debian's */
	const char *modules;	/* --modules: a bzImage's INSTALL_MOD_PATH; NULL: none */
	const char *cache_dir;	/* --cache-dir; NULL: ~/.cache/plerig */
	const char *guest_path; /* the guest image L1's plerig boots */
	bool quiet;		/* no progress on stderr while L1 boots */
};

/*
 * Build or find L1's medium, boot it under Bochs and wait until L1's
 * plerig answers. NULL with @err ("emulated host: ..." and how to fix it)
 * when it cannot: Bochs missing, a kernel without kvm_intel, L1 stalled.
 */
struct backend *emulated_backend_open(const struct emulated_options *o, char *err, size_t errlen);

#endif
