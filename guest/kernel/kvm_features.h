/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM's paravirtual features as this vCPU's CPUID offers them: for a guest
 * whose host cannot ask KVM itself (QEMU through libvirt).
 */
#ifndef PLERIG_GUEST_KVM_FEATURES_H
#define PLERIG_GUEST_KVM_FEATURES_H

#include <stdint.h>

#define KVM_FEATURE_STEAL_TIME 5
#define KVM_FEATURE_PV_UNHALT  7

/* CPUID 0x40000001 EAX where leaf 0x40000000 says "KVMKVMKVM", else 0. */
uint32_t kvm_cpuid_features(void);

#endif
