/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The emulated host: Bochs' Intel CPU with VMX and PAUSE-loop exiting, L1
 * (the kernel under test) with the real kvm_intel, and inside it this same
 * plerig (`plerig l1-serve`), which runs what this one sends: a variant
 * (emulated_host_run: the whole result comes back, see emulated_backend.h)
 * or a whole command (emulated_host_exec: plerig check or sweep, with their
 * files in and out). Needs no /dev/kvm, VMX or SVM here. Its times are
 * emulated seconds (Bochs' instruction clock).
 */
#ifndef PLERIG_EMULATED_HOST_H
#define PLERIG_EMULATED_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "backends/emulated/emulated_vendor.h"
#include "backends/emulated/l1_protocol.h"
#include "measure/host_info.h"
#include "model/results.h"

struct emulated_options {
	const char *kernel;	/* --kernel: a linux-image .deb or a bzImage; NULL: Debian's */
	const char *modules;	/* --modules: a bzImage's INSTALL_MOD_PATH; NULL: none */
	const char *cache_dir;	/* --cache-dir; NULL: ~/.cache/plerig */
	const char *guest_path; /* the guest image L1's plerig boots */
	const char *vendor; /* emulated:VENDOR, a section of images/l1/vendors.cfg; NULL: intel */
	/* --module-params: "ple_window=16384 kvm.halt_poll_ns=0", L1's modules reloaded with
	 * them (after the vendor's stock ones) once it is up; NULL: stock */
	const char *module_params;
	bool quiet; /* no progress on stderr while L1 boots */
};

/* Why the emulated host could not come up: the kernel's fault, or not. */
enum emulated_failure {
	EMULATED_BROKEN,	  /* Bochs missing, a stall, ...: nothing said about the kernel */
	EMULATED_USAGE,		  /* emulated:VENDOR names no vendor */
	EMULATED_KERNEL_UNUSABLE, /* no kvm_intel, no serial console, panics, not a kernel */
};

struct emulated_host;

/*
 * Build or find L1's medium, boot it under Bochs and wait until L1's
 * plerig answers. NULL with @err ("emulated host: ..." and how to fix it)
 * and, if @why is not NULL, whose fault it is.
 */
struct emulated_host *emulated_host_open(const struct emulated_options *o,
					 enum emulated_failure *why, char *err, size_t errlen);
void emulated_host_close(struct emulated_host *h);

/*
 * What images/l1/vendors.cfg says of emulated:@vendor (NULL: intel), its KVM
 * module among it, without starting anything: what a command checks its
 * options against before any host boots. As emulated_vendor_read.
 */
int emulated_host_vendor(const char *vendor, struct emulated_vendor *v, char *err, size_t errlen);

/*
 * Hold this host's Bochs (@hold: it takes no CPU, L1 notices nothing) while
 * another emulated host runs, or let it go on. 0, or -1 with @err.
 */
int emulated_host_hold(struct emulated_host *h, bool hold, char *err, size_t errlen);

/* L1's identity, as this host's outputs name it ("emulated"). */
const struct host_info *emulated_host_info(const struct emulated_host *h);
/* "emulated Intel Core i7-4770 (Haswell) (Bochs 2.7), kernel ..., times in emulated seconds" */
const char *emulated_host_description(const struct emulated_host *h);

/* Run @v inside L1 and fill @r (its error names the emulated host). 0, or -1 (!r->ok). */
int emulated_host_run(struct emulated_host *h, const struct variant *v, struct variant_result *r);

/*
 * A file into, or out of, a command run in L1. In: a path relative to the
 * command's directory (in/suite.cfg, out/baselines/KEY.json: what it may
 * change comes back); out: relative to its out/.
 */
struct emulated_file {
	char name[L1_NAME_MAX];
	const void *data; /* in: the caller's; out: malloc'ed (emulated_exec_free) */
	size_t len;
};

struct emulated_exec {
	int status;		    /* the command's exit status in L1 */
	struct emulated_file *outs; /* every file it left under out/ */
	unsigned nr_outs;
	char *stdout_text; /* what it printed, NUL-terminated */
	size_t stdout_len;
};

/*
 * Run `plerig ARGV...` in L1, in a directory of its own: @ins written there
 * first, the command's relative paths resolve there; its stderr comes
 * out here on @relay as it goes, its stdout and every file under out/
 * come back in @res. 0, or -1 with @err when L1 could not run it or stopped
 * answering.
 */
int emulated_host_exec(struct emulated_host *h, const char *const *argv, unsigned argc,
		       const struct emulated_file *ins, unsigned nr_ins, FILE *relay,
		       struct emulated_exec *res, char *err, size_t errlen);
void emulated_exec_free(struct emulated_exec *res);

#endif
