/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which KVM module a libvirt host runs, inferred from its capabilities
 * (virConnectGetCapabilities): libvirt names no module, but KVM needs the
 * host CPU's vmx (kvm_intel) or svm (kvm_amd), except PVM (kvm_pvm), KVM's
 * software backend, which runs where neither is. The inference cannot tell
 * a kvm_pvm loaded on a CPU that has vmx or svm from kvm_intel or kvm_amd.
 */
#ifndef PLERIG_LV_CAPS_KVM_H
#define PLERIG_LV_CAPS_KVM_H

#include <stddef.h>

/*
 * @module: "kvm_intel" (host CPU with vmx, KVM domains offered), "kvm_amd"
 * (svm), "kvm_pvm" (KVM domains, neither flag), "none" (no KVM domains:
 * TCG only), with @how ("inferred from the host CPU's vmx flag; libvirt
 * names no module"). 0, or -1 where @caps has no host CPU to look at or
 * no guests at all: then nothing can be said and both are left alone.
 */
int lv_caps_kvm_module(const char *caps, char *module, size_t module_len, char *how,
		       size_t how_len);

#endif
