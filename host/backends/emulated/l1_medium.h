/* SPDX-License-Identifier: GPL-2.0 */
/*
 * L1's boot medium, by content: everything that changes what L1 is (the
 * kernel and its modules, this plerig binary and its libraries, the guest
 * image, L1's init and the scripts that build it, busybox and kmod) goes
 * into a key; the medium of a key is built once, by images/l1/build-medium,
 * and kept in the cache (CACHE/emulated/media/KEY/).
 */
#ifndef PLERIG_L1_MEDIUM_H
#define PLERIG_L1_MEDIUM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct l1_medium_inputs {
	const char *kernel; /* a linux-image .deb or a bzImage; NULL: Debian's, cached by version */
	const char *modules; /* with a bzImage: its INSTALL_MOD_PATH; NULL: none */
	const char *cache;   /* CACHE/emulated */
	const char *guest;   /* the guest image */
	const char *scripts; /* the folder of build-medium, init, unpack-kernel, boot-shim.S,
				vendors.cfg, read-vendor, vendor-fit */
	const char *vendor;  /* a section of vendors.cfg: the KVM module L1 loads */
	FILE *progress;	     /* NULL: quiet */
	const char *who;     /* its progress lines begin so ("emulated host (amd)") */
};

struct l1_medium {
	char key[65];
	char iso[PATH_MAX];
	bool built; /* now, not found in the cache */
	double build_s;
	/* from build-medium's medium.txt */
	char kernel_version[256]; /* as /proc/version will say it */
	char kernel_release[128];
	char kernel_sha256[65];
	char kernel_origin[512];
	char booted[128];
};

/*
 * The medium for @in: found by its key, else built. 0, or -1 with @err;
 * then *@kernel_refused says whether the kernel (or its modules) was what
 * could not be used: not a kernel, no kvm_intel, modules of another one.
 */
int l1_medium_get(const struct l1_medium_inputs *in, struct l1_medium *m, bool *kernel_refused,
		  char *err, size_t errlen);

#endif
