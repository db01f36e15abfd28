// SPDX-License-Identifier: GPL-2.0
#include "doctor/exit_probe.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "measure/kvm_system.h"

#define PROBE_GPA      0x1000
#define PROBE_PORT     0x10
#define PROBE_TSS_ADDR 0xfffbd000 /* VMX without unrestricted guest needs one for real mode */

static int fail(struct exit_probe *p, int e, char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: %s", what, strerror(e));
	exit_probe_close(p);
	return -e;
}

int exit_probe_open(struct exit_probe *p, unsigned nr_outs, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->kvm = p->vm = p->vcpu = -1;
	p->stats.fd = -1;
	p->mem = MAP_FAILED;
	p->run = MAP_FAILED;
	p->nr_outs = nr_outs;
	if (nr_outs == 0 || nr_outs > 0xffff) {
		snprintf(err, errlen, "exit probe: 1 to 65535 port writes, not %u", nr_outs);
		return -EINVAL;
	}
	p->kvm = open(kvm_device_path(), O_RDWR | O_CLOEXEC);
	if (p->kvm < 0) {
		char what[300];
		snprintf(what, sizeof(what), "opening %s (is KVM loaded? are you in group kvm?)",
			 kvm_device_path());
		return fail(p, errno, err, errlen, what);
	}
	p->vm = ioctl(p->kvm, KVM_CREATE_VM, 0);
	if (p->vm < 0)
		return fail(p, errno, err, errlen, "KVM_CREATE_VM");
	if (ioctl(p->kvm, KVM_CHECK_EXTENSION, KVM_CAP_SET_TSS_ADDR) > 0 &&
	    ioctl(p->vm, KVM_SET_TSS_ADDR, PROBE_TSS_ADDR) < 0)
		return fail(p, errno, err, errlen, "KVM_SET_TSS_ADDR");
	p->mem = mmap(NULL, 0x1000, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p->mem == MAP_FAILED)
		return fail(p, errno, err, errlen, "mmap of the probe's guest page");
	/* mov cx, N; 1: out 0x10, al; loop 1b; hlt */
	const uint8_t code[] = {0xb9,	    nr_outs & 0xff, nr_outs >> 8, 0xe6,
				PROBE_PORT, 0xe2,	    0xfc,	  0xf4};
	memcpy(p->mem, code, sizeof(code));
	struct kvm_userspace_memory_region region = {
	    .guest_phys_addr = PROBE_GPA,
	    .memory_size = 0x1000,
	    .userspace_addr = (uintptr_t)p->mem,
	};
	if (ioctl(p->vm, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		return fail(p, errno, err, errlen, "KVM_SET_USER_MEMORY_REGION");
	p->vcpu = ioctl(p->vm, KVM_CREATE_VCPU, 0);
	if (p->vcpu < 0)
		return fail(p, errno, err, errlen, "KVM_CREATE_VCPU");
	int size = ioctl(p->kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (size < (int)sizeof(struct kvm_run))
		return fail(p, size < 0 ? errno : EINVAL, err, errlen, "KVM_GET_VCPU_MMAP_SIZE");
	p->run_size = (size_t)size;
	p->run = mmap(NULL, p->run_size, PROT_READ | PROT_WRITE, MAP_SHARED, p->vcpu, 0);
	if (p->run == MAP_FAILED)
		return fail(p, errno, err, errlen, "mmap of the vCPU's kvm_run");

	struct kvm_sregs sregs;
	struct kvm_regs regs = {.rip = PROBE_GPA, .rflags = 2};
	if (ioctl(p->vcpu, KVM_GET_SREGS, &sregs) < 0)
		return fail(p, errno, err, errlen, "KVM_GET_SREGS");
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl(p->vcpu, KVM_SET_SREGS, &sregs) < 0)
		return fail(p, errno, err, errlen, "KVM_SET_SREGS");
	if (ioctl(p->vcpu, KVM_SET_REGS, &regs) < 0)
		return fail(p, errno, err, errlen, "KVM_SET_REGS");
	char serr[256];
	p->stats_open = kvm_stats_open(&p->stats, p->vcpu, serr, sizeof(serr)) == 0;
	return 0;
}

int exit_probe_run(struct exit_probe *p, struct exit_probe_result *r, char *err, size_t errlen)
{
	struct kvm_stats_snapshot before = {0}, after = {0};
	char serr[256];
	memset(r, 0, sizeof(*r));
	if (p->stats_open && kvm_stats_read(&p->stats, &before, serr, sizeof(serr)))
		memset(&before, 0, sizeof(before));
	/* every OUT comes back to us; a few more returns (signals) are tolerated */
	for (unsigned i = 0; i < p->nr_outs + 16; i++) {
		if (ioctl(p->vcpu, KVM_RUN, 0) < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			int e = errno;
			snprintf(err, errlen, "KVM_RUN of the exit probe: %s", strerror(e));
			return -e;
		}
		r->kvm_run_returns++;
		if (p->run->exit_reason == KVM_EXIT_IO) {
			r->io_exits++;
			continue;
		}
		if (p->run->exit_reason == KVM_EXIT_HLT)
			break;
		snprintf(err, errlen,
			 "the exit probe's guest stopped with exit reason %u instead of IO or HLT",
			 p->run->exit_reason);
		return -EIO;
	}
	if (p->run->exit_reason != KVM_EXIT_HLT) {
		snprintf(err, errlen, "the exit probe's guest never reached its HLT");
		return -EIO;
	}
	if (p->stats_open && !kvm_stats_read(&p->stats, &after, serr, sizeof(serr)))
		kvm_stats_delta(&before, &after, &r->stats);
	return 0;
}

void exit_probe_close(struct exit_probe *p)
{
	if (p->stats_open)
		kvm_stats_close(&p->stats);
	p->stats_open = false;
	if (p->run && p->run != MAP_FAILED)
		munmap(p->run, p->run_size);
	p->run = MAP_FAILED;
	if (p->mem && p->mem != MAP_FAILED)
		munmap(p->mem, 0x1000);
	p->mem = MAP_FAILED;
	if (p->vcpu >= 0)
		close(p->vcpu);
	if (p->vm >= 0)
		close(p->vm);
	if (p->kvm >= 0)
		close(p->kvm);
	p->kvm = p->vm = p->vcpu = -1;
}
