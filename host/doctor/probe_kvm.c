// SPDX-License-Identifier: GPL-2.0
/* /dev/kvm, the module behind it, and the capabilities PLE experiments use. */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "doctor/probes.h"
#include "backends/kvm/vm.h"
#include "measure/device_access.h"
#include "measure/host_info.h"
#include "measure/kvm_system.h"
#include "util/errbuf.h"

static void check_module(struct doctor_findings *r)
{
	char err[ERRBUF_SIZE];
	struct ple_host *h = &r->host;
	if (ple_host_detect(h, ple_sysfs_root(), err, sizeof(err))) {
		doctor_add(r, "kvm_module", "KVM module", DOCTOR_NO, "%s", err);
		return;
	}
	if (!h->module[0]) {
		doctor_add(r, "kvm_module", "KVM module", DOCTOR_NO,
			   "none of kvm_intel, kvm_amd, kvm_pvm under %s/module", h->root);
		doctor_fix(r, "modprobe kvm_intel (Intel) or kvm_amd (AMD), with virtualisation "
			      "enabled in the firmware");
		return;
	}
	const char *what = h->vendor == PLE_VENDOR_VMX ? "Intel VMX"
			   : h->vendor == PLE_VENDOR_SVM
			       ? "AMD SVM"
			       : "PVM, a software backend without VMX/SVM";
	if (h->loadable)
		doctor_add(r, "kvm_module", "KVM module", DOCTOR_OK,
			   "%s drives /dev/kvm: %s; loadable, refcnt %ld%s%s%s%s", h->module, what,
			   h->refcnt, h->users[0] ? ", held by " : "", h->users,
			   h->holders[0] ? "; modules depending on it: " : "", h->holders);
	else
		doctor_add(r, "kvm_module", "KVM module", DOCTOR_OK,
			   "%s drives /dev/kvm: %s; built into the kernel (cannot be reloaded)",
			   h->module, what);
}

/* A fresh VM accepts KVM_X86_DISABLE_EXITS_PAUSE before its first vCPU? */
/* A fresh VM of plerig's own VMM, asked what `--ple off` will ask. */
static int try_disable_pause(int kvm, char *err, size_t errlen)
{
	const struct kvm_system sys = {.fd = kvm};
	struct kvm_vm vm;
	int rc = kvm_vm_open(&vm, &sys, 0, err, errlen);
	if (!rc)
		rc = kvm_vm_disable_pause_exits(&vm, &sys, err, errlen);
	kvm_vm_destroy(&vm);
	return rc ? -1 : 0;
}

static void check_caps(struct doctor_findings *r, int kvm)
{
	char err[ERRBUF_SIZE];
	int mask = ioctl(kvm, KVM_CHECK_EXTENSION, KVM_CAP_X86_DISABLE_EXITS);
	if (mask < 0 || !(mask & KVM_X86_DISABLE_EXITS_PAUSE)) {
		doctor_add(r, "disable_exits", "per-VM PLE off", DOCTOR_NO,
			   "KVM_CAP_X86_DISABLE_EXITS is %d: no PAUSE bit, so --ple off cannot "
			   "turn PAUSE interception off for one VM",
			   mask);
		doctor_fix(r, "a newer kernel (4.16 or later), or kvm.ko not built with "
			      "restrictions on disabling exits");
	} else if (try_disable_pause(kvm, err, sizeof(err))) {
		doctor_add(r, "disable_exits", "per-VM PLE off", DOCTOR_NO,
			   "KVM_CAP_X86_DISABLE_EXITS = %d offers PAUSE, but a fresh VM refused "
			   "it: %s",
			   mask, err);
	} else {
		doctor_add(r, "disable_exits", "per-VM PLE off", DOCTOR_OK,
			   "KVM_CAP_X86_DISABLE_EXITS = %d (PAUSE bit set); a fresh VM accepts "
			   "KVM_X86_DISABLE_EXITS_PAUSE%s",
			   mask,
			   r->host.vendor == PLE_VENDOR_NONE
			       ? " (nothing to disable here: no PAUSE intercept)"
			       : "");
	}

	int stats = ioctl(kvm, KVM_CHECK_EXTENSION, KVM_CAP_BINARY_STATS_FD);
	if (stats > 0)
		doctor_add(r, "stats_fd", "KVM binary stats", DOCTOR_OK,
			   "KVM_CAP_BINARY_STATS_FD: per-vCPU exits, halt_exits, "
			   "directed_yield_attempted/successful, preemption_reported");
	else {
		doctor_add(r, "stats_fd", "KVM binary stats", DOCTOR_WARN,
			   "KVM_CAP_BINARY_STATS_FD is absent: no per-vCPU exits or directed "
			   "yields");
		doctor_fix(r, "Linux 5.14 or later");
	}
}

/*
 * No device: say what the CPU allows, name no module (one listed in
 * /sys/module but offering no device drives nothing), and leave the PLE
 * checks nothing to read.
 */
static void no_device(struct doctor_findings *r, const char *path, int e)
{
	const char *flag = host_cpu_virt_flag();
	doctor_add(r, "kvm_device", "KVM device", DOCTOR_NO, "cannot open %s: %s", path,
		   strerror(e));
	if (e == EACCES || e == EPERM) {
		const struct device_identity me = device_identity_self();
		char why[512];
		device_access_advice(path, &me, why, sizeof(why));
		doctor_fix(r, "%s", why);
		check_module(r);
		return;
	}
	if (flag)
		doctor_fix(r,
			   "load %s (this CPU shows %s) and enable virtualisation in the firmware",
			   !strcmp(flag, "vmx") ? "kvm_intel" : "kvm_amd", flag);
	else
		doctor_fix(r,
			   "none here: this CPU shows neither vmx nor svm, so no KVM module can "
			   "offer %s; use a host with VMX/SVM (or nested virtualisation), or a "
			   "route below that needs no KVM",
			   path);
	/*
	 * A module listed in /sys/module drives nothing without the device; one
	 * with PLE parameters (kvm_intel, kvm_amd) is still worth showing: its
	 * node may only be missing (no udev). PVM's has none to show.
	 */
	struct ple_host *h = &r->host;
	char derr[ERRBUF_SIZE];
	if (ple_host_detect(h, ple_sysfs_root(), derr, sizeof(derr)) || !h->module[0] ||
	    h->vendor == PLE_VENDOR_NONE) {
		char listed[sizeof(h->module)];
		snprintf(listed, sizeof(listed), "%s", h->module);
		memset(h, 0, sizeof(*h));
		if (listed[0])
			doctor_add(r, "kvm_module", "KVM module", DOCTOR_INFO,
				   "none drives a KVM device: there is no %s (%s is listed in "
				   "/sys/module but offers no device)",
				   path, listed);
		else
			doctor_add(r, "kvm_module", "KVM module", DOCTOR_INFO,
				   "none: no KVM module under /sys/module and no %s", path);
		return;
	}
	doctor_add(r, "kvm_module", "KVM module", DOCTOR_WARN,
		   "%s is loaded (%s) but there is no %s: its parameters are shown below, "
		   "no VM can run",
		   h->module, h->vendor == PLE_VENDOR_VMX ? "Intel VMX" : "AMD SVM", path);
	doctor_fix(r,
		   "create the node: mknod -m 660 %s c 10 232 && chgrp kvm %s (udev does it "
		   "at boot)",
		   path, path);
}

/* What runs on a machine without a usable KVM device, one command each. */
static void routes_without_kvm(struct doctor_findings *r)
{
	doctor_add(r, "routes_without_kvm", "without KVM", DOCTOR_INFO,
		   "the real kvm_intel with PAUSE-loop exiting under Bochs' emulated VMX CPU: "
		   "make ple-test; host threads, no virtualisation: plerig run --backend "
		   "native; QEMU's TCG through libvirt: plerig run --backend libvirt --accel tcg");
}

static void device_unusable(struct doctor_findings *r, const char *detail)
{
	doctor_add(r, "kvm_device", "KVM device", DOCTOR_NO, "%s", detail);
	check_module(r);
	routes_without_kvm(r);
}

void doctor_probe_kvm(struct doctor_findings *r)
{
	const char *path = kvm_device_path();
	char detail[sizeof(r->list[0].detail)];
	int kvm = open(path, O_RDWR | O_CLOEXEC);
	if (kvm < 0) {
		no_device(r, path, errno);
		routes_without_kvm(r);
		return;
	}
	int api = ioctl(kvm, KVM_GET_API_VERSION, 0);
	if (api < 0) {
		snprintf(detail, sizeof(detail), "%s is not a KVM device: KVM_GET_API_VERSION: %s",
			 path, strerror(errno));
		close(kvm);
		device_unusable(r, detail);
		return;
	}
	if (api != KVM_API_VERSION) {
		snprintf(detail, sizeof(detail), "%s answers KVM API %d, plerig needs %d", path,
			 api, KVM_API_VERSION);
		close(kvm);
		device_unusable(r, detail);
		return;
	}
	r->kvm_device_ok = true;
	doctor_add(r, "kvm_device", "KVM device", DOCTOR_OK, "%s opens read-write, KVM API %d",
		   path, api);
	check_module(r);
	check_caps(r, kvm);
	close(kvm);
}
