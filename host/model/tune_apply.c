// SPDX-License-Identifier: GPL-2.0
#include "model/tune_apply.h"

#include <stdio.h>
#include <string.h>

static const char *also_of(const char *param)
{
	if (!strcmp(param, "ple_window"))
		return "host-wide: every VM of the host starts from this window, and KVM grows it "
		       "on each PAUSE-loop exit (the grow factor) up to its maximum, shrinking "
		       "it back when the vCPU is scheduled in; a dedicated-CPU VM is better off "
		       "with PAUSE exits off per VM than with any window";
	if (!strcmp(param, "pause_filter_count"))
		return "host-wide: a count of PAUSEs, not of cycles (each PAUSE within "
		       "pause_filter_thresh cycles of the one before counts one down; a longer "
		       "gap loads the count again); every VM of the host starts from it, and "
		       "kvm_amd multiplies it by pause_filter_count_grow on each PAUSE exit, up "
		       "to pause_filter_count_max (at most 65535), and puts it back when the vCPU "
		       "is scheduled in; 0 turns PAUSE exiting off for every VM; a dedicated-CPU "
		       "VM is better off with PAUSE exits off per VM than with any count";
	if (!strcmp(param, "ple_gap") || !strcmp(param, "pause_filter_thresh"))
		return "host-wide: decides which PAUSEs belong to one loop; 0 turns PAUSE-loop "
		       "exiting off for every VM of the host";
	if (!strncmp(param, "halt_poll_ns", 12))
		return "host-wide, every vendor module: a halted vCPU polls this long before it "
		       "sleeps, burning its CPU for other work's time; each VM may override it "
		       "(KVM_CAP_HALT_POLL)";
	return "host-wide: the dynamic window's behaviour for every VM of the host";
}

void tune_advice_make(const struct tune_space *sp, const char *module, uint64_t value,
		      bool writable, struct tune_advice *out)
{
	const char *mod = !strncmp(sp->param, "halt_poll_ns", 12) ? "kvm" : module;
	const unsigned long long v = (unsigned long long)value;
	memset(out, 0, sizeof(*out));
	snprintf(out->modprobe, sizeof(out->modprobe),
		 "echo 'options %s %s=%llu' > /etc/modprobe.d/plerig-tune.conf  # at the next "
		 "load of %s (reboot, or rmmod/modprobe with no VM running)",
		 mod, sp->param, v, mod);
	if (writable)
		snprintf(out->runtime, sizeof(out->runtime),
			 "echo %llu > /sys/module/%s/parameters/%s  # now, until the next load", v,
			 mod, sp->param);
	snprintf(out->also, sizeof(out->also), "%s", also_of(sp->param));
	snprintf(out->qemu, sizeof(out->qemu), "-overcommit cpu-pm=on");
	snprintf(out->qemu_also, sizeof(out->qemu_also),
		 "turns off HLT, MWAIT and C-state exits too, not only PAUSE "
		 "(KVM_CAP_X86_DISABLE_EXITS): an idle vCPU keeps its host CPU busy, host halt "
		 "polling no longer applies, and KVM withdraws KVM_FEATURE_PV_UNHALT, so pv "
		 "spinlocks no longer halt; only for vCPUs pinned 1:1 to host CPUs of their own");
	snprintf(out->libvirt, sizeof(out->libvirt),
		 "<domain type='kvm' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'> ... "
		 "<qemu:commandline><qemu:arg value='-overcommit'/><qemu:arg "
		 "value='cpu-pm=on'/></qemu:commandline></domain>");
	snprintf(out->libvirt_also, sizeof(out->libvirt_also),
		 "libvirt has no element of its own for it and marks such a domain tainted "
		 "(custom-argv); pin the vCPUs (<cputune><vcpupin>) to CPUs nothing else uses");
	if (!strncmp(sp->param, "halt_poll_ns", 12))
		snprintf(
		    out->guest, sizeof(out->guest),
		    "a guest with cpuidle-haltpoll polls inside the guest "
		    "(guest_halt_poll_ns) and turns host polling off for its vCPUs "
		    "(MSR_KVM_POLL_CONTROL), so this value only matters for guests without it");
}
