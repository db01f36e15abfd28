/* SPDX-License-Identifier: GPL-2.0 */
/* What every backend (kvm, native, libvirt) offers the runner. */
#ifndef PLERIG_BACKEND_H
#define PLERIG_BACKEND_H

#include <stddef.h>

#include "measure/host_info.h"
#include "model/results.h"

struct backend {
	enum backend_kind kind;
	/*
	 * Run one variant and fill @r. Returns 0 when the run completed
	 * (r->ok), -1 when it failed (r->error says why); never leaves a VM,
	 * thread or fd behind.
	 */
	int (*run)(struct backend *b, const struct variant *v, struct variant_result *r);
	void (*close)(struct backend *b);
	/* Ring that --ring auto means on this backend and host. */
	enum plerig_ring default_ring;
	const char *description; /* e.g. "KVM (kvm_pvm) via /dev/kvm" */
	/* Where the VMs run on another machine: its identity into @h (0); NULL or -1: here. */
	int (*remote_host)(struct backend *b, struct host_info *h);
};

#endif
