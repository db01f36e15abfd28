// SPDX-License-Identifier: GPL-2.0
#include "backends/libvirt/lv_pv.h"

#include <stdio.h>

#include "measure/kvm_system.h"

void lv_pv_config(struct plerig_config *cfg, const struct variant *v, const struct lv_pv_host *h,
		  struct variant_result *r)
{
	if (h->tcg) {
		if (v->lock == PLERIG_LOCK_PVQSPIN)
			snprintf(r->pv_why, sizeof(r->pv_why),
				 "ran as test-and-set: QEMU's TCG has no KVM_HC_KICK_CPU");
		return;
	}
	cfg->flags |= PLERIG_CONFIG_PV_FROM_CPUID;
	if (v->lock == PLERIG_LOCK_PVQSPIN && !h->pvm)
		cfg->flags |= PLERIG_CONFIG_PV_UNHALT_IF_OFFERED;
}

void lv_pv_results(const struct plerig_config *cfg, const struct variant *v,
		   const struct lv_pv_host *h, uint32_t kvm_features, struct variant_result *r)
{
	if (!(cfg->flags & PLERIG_CONFIG_PV_FROM_CPUID))
		return;
	r->steal_time = kvm_features >> KVM_FEATURE_STEAL_TIME & 1;
	if (v->lock != PLERIG_LOCK_PVQSPIN)
		return;
	/* what the CPUID lacks first: it holds on any host, PVM's reason only here */
	if (!kvm_features)
		snprintf(r->pv_why, sizeof(r->pv_why),
			 "ran as test-and-set: the guest's CPUID has no KVM leaves (leaf "
			 "0x40000000 is not KVMKVMKVM)");
	else if (!(kvm_features >> KVM_FEATURE_PV_UNHALT & 1))
		snprintf(r->pv_why, sizeof(r->pv_why),
			 "ran as test-and-set: the guest's CPUID offers no KVM_FEATURE_PV_UNHALT "
			 "(EAX 0x%x)%s",
			 kvm_features,
			 v->ple == PLE_OFF ? ": --ple off's cpu-pm=on stops HLT exits too, so KVM "
					     "withdraws it"
					   : "");
	else if (h->pvm)
		snprintf(r->pv_why, sizeof(r->pv_why),
			 "ran as test-and-set: %s" KVM_PVM_NO_HYPERCALL,
			 h->pvm_inferred ? "PVM, it seems (KVM on a CPU without vmx or svm): "
					 : "under PVM (kvm_pvm) ");
	else
		r->pv_unhalt = true;
}
