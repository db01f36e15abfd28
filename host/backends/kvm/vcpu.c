// SPDX-License-Identifier: GPL-2.0
#include "backends/kvm/vcpu.h"

#include <errno.h>
#include <stdarg.h>
#include <linux/kvm.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backends/guest_status.h"
#include "measure/kvm_system.h"
#include "backends/kvm/vm.h"
#include "plerig/abi.h"
#include "util/errbuf.h"
#include "util/pinned_thread.h"

/* SIGUSR1 has no handler of its own in plerig: it only interrupts KVM_RUN. */
#define KICK_SIGNAL SIGUSR1

static void kick_handler(int sig)
{
	(void)sig;
}

int kvm_vcpu_install_kick_signal(char *err, size_t errlen)
{
	struct sigaction sa = {.sa_handler = kick_handler}; /* no SA_RESTART: KVM_RUN must return */
	sigemptyset(&sa.sa_mask);
	if (sigaction(KICK_SIGNAL, &sa, NULL) < 0)
		return errbuf_errno(err, errlen, -errno, "sigaction(SIGUSR1): %s", strerror(errno));
	return 0;
}

static int set_cpuid(struct kvm_vcpu *vcpu, const struct kvm_system *sys, char *err, size_t errlen)
{
	const size_t size = sizeof(*sys->cpuid) + sys->cpuid->nent * sizeof(sys->cpuid->entries[0]);
	struct kvm_cpuid2 *cpuid = malloc(size);
	if (!cpuid)
		return errbuf_errno(err, errlen, -ENOMEM, "out of memory for CPUID");
	memcpy(cpuid, sys->cpuid, size);
	/* the guest learns its vCPU index from its initial APIC ID */
	for (unsigned i = 0; i < cpuid->nent; i++) {
		struct kvm_cpuid_entry2 *e = &cpuid->entries[i];
		if (e->function == 1)
			e->ebx = (e->ebx & 0x00ffffffu) | (vcpu->index << 24);
		else if (e->function == 0xb || e->function == 0x1f)
			e->edx = vcpu->index;
	}
	int rc = 0;
	if (ioctl(vcpu->fd, KVM_SET_CPUID2, cpuid) < 0) {
		rc = -errno;
		errbuf_printf(err, errlen, "KVM_SET_CPUID2 on vCPU %u: %s", vcpu->index,
			      strerror(errno));
	}
	free(cpuid);
	return rc;
}

static void flat_segment(struct kvm_segment *s, uint8_t type, uint16_t selector)
{
	*s = (struct kvm_segment){
	    .base = 0,
	    .limit = 0xffffffff,
	    .selector = selector,
	    .type = type,
	    .present = 1,
	    .dpl = 0,
	    .db = 1,
	    .s = 1,
	    .l = 0,
	    .g = 1,
	};
}

/* The PVH boot state: 32-bit flat protected mode, paging off, %ebx = start info (none). */
static int set_pvh_entry_state(struct kvm_vcpu *vcpu, uint64_t entry, char *err, size_t errlen)
{
	struct kvm_sregs sregs;
	if (ioctl(vcpu->fd, KVM_GET_SREGS, &sregs) < 0)
		return errbuf_errno(err, errlen, -errno, "KVM_GET_SREGS on vCPU %u: %s",
				    vcpu->index, strerror(errno));
	flat_segment(&sregs.cs, 0xb, 0x8);
	flat_segment(&sregs.ds, 0x3, 0x10);
	sregs.es = sregs.fs = sregs.gs = sregs.ss = sregs.ds;
	sregs.tr = (struct kvm_segment){.limit = 0x67, .type = 0xb, .present = 1};
	sregs.cr0 = 0x11; /* PE | ET */
	sregs.cr4 = 0;
	sregs.efer = 0;
	if (ioctl(vcpu->fd, KVM_SET_SREGS, &sregs) < 0)
		return errbuf_errno(err, errlen, -errno, "KVM_SET_SREGS on vCPU %u: %s",
				    vcpu->index, strerror(errno));
	struct kvm_regs regs = {.rip = entry, .rflags = 0x2, .rbx = 0};
	if (ioctl(vcpu->fd, KVM_SET_REGS, &regs) < 0)
		return errbuf_errno(err, errlen, -errno, "KVM_SET_REGS on vCPU %u: %s", vcpu->index,
				    strerror(errno));
	return 0;
}

/*
 * With an in-kernel APIC, every vCPU but the BSP waits for INIT-SIPI; the
 * host starts them all itself, so it makes them runnable.
 */
static int make_runnable(struct kvm_vcpu *vcpu, char *err, size_t errlen)
{
	struct kvm_mp_state mp = {.mp_state = KVM_MP_STATE_RUNNABLE};
	if (ioctl(vcpu->fd, KVM_SET_MP_STATE, &mp) < 0)
		return errbuf_errno(err, errlen, -errno, "KVM_SET_MP_STATE on vCPU %u: %s",
				    vcpu->index, strerror(errno));
	return 0;
}

int kvm_vcpu_reload_lapic(struct kvm_vcpu *vcpu, char *err, size_t errlen)
{
	struct kvm_lapic_state lapic;
	if (ioctl(vcpu->fd, KVM_GET_LAPIC, &lapic) < 0)
		return errbuf_errno(err, errlen, -errno, "KVM_GET_LAPIC on vCPU %u: %s",
				    vcpu->index, strerror(errno));
	if (ioctl(vcpu->fd, KVM_SET_LAPIC, &lapic) < 0)
		return errbuf_errno(err, errlen, -errno, "KVM_SET_LAPIC on vCPU %u: %s",
				    vcpu->index, strerror(errno));
	return 0;
}

/* Real mode at @rip, CS base 0: the reset state but for CS. */
static int set_real_mode_state(struct kvm_vcpu *vcpu, uint64_t rip, char *err, size_t errlen)
{
	struct kvm_sregs sregs;
	if (ioctl(vcpu->fd, KVM_GET_SREGS, &sregs) < 0)
		return errbuf_errno(err, errlen, -errno, "KVM_GET_SREGS on vCPU %u: %s",
				    vcpu->index, strerror(errno));
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl(vcpu->fd, KVM_SET_SREGS, &sregs) < 0)
		return errbuf_errno(err, errlen, -errno, "KVM_SET_SREGS on vCPU %u: %s",
				    vcpu->index, strerror(errno));
	struct kvm_regs regs = {.rip = rip, .rflags = 0x2};
	if (ioctl(vcpu->fd, KVM_SET_REGS, &regs) < 0)
		return errbuf_errno(err, errlen, -errno, "KVM_SET_REGS on vCPU %u: %s", vcpu->index,
				    strerror(errno));
	return 0;
}

/* The vCPU fd, its kvm_run area and its CPUID; registers still at reset. */
static int open_vcpu(struct kvm_vcpu *vcpu, struct kvm_vm *vm, const struct kvm_system *sys,
		     unsigned index, char *err, size_t errlen)
{
	memset(vcpu, 0, sizeof(*vcpu));
	vcpu->vm = vm;
	vcpu->index = index;
	vcpu->host_cpu = -1;
	vcpu->run = MAP_FAILED;
	vcpu->fd = ioctl(vm->fd, KVM_CREATE_VCPU, (unsigned long)index);
	if (vcpu->fd < 0) {
		int e = errno;
		return errbuf_errno(
		    err, errlen, -e, "KVM_CREATE_VCPU %u in VM %u: %s%s", index, vm->index,
		    strerror(e), e == EINVAL ? " (more vCPUs than KVM_CAP_MAX_VCPUS allows?)" : "");
	}
	vcpu->run_size = (size_t)sys->vcpu_mmap_size;
	vcpu->run = mmap(NULL, vcpu->run_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu->fd, 0);
	if (vcpu->run == MAP_FAILED) {
		int e = errno;
		return errbuf_errno(err, errlen, -e, "mmap of kvm_run for vCPU %u: %s", index,
				    strerror(e));
	}
	return set_cpuid(vcpu, sys, err, errlen);
}

static int open_stats(struct kvm_vcpu *vcpu, char *err, size_t errlen)
{
	/* kernels before 5.14 have no stats fd: run without, report the figures as absent */
	int rc = kvm_stats_open(&vcpu->stats, vcpu->fd, err, errlen);
	vcpu->stats_open = rc == 0;
	return rc == -ENOTTY || rc == -EINVAL ? 0 : rc;
}

int kvm_vcpu_create(struct kvm_vcpu *vcpu, struct kvm_vm *vm, const struct kvm_system *sys,
		    unsigned index, uint64_t entry, bool in_kernel_apic, char *err, size_t errlen)
{
	int rc = open_vcpu(vcpu, vm, sys, index, err, errlen);
	if (!rc)
		rc = set_pvh_entry_state(vcpu, entry, err, errlen);
	if (!rc && in_kernel_apic)
		rc = make_runnable(vcpu, err, errlen);
	return rc ? rc : open_stats(vcpu, err, errlen);
}

int kvm_vcpu_create_real_mode(struct kvm_vcpu *vcpu, struct kvm_vm *vm,
			      const struct kvm_system *sys, uint64_t rip, char *err, size_t errlen)
{
	int rc = open_vcpu(vcpu, vm, sys, 0, err, errlen);
	if (!rc)
		rc = set_real_mode_state(vcpu, rip, err, errlen);
	return rc ? rc : open_stats(vcpu, err, errlen);
}

int kvm_vcpu_enter(struct kvm_vcpu *vcpu)
{
	return ioctl(vcpu->fd, KVM_RUN, 0) < 0 ? -errno : 0;
}

static void fail(struct kvm_vcpu *vcpu, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct kvm_vcpu *vcpu, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(vcpu->message, sizeof(vcpu->message), "VM %u vCPU %u: ", vcpu->vm->index,
			 vcpu->index);
	va_start(ap, fmt);
	vsnprintf(vcpu->message + n, sizeof(vcpu->message) - (size_t)n, fmt, ap);
	va_end(ap);
	__atomic_store_n(&vcpu->outcome, VCPU_OUTCOME_FAILED, __ATOMIC_RELEASE);
}

static void report_guest_fault(struct kvm_vcpu *vcpu)
{
	char what[192];
	guest_fault_describe(&vcpu->vm->shared->vcpu[vcpu->index].fault, what, sizeof(what));
	fail(vcpu, "%s", what);
}

static uint64_t guest_rip(struct kvm_vcpu *vcpu)
{
	struct kvm_regs regs;
	return ioctl(vcpu->fd, KVM_GET_REGS, &regs) == 0 ? regs.rip : 0;
}

static bool stop_requested(const struct kvm_vcpu *vcpu)
{
	return __atomic_load_n(&vcpu->stop_requested, __ATOMIC_ACQUIRE);
}

/* 1 when the run loop is over (stopped while waiting). */
static int pass_start_line(struct kvm_vcpu *vcpu)
{
	__atomic_store_n(&vcpu->ready, 1, __ATOMIC_RELEASE);
	start_line_wait(vcpu->start, &vcpu->stop_requested);
	if (stop_requested(vcpu))
		return 0; /* the run loop sees it */
	int rc = pthread_setaffinity_np(pthread_self(), sizeof(vcpu->run_cpus), &vcpu->run_cpus);
	if (rc) {
		fail(vcpu, "pinning the vCPU thread: %s", strerror(rc));
		return 1;
	}
	return 0;
}

/* 1 when the run loop is over. */
static int guest_event(struct kvm_vcpu *vcpu, uint32_t event)
{
	switch (event) {
	case PLERIG_EVENT_READY:
		return pass_start_line(vcpu);
	case PLERIG_EVENT_DONE:
		__atomic_store_n(&vcpu->outcome, VCPU_OUTCOME_DONE, __ATOMIC_RELEASE);
		break;
	case PLERIG_EVENT_FAULT:
		report_guest_fault(vcpu);
		break;
	case PLERIG_EVENT_BAD_CONFIG:
		fail(vcpu, "the guest rejected its configuration block (ABI mismatch between "
			   "plerig and the guest image? rebuild both)");
		break;
	default:
		fail(vcpu, "unknown guest event 0x%x", event);
	}
	return 1;
}

/* 1 when the run loop is over. */
static int handle_mmio(struct kvm_vcpu *vcpu)
{
	const struct kvm_run *run = vcpu->run;
	if (run->mmio.phys_addr == PLERIG_EVENT_MMIO_GPA && run->mmio.is_write &&
	    run->mmio.len == 4) {
		uint32_t event;
		memcpy(&event, run->mmio.data, sizeof(event));
		return guest_event(vcpu, event);
	} else {
		fail(vcpu, "guest %s unbacked memory at 0x%llx (rip 0x%llx)",
		     run->mmio.is_write ? "wrote" : "read", (unsigned long long)run->mmio.phys_addr,
		     (unsigned long long)guest_rip(vcpu));
	}
	return 1;
}

/* 1 when the run loop is over. */
static int handle_exit(struct kvm_vcpu *vcpu)
{
	const struct kvm_run *run = vcpu->run;
	switch (run->exit_reason) {
	case KVM_EXIT_MMIO:
		return handle_mmio(vcpu);
	case KVM_EXIT_IO:
		fail(vcpu, "unexpected guest I/O on port 0x%x at rip 0x%llx", run->io.port,
		     (unsigned long long)guest_rip(vcpu));
		return 1;
	case KVM_EXIT_HLT:
		fail(vcpu, "guest halted without reporting (rip 0x%llx)",
		     (unsigned long long)guest_rip(vcpu));
		return 1;
	case KVM_EXIT_SHUTDOWN:
		fail(vcpu, "guest triple fault (shutdown) near rip 0x%llx",
		     (unsigned long long)guest_rip(vcpu));
		return 1;
	case KVM_EXIT_FAIL_ENTRY:
		fail(vcpu, "VM entry failed, hardware reason 0x%llx",
		     (unsigned long long)run->fail_entry.hardware_entry_failure_reason);
		return 1;
	case KVM_EXIT_INTERNAL_ERROR:
		fail(vcpu, "KVM internal error, suberror %u (rip 0x%llx)", run->internal.suberror,
		     (unsigned long long)guest_rip(vcpu));
		return 1;
	case KVM_EXIT_INTR:
		return 0;
	default:
		fail(vcpu, "unexpected KVM exit reason %u", run->exit_reason);
		return 1;
	}
}

static void *vcpu_thread(void *arg)
{
	struct kvm_vcpu *vcpu = arg;
	__atomic_store_n(&vcpu->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	if (vcpu->thread_start)
		vcpu->thread_start(vcpu, vcpu->thread_start_arg);
	for (;;) {
		if (stop_requested(vcpu)) {
			__atomic_store_n(&vcpu->outcome, VCPU_OUTCOME_STOPPED, __ATOMIC_RELEASE);
			break;
		}
		if (ioctl(vcpu->fd, KVM_RUN, 0) < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			fail(vcpu, "KVM_RUN: %s", strerror(errno));
			break;
		}
		if (handle_exit(vcpu))
			break;
	}
	schedstat_keep_own(&vcpu->last_sched);
	return NULL;
}

int kvm_vcpu_start(struct kvm_vcpu *vcpu, struct start_line *start, const cpu_set_t *boot_cpus,
		   const unsigned *run_cpus, unsigned nr_run_cpus, char *err, size_t errlen)
{
	vcpu->start = start;
	CPU_ZERO(&vcpu->run_cpus);
	for (unsigned i = 0; i < nr_run_cpus; i++)
		CPU_SET(run_cpus[i], &vcpu->run_cpus);
	vcpu->host_cpu = nr_run_cpus == 1 ? (int)run_cpus[0] : -1;

	int rc = pinned_thread_create(&vcpu->thread, boot_cpus, vcpu_thread, vcpu);
	if (rc)
		return errbuf_errno(err, errlen, -rc, "starting the thread of VM %u vCPU %u: %s",
				    vcpu->vm->index, vcpu->index, strerror(rc));
	vcpu->thread_started = true;
	return 0;
}

bool kvm_vcpu_is_ready(const struct kvm_vcpu *vcpu)
{
	return __atomic_load_n(&vcpu->ready, __ATOMIC_ACQUIRE);
}

void kvm_vcpu_kick(struct kvm_vcpu *vcpu)
{
	__atomic_store_n(&vcpu->stop_requested, 1, __ATOMIC_RELEASE);
	if (vcpu->run != MAP_FAILED)
		__atomic_store_n(&vcpu->run->immediate_exit, 1, __ATOMIC_RELEASE);
	if (vcpu->thread_started)
		pthread_kill(vcpu->thread, KICK_SIGNAL);
	if (vcpu->start) /* it may be waiting at the start line rather than in KVM_RUN */
		start_line_wake(vcpu->start);
}

int kvm_vcpu_outcome(const struct kvm_vcpu *vcpu)
{
	return __atomic_load_n(&vcpu->outcome, __ATOMIC_ACQUIRE);
}

pid_t kvm_vcpu_tid(const struct kvm_vcpu *vcpu)
{
	return __atomic_load_n(&vcpu->tid, __ATOMIC_ACQUIRE);
}

void kvm_vcpu_destroy(struct kvm_vcpu *vcpu)
{
	if (vcpu->thread_started) {
		if (kvm_vcpu_outcome(vcpu) == VCPU_OUTCOME_NONE)
			kvm_vcpu_kick(vcpu);
		pthread_join(vcpu->thread, NULL);
		vcpu->thread_started = false;
	}
	if (vcpu->stats_open)
		kvm_stats_close(&vcpu->stats);
	vcpu->stats_open = false;
	if (vcpu->run != MAP_FAILED)
		munmap(vcpu->run, vcpu->run_size);
	vcpu->run = MAP_FAILED;
	if (vcpu->fd >= 0)
		close(vcpu->fd);
	vcpu->fd = -1;
}
