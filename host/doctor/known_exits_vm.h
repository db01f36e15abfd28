/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A throw-away VM whose one vCPU runs in the calling thread: real-mode
 * code doing a known number of port writes (each a KVM_EXIT_IO to user
 * space), then HLT. Used to check, on the running kernel, that a
 * tracepoint counter attached to a thread sees that thread's exits, and
 * by `plerig doctor` to find out whether kvm:kvm_exit fires here at all.
 */
#ifndef PLERIG_KNOWN_EXITS_VM_H
#define PLERIG_KNOWN_EXITS_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/kvm/vm.h"
#include "measure/kvm_stats.h"
#include "measure/kvm_system.h"

/* A raw VM of the kvm backend's VMM (backends/kvm/vm.h), run in the caller's thread. */
struct known_exits_vm {
	struct kvm_system sys;
	struct kvm_vm vm;
	unsigned nr_outs;
};

struct known_exits_result {
	uint64_t kvm_run_returns;	 /* KVM_RUN calls that came back to user space */
	uint64_t io_exits;		 /* of which KVM_EXIT_IO */
	struct kvm_stats_snapshot stats; /* delta over the run; .valid per stat */
};

/* Create the VM (nothing runs yet). 0, or -errno with @err; closes all on failure. */
int known_exits_vm_open(struct known_exits_vm *p, unsigned nr_outs, char *err, size_t errlen);
/* Run it to its HLT in this thread. 0, or -errno with @err. */
int known_exits_vm_run(struct known_exits_vm *p, struct known_exits_result *r, char *err,
		       size_t errlen);
void known_exits_vm_close(struct known_exits_vm *p);

#endif
