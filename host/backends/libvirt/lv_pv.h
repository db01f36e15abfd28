/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM's paravirtual features under QEMU: libvirt's domain capabilities list
 * neither pv-unhalt nor steal time, so the guest reads its own CPUID
 * (PLERIG_CONFIG_PV_FROM_CPUID) and its END frame says what it found; this
 * turns that into the results' steal_time, pv_unhalt and pv_why.
 */
#ifndef PLERIG_LV_PV_H
#define PLERIG_LV_PV_H

#include <stdbool.h>
#include <stdint.h>

#include "model/results.h"
#include "plerig/abi.h"

struct lv_pv_host {
	bool tcg; /* QEMU's TCG: no KVM leaves to read */
	bool pvm; /* KVM is PVM: no hypercall of the guest reaches it (KVM_PVM_NO_HYPERCALL) */
	/* pvm from a remote host's capabilities (lv_caps_kvm_module), not from kvm_pvm here */
	bool pvm_inferred;
};

/*
 * The config flags of @v's guests: the CPUID decides, and pvqspin may halt where it
 * offers PV_UNHALT, except on PVM; under TCG, pv_why at once.
 */
void lv_pv_config(struct plerig_config *cfg, const struct variant *v, const struct lv_pv_host *h,
		  struct variant_result *r);
/*
 * What the guest's CPUID offered (@kvm_features from its END frame) into @r: steal_time,
 * and for pvqspin pv_unhalt or pv_why (the CPUID's reason before PVM's, so that --ple
 * off's is seen on PVM too).
 */
void lv_pv_results(const struct plerig_config *cfg, const struct variant *v,
		   const struct lv_pv_host *h, uint32_t kvm_features, struct variant_result *r);

#endif
