// SPDX-License-Identifier: GPL-2.0
#include "doctor/known_exits_vm.h"

#include <errno.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>

#include "util/errbuf.h"

#define PROBE_PORT 0x10

int known_exits_vm_open(struct known_exits_vm *p, unsigned nr_outs, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->sys.fd = -1;
	p->vm.fd = -1;
	p->nr_outs = nr_outs;
	if (nr_outs == 0 || nr_outs > 0xffff)
		return errbuf_errno(err, errlen, -EINVAL,
				    "exit probe: 1 to 65535 port writes, not %u", nr_outs);
	int rc = kvm_system_open(&p->sys, err, errlen);
	if (rc)
		return rc;
	/* mov cx, N; 1: out 0x10, al; loop 1b; hlt */
	const uint8_t code[] = {0xb9,	    nr_outs & 0xff, nr_outs >> 8, 0xe6,
				PROBE_PORT, 0xe2,	    0xfc,	  0xf4};
	rc = kvm_vm_create_raw(&p->vm, &p->sys, code, sizeof(code), err, errlen);
	if (rc) {
		p->vm.fd = -1;
		known_exits_vm_close(p);
	}
	return rc;
}

int known_exits_vm_run(struct known_exits_vm *p, struct known_exits_result *r, char *err,
		       size_t errlen)
{
	struct kvm_vcpu *vcpu = &p->vm.vcpus[0];
	struct kvm_stats_snapshot before = {0}, after = {0};
	char serr[ERRBUF_SIZE];
	memset(r, 0, sizeof(*r));
	if (vcpu->stats_open && kvm_stats_read(&vcpu->stats, &before, serr, sizeof(serr)))
		memset(&before, 0, sizeof(before));
	/* every OUT comes back to us; a few more returns (signals) are tolerated */
	for (unsigned i = 0; i < p->nr_outs + 16; i++) {
		int rc = kvm_vcpu_enter(vcpu);
		if (rc == -EINTR || rc == -EAGAIN)
			continue;
		if (rc)
			return errbuf_errno(err, errlen, rc, "KVM_RUN of the exit probe: %s",
					    strerror(-rc));
		r->kvm_run_returns++;
		if (vcpu->run->exit_reason == KVM_EXIT_IO) {
			r->io_exits++;
			continue;
		}
		if (vcpu->run->exit_reason == KVM_EXIT_HLT)
			break;
		return errbuf_errno(
		    err, errlen, -EIO,
		    "the exit probe's guest stopped with exit reason %u instead of IO or HLT",
		    vcpu->run->exit_reason);
	}
	if (vcpu->run->exit_reason != KVM_EXIT_HLT)
		return errbuf_errno(err, errlen, -EIO,
				    "the exit probe's guest never reached its HLT");
	if (vcpu->stats_open && !kvm_stats_read(&vcpu->stats, &after, serr, sizeof(serr)))
		kvm_stats_delta(&before, &after, &r->stats);
	return 0;
}

void known_exits_vm_close(struct known_exits_vm *p)
{
	if (p->vm.fd >= 0)
		kvm_vm_destroy(&p->vm);
	p->vm.fd = -1;
	kvm_system_close(&p->sys);
}
