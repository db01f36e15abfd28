// SPDX-License-Identifier: GPL-2.0
/*
 * Whether the host can run a scenario's requirements (suite key
 * requires =), or why not. On a --connect host of another machine plerig
 * knows its KVM module only as inferred from libvirt's capabilities
 * (kvm_module_source says so): a requirement on the kind of KVM alone
 * (hw-virt, pv-unhalt) is decided by it; one that needs reading the host
 * itself (ple: its PLE parameters and tracepoints) is not.
 */
#include <stdio.h>
#include <string.h>

#include "experiment/check_ctx.h"
#include "measure/kvm_system.h"

static bool has_hw_virt(const struct host_info *h)
{
	return !strcmp(h->kvm_module, "kvm_intel") || !strcmp(h->kvm_module, "kvm_amd");
}

static bool uses_kvm(const struct run_plan *p)
{
	for (unsigned i = 0; i < p->nr_backends; i++)
		if (p->backends[i] == BACKEND_KVM || p->backends[i] == BACKEND_LIBVIRT)
			return true;
	return false;
}

/* Requirements on the kind of KVM, which a module inferred from the host CPU answers. */
#define KVM_KIND_REQUIREMENTS                                                                      \
	((1u << REQUIRE_PLE) | (1u << REQUIRE_HW_VIRT) | (1u << REQUIRE_PV_UNHALT))

/* What the first of @kind's requirements needs, in words. */
static const char *kind_needed(unsigned kind)
{
	return kind & (1u << REQUIRE_PLE)	? "hardware PLE"
	       : kind & (1u << REQUIRE_HW_VIRT) ? "VMX/SVM"
						: "pv-unhalt";
}

/* check --connect: what the host's module (read here, or inferred there) rules out. */
static const char *kvm_kind_skip(const struct check_ctx *k, const struct scenario *s,
				 const char *module, char *buf, size_t len)
{
	const struct host_info *h = &k->out->host;
	const unsigned kind = s->requires & KVM_KIND_REQUIREMENTS;
	if (kind && !strcmp(h->kvm_module, "unknown")) {
		snprintf(buf, len,
			 "needs %s: libvirt does not say which KVM module host %s runs, and its "
			 "capabilities show no host CPU to infer it from",
			 kind_needed(kind), h->name);
		return buf;
	}
	if (s->requires & (1u << REQUIRE_PLE) && !has_hw_virt(h)) {
		snprintf(buf, len, "needs hardware PLE: no PAUSE interception on host %s, %s",
			 h->name, module);
		return buf;
	}
	if (s->requires & (1u << REQUIRE_PLE) && k->elsewhere) {
		snprintf(buf, len,
			 "needs hardware PLE: host %s runs %s, but whether its KVM intercepts "
			 "PAUSE is in its module parameters (ple_gap, pause_filter_count) and its "
			 "PAUSE-loop exits are counted by tracepoints there, neither of which "
			 "libvirt reports",
			 h->name, module);
		return buf;
	}
	if (s->requires & (1u << REQUIRE_HW_VIRT) && !has_hw_virt(h)) {
		snprintf(buf, len, "needs VMX/SVM: guest ring 0 is emulated on %s", module);
		return buf;
	}
	if (s->requires & (1u << REQUIRE_PV_UNHALT) && !has_hw_virt(h)) {
		snprintf(buf, len,
			 !strcmp(h->kvm_module, "kvm_pvm")
			     ? "needs pv-unhalt: on PVM, %s, " KVM_PVM_NO_HYPERCALL
			       " (pvqspin runs as test-and-set)"
			     : "needs pv-unhalt: no KVM to kick a halted vCPU on this host (%s)",
			 module);
		return buf;
	}
	return NULL;
}

/* check --connect: what libvirt and QEMU do not do, whatever the host's KVM. */
static const char *libvirt_skip(const struct scenario *s, char *buf, size_t len)
{
	if (s->requires & (1u << REQUIRE_PV_YIELD)) {
		snprintf(buf, len,
			 "needs pv-yield: the libvirt backend does not give the guest the "
			 "directed yield hypercall");
		return buf;
	}
	if (s->requires & (1u << REQUIRE_HALT_POLL)) {
		snprintf(buf, len,
			 "needs halt-poll: neither libvirt nor QEMU sets halt polling per domain");
		return buf;
	}
	return NULL;
}

/*
 * check without --connect, a scenario whose own --connect runs VMs on
 * another machine: this machine's KVM is not that one's, and check reads
 * that one's identity only with --connect.
 */
static const char *own_connect_skip(const struct scenario *s, char *buf, size_t len)
{
	const char *why = libvirt_skip(s, buf, len);
	const unsigned kind = s->requires & KVM_KIND_REQUIREMENTS;
	if (why || !kind)
		return why;
	snprintf(buf, len,
		 "needs %s: its --connect runs it on another machine, whose KVM this check does "
		 "not read (plerig check --connect URI reads it)",
		 kind_needed(kind));
	return buf;
}

/* check without --connect: the kvm backend here, as probed (probe_kvm). */
static const char *this_kvm_skip(const struct check_ctx *k, const struct scenario *s, char *buf,
				 size_t len)
{
	const struct host_info *h = &k->out->host;
	if (s->requires & (1u << REQUIRE_PLE) && !has_hw_virt(h)) {
		snprintf(buf, len, "needs hardware PLE: no PAUSE interception on this host (%s)",
			 h->kvm_module);
		return buf;
	}
	if (s->requires & (1u << REQUIRE_HW_VIRT) && !has_hw_virt(h)) {
		snprintf(buf, len, "needs VMX/SVM: guest ring 0 is emulated on %s", h->kvm_module);
		return buf;
	}
	if (s->requires & (1u << REQUIRE_HALT_POLL) && !k->halt_poll) {
		snprintf(buf, len,
			 "needs halt-poll: KVM here has no KVM_CAP_HALT_POLL (Linux >= 5.19)");
		return buf;
	}
	if (s->requires & (1u << REQUIRE_PV_YIELD) && !k->pv_yield) {
		snprintf(
		    buf, len,
		    !strcmp(h->kvm_module, "kvm_pvm")
			? "needs pv-yield: under PVM " KVM_PVM_NO_HYPERCALL
			: "needs pv-yield: KVM here does not offer KVM_FEATURE_PV_SCHED_YIELD");
		return buf;
	}
	if (s->requires & (1u << REQUIRE_PV_UNHALT) && !k->pv_unhalt) {
		snprintf(buf, len,
			 !strcmp(h->kvm_module, "kvm_pvm")
			     ? "needs pv-unhalt: under PVM " KVM_PVM_NO_HYPERCALL
			       " (pvqspin runs as test-and-set)"
			     : "needs pv-unhalt: KVM here does not offer KVM_FEATURE_PV_UNHALT");
		return buf;
	}
	return NULL;
}

const char *check_skip_reason(const struct check_ctx *k, const struct scenario *s, char *buf,
			      size_t len)
{
	const struct host_info *h = &k->out->host;
	struct check_place place;
	check_scenario_place(k, s, &place);
	if (k->c->on_host && !k->moved)
		return "its variants run on --backend native, on this machine, not on a --connect "
		       "host";
	/* this machine's KVM, for VMs on this machine only */
	if (!k->c->on_host && uses_kvm(s->plan) && place.here && !k->kvm_ok)
		return k->kvm_why;
	if (s->min_cpus > h->cpus) {
		snprintf(buf, len, "needs %u host CPUs, plerig may use %u here", s->min_cpus,
			 h->cpus);
		return buf;
	}
	if (!k->c->on_host)
		return place.elsewhere ? own_connect_skip(s, buf, len)
				       : this_kvm_skip(k, s, buf, len);
	char module[sizeof(h->kvm_module) + sizeof(h->kvm_module_source) + 4];
	host_kvm_module_text(h, module, sizeof(module));
	const char *why = kvm_kind_skip(k, s, module, buf, len);
	return why ? why : libvirt_skip(s, buf, len);
}
