// SPDX-License-Identifier: GPL-2.0
/* Whether PAUSE is intercepted at all, and the parameters that tune it. */
#include <stdio.h>
#include <string.h>

#include "doctor/probes.h"
#include "util/errbuf.h"

static void check_interception(struct doctor_findings *r)
{
	const struct ple_host *h = &r->host;
	if (!h->module[0])
		return;
	if (h->vendor == PLE_VENDOR_NONE) {
		doctor_add(r, "pause_intercept", "PAUSE interception", DOCTOR_NO,
			   "no hardware PLE on this host (%s): PAUSE never exits, PAUSE-loop exit "
			   "counts are unavailable; lock-holder figures still work",
			   h->module);
		doctor_fix(r, "for PLE figures use a host with kvm_intel (VMX) or kvm_amd (SVM)");
		return;
	}
	const char *intercept = h->vendor == PLE_VENDOR_VMX ? "ple_gap" : "pause_filter_count";
	const struct ple_param *g = ple_host_param(h, intercept);
	const struct ple_param *t = ple_host_param(h, "pause_filter_thresh");
	if (g && !strcmp(g->value, "0")) {
		doctor_add(r, "pause_intercept", "PAUSE interception", DOCTOR_WARN,
			   "off host-wide: %s.%s=0", h->module, intercept);
		doctor_fix(r,
			   "reload %s with %s > 0 (plerig sweep --param %s=... does it for a "
			   "sweep)",
			   h->module, intercept, intercept);
	} else if (t && !strcmp(t->value, "0")) {
		/*
		 * svm_vm_init: no threshold, no interception (not a filter that
		 * counts every PAUSE: under Linux 6.1 no PAUSE exited at all).
		 * kvm_amd zeroes it itself on a CPU without PFTHRESHOLD.
		 */
		doctor_add(r, "pause_intercept", "PAUSE interception", DOCTOR_WARN,
			   "off host-wide: %s.pause_filter_thresh=0 (kvm_amd lets every VM's "
			   "PAUSE run in the guest without a threshold; it sets 0 itself where "
			   "the CPU lacks the pause filter threshold, CPUID 8000_000A EDX bit 12, "
			   "pfthreshold)",
			   h->module);
		doctor_fix(r,
			   "reload %s with pause_filter_thresh > 0 (128, its default), on a CPU "
			   "with pfthreshold in /proc/cpuinfo",
			   h->module);
	} else {
		doctor_add(r, "pause_intercept", "PAUSE interception", DOCTOR_OK, "%s: %s=%s%s",
			   h->vendor == PLE_VENDOR_VMX ? "Intel PLE" : "AMD pause filter", intercept,
			   g ? g->value : "?",
			   h->vendor == PLE_VENDOR_VMX
			       ? " (Intel PLE ignores PAUSE at guest CPL > 0: use --ring kernel)"
			       : "");
	}
}

static void check_params(struct doctor_findings *r)
{
	const struct ple_host *h = &r->host;
	if (!h->module[0])
		return;
	if (!ple_module_params(h->module)) {
		/* halt polling is kvm's, written at run time only: its file mode decides */
		struct ple_param hp;
		char err[ERRBUF_SIZE];
		const char *sweep = "only kvm's halt polling (--param halt_poll_ns=...)";
		if (ple_core_read(h->root, "halt_poll_ns", &hp, err, sizeof(err)) < 0)
			sweep = "nor kvm's halt polling (halt_poll_ns cannot be read)";
		else if (!(hp.mode & 0200))
			sweep = "nor kvm's halt polling (halt_poll_ns is read-only here)";
		doctor_add(r, "ple_params", "PLE parameters", DOCTOR_INFO,
			   "%s has none (ple_gap, ple_window... belong to kvm_intel, "
			   "pause_filter_* to kvm_amd): plerig sweep cannot sweep PLE here, %s",
			   h->module, sweep);
		return;
	}
	if (!h->nr_params) {
		doctor_add(r, "ple_params", "PLE parameters", DOCTOR_WARN,
			   "%s shows none of its PLE parameters under %s/module/%s/parameters",
			   h->module, h->root, h->module);
		return;
	}
	for (unsigned i = 0; i < h->nr_params; i++) {
		const struct ple_param *p = &h->params[i];
		char why[512], key[PLE_NAME_LEN + 8];
		enum ple_method m = ple_decide(h, p->name, why, sizeof(why));
		snprintf(key, sizeof(key), "param_%s", p->name);
		if (m == PLE_METHOD_RUNTIME)
			doctor_add(r, key, p->name, DOCTOR_OK,
				   "%s (mode %04o): writable at run time", p->value, p->mode);
		else if (m == PLE_METHOD_RELOAD)
			doctor_add(r, key, p->name, DOCTOR_OK,
				   "%s (mode %04o, read-only): changing it reloads %s, possible "
				   "now (unused)",
				   p->value, p->mode, h->module);
		else {
			doctor_add(r, key, p->name, DOCTOR_WARN,
				   "%s (mode %04o): cannot change now", p->value, p->mode);
			doctor_fix(r, "%s", why);
		}
	}
}

void doctor_probe_ple(struct doctor_findings *r)
{
	check_interception(r);
	check_params(r);
}
