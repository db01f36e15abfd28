// SPDX-License-Identifier: GPL-2.0
#include "backends/kvm/vm.h"

#include "model/variant.h"

#include <errno.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backends/kvm/elf_image.h"
#include "measure/kvm_system.h"
#include "util/errbuf.h"

/* Where KVM may put the real-mode TSS on VMX: the top of the 32-bit space, as QEMU does. */
#define VMX_TSS_ADDR 0xfffbd000ul

/* A raw VM's memory: its code at RAW_CODE_GPA, in the first 64 KiB real mode reaches. */
#define RAW_MEM_SIZE 0x10000ul
#define RAW_CODE_GPA 0x1000ul

static int map_memory(struct kvm_vm *vm, size_t size, char *err, size_t errlen)
{
	vm->mem_size = size;
	vm->mem = mmap(NULL, vm->mem_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (vm->mem == MAP_FAILED) {
		vm->mem = NULL;
		return errbuf_errno(err, errlen, -errno,
				    "mmap of %zu MiB guest memory for VM %u: %s",
				    vm->mem_size >> 20, vm->index, strerror(errno));
	}
	struct kvm_userspace_memory_region region = {
	    .slot = 0,
	    .guest_phys_addr = 0,
	    .memory_size = vm->mem_size,
	    .userspace_addr = (uintptr_t)vm->mem,
	};
	if (ioctl(vm->fd, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		return errbuf_errno(err, errlen, -errno, "KVM_SET_USER_MEMORY_REGION for VM %u: %s",
				    vm->index, strerror(errno));
	return 0;
}

/* The TSS address is what VMX wants before the first run. */
int kvm_vm_open(struct kvm_vm *vm, const struct kvm_system *sys, unsigned index, char *err,
		size_t errlen)
{
	memset(vm, 0, sizeof(*vm));
	vm->index = index;
	vm->fd = ioctl(sys->fd, KVM_CREATE_VM, 0);
	if (vm->fd < 0)
		return errbuf_errno(err, errlen, -errno, "KVM_CREATE_VM (VM %u): %s", index,
				    strerror(errno));
	if (sys->has_tss_addr && ioctl(vm->fd, KVM_SET_TSS_ADDR, VMX_TSS_ADDR) < 0) {
		int e = errno;
		return errbuf_errno(err, errlen, -e, "KVM_SET_TSS_ADDR (VM %u): %s", index,
				    strerror(e));
	}
	return 0;
}

static int create_vcpus(struct kvm_vm *vm, const struct kvm_system *sys, unsigned nr,
			uint64_t entry, bool in_kernel_apic, char *err, size_t errlen)
{
	vm->vcpus = calloc(nr, sizeof(vm->vcpus[0]));
	if (!vm->vcpus)
		return errbuf_errno(err, errlen, -ENOMEM, "out of memory for %u vCPUs", nr);
	for (unsigned i = 0; i < nr; i++) {
		/* count it first: a half-created vCPU is released by destroy too */
		vm->nr_vcpus = i + 1;
		int rc =
		    kvm_vcpu_create(&vm->vcpus[i], vm, sys, i, entry, in_kernel_apic, err, errlen);
		if (rc)
			return rc;
	}
	/*
	 * KVM builds its map of APIC IDs (through which KVM_HC_KICK_CPU and
	 * KVM_HC_SCHED_YIELD find their target) when it resets a new vCPU's
	 * APIC, which is before that vCPU counts as online: the map then holds
	 * every vCPU but the last one created, until something rebuilds it.
	 * QEMU's KVM_SET_LAPIC does; our guest touches no APIC register. So a
	 * kick to the last vCPU reached nobody (Linux 6.1 under Bochs: vCPU 3
	 * of 4 halted for good, kvm_irq_delivery_to_apic returned 0 for APIC
	 * ID 3 and 1 for the others), and no directed yield went to it.
	 */
	return in_kernel_apic ? kvm_vcpu_reload_lapic(&vm->vcpus[nr - 1], err, errlen) : 0;
}

/*
 * PLE off for this VM only: PAUSE no longer exits, whatever ple_gap and
 * ple_window say. KVM takes it only before the first vCPU exists.
 */
int kvm_vm_disable_pause_exits(struct kvm_vm *vm, const struct kvm_system *sys, char *err,
			       size_t errlen)
{
	int allowed = ioctl(sys->fd, KVM_CHECK_EXTENSION, KVM_CAP_X86_DISABLE_EXITS);
	if (allowed < 0 || !(allowed & KVM_X86_DISABLE_EXITS_PAUSE))
		return errbuf_errno(err, errlen, -EOPNOTSUPP,
				    "--ple off: this KVM cannot disable PAUSE exits per VM "
				    "(KVM_CAP_X86_DISABLE_EXITS answers %d; needs Linux >= 4.19)",
				    allowed);
	struct kvm_enable_cap cap = {
	    .cap = KVM_CAP_X86_DISABLE_EXITS,
	    .args = {KVM_X86_DISABLE_EXITS_PAUSE},
	};
	if (ioctl(vm->fd, KVM_ENABLE_CAP, &cap) < 0) {
		int e = errno;
		return errbuf_errno(err, errlen, -e,
				    "KVM_ENABLE_CAP(KVM_CAP_X86_DISABLE_EXITS, PAUSE) on VM %u: %s",
				    vm->index, strerror(e));
	}
	return 0;
}

/* --halt-poll: this VM's own maximum halt-polling time, instead of kvm.halt_poll_ns. */
static int set_halt_poll(struct kvm_vm *vm, const struct kvm_system *sys, int64_t ns, char *err,
			 size_t errlen)
{
	if (!kvm_halt_poll_per_vm(sys))
		return errbuf_errno(err, errlen, -EOPNOTSUPP,
				    "--halt-poll %lld: this KVM cannot set halt polling per VM (no "
				    "KVM_CAP_HALT_POLL: needs Linux >= 5.19); use --halt-poll kept",
				    (long long)ns);
	struct kvm_enable_cap cap = {.cap = KVM_CAP_HALT_POLL, .args = {(uint64_t)ns}};
	if (ioctl(vm->fd, KVM_ENABLE_CAP, &cap) < 0) {
		int e = errno;
		return errbuf_errno(err, errlen, -e,
				    "KVM_ENABLE_CAP(KVM_CAP_HALT_POLL, %lld) on VM %u: %s",
				    (long long)ns, vm->index, strerror(e));
	}
	return 0;
}

int kvm_vm_create(struct kvm_vm *vm, const struct kvm_system *sys, unsigned index,
		  const struct guest_image *image, const struct plerig_config *cfg,
		  const struct vm_options *opts, char *err, size_t errlen)
{
	int rc = kvm_vm_open(vm, sys, index, err, errlen);
	if (!rc)
		rc = map_memory(vm, PLERIG_GUEST_MEM_SIZE, err, errlen);
	if (rc)
		goto fail;
	vm->shared = (struct plerig_shared *)(vm->mem + PLERIG_SHARED_GPA);

	struct elf_image_info info;
	char why[ERRBUF_SIZE];
	if (elf_image_load(image->data, image->size, vm->mem, 0, vm->mem_size, PLERIG_IMAGE_BASE,
			   PLERIG_SHARED_GPA, &info, why, sizeof(why))) {
		errbuf_printf(err, errlen, "guest image %s: %s", image->path, why);
		rc = -EINVAL;
		goto fail;
	}
	if (!info.pvh_entry) {
		errbuf_printf(err, errlen,
			      "guest image %s has no PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY): "
			      "not a plerig guest?",
			      image->path);
		rc = -EINVAL;
		goto fail;
	}
	vm->shared->config = *cfg;
	if (opts->disable_pause_exits) {
		rc = kvm_vm_disable_pause_exits(vm, sys, err, errlen);
		if (rc)
			goto fail;
	}
	if (opts->halt_poll_ns != HALT_POLL_HOST) {
		rc = set_halt_poll(vm, sys, opts->halt_poll_ns, err, errlen);
		if (rc)
			goto fail;
	}
	if (opts->in_kernel_apic && ioctl(vm->fd, KVM_CREATE_IRQCHIP, 0) < 0) {
		rc = -errno;
		errbuf_printf(err, errlen, "KVM_CREATE_IRQCHIP (VM %u): %s", index,
			      strerror(errno));
		goto fail;
	}
	rc =
	    create_vcpus(vm, sys, cfg->nr_vcpus, info.pvh_entry, opts->in_kernel_apic, err, errlen);
	if (rc)
		goto fail;
	return 0;
fail:
	kvm_vm_destroy(vm);
	return rc;
}

int kvm_vm_create_raw(struct kvm_vm *vm, const struct kvm_system *sys, const void *code, size_t len,
		      char *err, size_t errlen)
{
	int rc = kvm_vm_open(vm, sys, 0, err, errlen);
	if (!rc && len > RAW_MEM_SIZE - RAW_CODE_GPA) {
		errbuf_printf(err, errlen, "%zu bytes of code do not fit a raw VM", len);
		rc = -EINVAL;
	}
	if (!rc)
		rc = map_memory(vm, RAW_MEM_SIZE, err, errlen);
	if (!rc) {
		memcpy(vm->mem + RAW_CODE_GPA, code, len);
		vm->vcpus = calloc(1, sizeof(vm->vcpus[0]));
		rc = vm->vcpus ? 0 : -ENOMEM;
		if (rc)
			errbuf_printf(err, errlen, "out of memory for a vCPU");
	}
	if (!rc) {
		vm->nr_vcpus = 1;
		rc = kvm_vcpu_create_real_mode(&vm->vcpus[0], vm, sys, RAW_CODE_GPA, err, errlen);
	}
	if (rc)
		kvm_vm_destroy(vm);
	return rc;
}

void kvm_vm_destroy(struct kvm_vm *vm)
{
	/* every vCPU thread is kicked before any is joined: teardown takes one round trip */
	for (unsigned i = 0; i < vm->nr_vcpus; i++)
		if (kvm_vcpu_outcome(&vm->vcpus[i]) == VCPU_OUTCOME_NONE)
			kvm_vcpu_kick(&vm->vcpus[i]);
	for (unsigned i = 0; i < vm->nr_vcpus; i++)
		kvm_vcpu_destroy(&vm->vcpus[i]);
	free(vm->vcpus);
	vm->vcpus = NULL;
	vm->nr_vcpus = 0;
	if (vm->fd >= 0)
		close(vm->fd);
	vm->fd = -1;
	if (vm->mem)
		munmap(vm->mem, vm->mem_size);
	vm->mem = NULL;
	vm->shared = NULL;
}
