/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The emulated CPU vendors (images/l1/vendors.cfg, one section each: the
 * file make ple-test reads too): Bochs' CPU model, which Bochs runs it, and
 * what this host's outputs call it. What L1 loads and checks for a vendor
 * (its KVM module, parameters, CPU flags) build-medium reads from the same
 * file into L1's medium.
 */
#ifndef PLERIG_EMULATED_VENDOR_H
#define PLERIG_EMULATED_VENDOR_H

#include <stddef.h>

struct emulated_vendor {
	char name[32];	   /* the section: intel, amd */
	char cpu[64];	   /* Bochs' cpu: model= */
	char bochs[32];	   /* "system" (Debian's bochs-bin), else the least Bochs version */
	char cpu_name[96]; /* Intel Core i7-4770 (Haswell) */
	char virt[128];	   /* VMX with PAUSE-loop exiting */
	char module[32];   /* kvm_intel */
	char params[128];  /* its PLE parameters as L1 loads it: "ple_gap=128 ple_window=4096" */
};

#define EMULATED_VENDOR_UNKNOWN (-2)

/*
 * The section @name (NULL: intel) of @path. 0; EMULATED_VENDOR_UNKNOWN with
 * @err naming the vendors there; -1 with @err (the file cannot be read, or a
 * key is missing).
 */
int emulated_vendor_read(const char *path, const char *name, struct emulated_vendor *v, char *err,
			 size_t errlen);

/* Is Bochs version @have ("3.1", "3.1+dfsg-1") at least @want ("3.1")? */
int emulated_vendor_version_ok(const char *have, const char *want);

#endif
