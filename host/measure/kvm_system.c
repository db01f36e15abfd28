// SPDX-License-Identifier: GPL-2.0
#include "measure/kvm_system.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/device_access.h"
#include "measure/host_info.h"
#include "util/errbuf.h"

#define CPUID_MAX_ENTRIES 256

const char *kvm_device_path(void)
{
	const char *p = getenv("PLERIG_KVM_DEVICE");
	return p && *p ? p : "/dev/kvm";
}

#define KVM_CPUID_FEATURES 0x40000001u

bool kvm_feature_supported(const struct kvm_system *s, unsigned bit)
{
	for (unsigned i = 0; s->cpuid && i < s->cpuid->nent; i++)
		if (s->cpuid->entries[i].function == KVM_CPUID_FEATURES)
			return s->cpuid->entries[i].eax & (1u << bit);
	return false;
}

bool kvm_halt_poll_per_vm(const struct kvm_system *s)
{
	return ioctl(s->fd, KVM_CHECK_EXTENSION, KVM_CAP_HALT_POLL) > 0;
}

const char *kvm_detect_module(void)
{
	static const char *const modules[] = {"kvm_intel", "kvm_amd", "kvm_pvm"};
	for (size_t i = 0; i < sizeof(modules) / sizeof(modules[0]); i++) {
		char path[64];
		snprintf(path, sizeof(path), "/sys/module/%s", modules[i]);
		if (access(path, F_OK) == 0)
			return modules[i];
	}
	return "unknown";
}

const char *kvm_active_module(void)
{
	struct stat st;
	if (stat(kvm_device_path(), &st) < 0 || !S_ISCHR(st.st_mode))
		return "none";
	return kvm_detect_module();
}

enum plerig_ring kvm_default_ring(bool pvm)
{
	return pvm ? PLERIG_RING_USER : PLERIG_RING_KERNEL;
}

static int open_device(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	int e = errno;
	const char *flag = host_cpu_virt_flag();
	if (e == ENOENT && flag)
		errbuf_printf(err, errlen,
			      "%s not found: KVM is not available on this host "
			      "(load %s and enable virtualisation in the firmware, or use nested "
			      "virtualisation)",
			      path, !strcmp(flag, "vmx") ? "kvm_intel" : "kvm_amd");
	else if (e == ENOENT)
		errbuf_printf(err, errlen,
			      "%s not found: this CPU shows neither vmx nor svm, so no KVM can run "
			      "here; without KVM: make ple-test (the real kvm_intel under Bochs' "
			      "emulated VMX CPU), --backend native (host threads) or --backend "
			      "libvirt --accel tcg (QEMU's TCG); plerig doctor lists them",
			      path);
	else if (e == EACCES || e == EPERM) {
		const struct device_identity me = device_identity_self();
		device_access_advice(path, &me, err, errlen);
	} else
		errbuf_printf(err, errlen, "cannot open %s: %s", path, strerror(e));
	return -e;
}

static int get_supported_cpuid(struct kvm_system *s, char *err, size_t errlen)
{
	s->cpuid = calloc(1, sizeof(*s->cpuid) + CPUID_MAX_ENTRIES * sizeof(s->cpuid->entries[0]));
	if (!s->cpuid)
		return errbuf_errno(err, errlen, -ENOMEM, "out of memory for the CPUID table");
	s->cpuid->nent = CPUID_MAX_ENTRIES;
	if (ioctl(s->fd, KVM_GET_SUPPORTED_CPUID, s->cpuid) < 0) {
		int e = errno;
		return errbuf_errno(err, errlen, -e, "KVM_GET_SUPPORTED_CPUID on %s: %s",
				    kvm_device_path(), strerror(e));
	}
	return 0;
}

int kvm_system_open(struct kvm_system *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->module = kvm_detect_module();
	s->fd = open_device(kvm_device_path(), err, errlen);
	if (s->fd < 0)
		return s->fd;

	int rc;
	struct stat st;
	if (fstat(s->fd, &st) == 0 && !S_ISCHR(st.st_mode)) {
		rc = -ENOTTY;
		errbuf_printf(err, errlen, "%s is not a KVM device: not a character device",
			      kvm_device_path());
		goto fail;
	}
	int version = ioctl(s->fd, KVM_GET_API_VERSION, 0);
	if (version < 0) {
		rc = -errno;
		errbuf_printf(err, errlen,
			      "%s is not a KVM device: KVM_GET_API_VERSION: %s (check "
			      "PLERIG_KVM_DEVICE)",
			      kvm_device_path(), strerror(errno));
		goto fail;
	}
	if (version != KVM_API_VERSION) {
		rc = version < 0 ? -errno : -EINVAL;
		errbuf_printf(err, errlen,
			      "%s speaks KVM API %d, plerig needs %d (is it a KVM device?)",
			      kvm_device_path(), version, KVM_API_VERSION);
		goto fail;
	}
	s->vcpu_mmap_size = ioctl(s->fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (s->vcpu_mmap_size < (int)sizeof(struct kvm_run)) {
		rc = -errno;
		errbuf_printf(err, errlen, "KVM_GET_VCPU_MMAP_SIZE: %s", strerror(errno));
		goto fail;
	}
	s->has_tss_addr = ioctl(s->fd, KVM_CHECK_EXTENSION, KVM_CAP_SET_TSS_ADDR) > 0;
	rc = get_supported_cpuid(s, err, errlen);
	if (rc)
		goto fail;
	return 0;
fail:
	kvm_system_close(s);
	return rc;
}

void kvm_system_close(struct kvm_system *s)
{
	if (s->fd > 0)
		close(s->fd);
	s->fd = -1;
	free(s->cpuid);
	s->cpuid = NULL;
}
