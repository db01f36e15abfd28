// SPDX-License-Identifier: GPL-2.0
#include "model/backend_limits.h"

#define NO_VM "host threads, no VM: "
#define TCG   "QEMU's emulator (TCG): "

const char *backend_cannot(enum backend_kind b, enum backend_setting s)
{
	static const char *const why[BACKEND_COUNT][SETTING_COUNT] = {
	    [BACKEND_NATIVE] =
		{
		    [SETTING_PLE_OFF] = NO_VM "nothing intercepts PAUSE",
		    [SETTING_HALT_POLL] =
			NO_VM "no KVM halt polling (lock pvqspin halts on a futex)",
		    [SETTING_RING_KERNEL] = NO_VM "the storm runs in host user space",
		},
	    [BACKEND_LIBVIRT] =
		{
		    /* libvirt 9.0 only reads halt polling (haltpoll.* stats), and QEMU 7.2's
		     * kvm accelerator has no property for KVM_CAP_HALT_POLL */
		    [SETTING_HALT_POLL] = "neither libvirt nor QEMU sets halt polling per domain; "
					  "plerig sweep --param halt_poll_ns=... sets kvm's for "
					  "the whole host",
		},
	    [BACKEND_LIBVIRT_TCG] =
		{
		    [SETTING_PLE_OFF] = TCG "nothing intercepts PAUSE",
		    [SETTING_HALT_POLL] = TCG "no KVM halt polling",
		},
	};
	if ((unsigned)b >= BACKEND_COUNT || (unsigned)s >= SETTING_COUNT)
		return NULL;
	return why[b][s];
}

const char *backend_setting_fix(enum backend_setting s)
{
	switch (s) {
	case SETTING_PLE_OFF:
		return "add --backend kvm (or libvirt with KVM), or leave out --ple off";
	case SETTING_HALT_POLL:
		return "add --backend kvm, or use --halt-poll kept";
	case SETTING_RING_KERNEL:
		return "add --backend kvm or libvirt, or leave out --ring kernel";
	case SETTING_COUNT:
		break;
	}
	return "";
}

const char *variant_ple_na(const struct variant *v)
{
	/* a backend with no PAUSE interception to turn off has none turned on either */
	return backend_cannot(v->backend, SETTING_PLE_OFF);
}

const char *variant_halt_poll_na(const struct variant *v)
{
	/* libvirt cannot set it, but its VMs have the host's: only where there is no KVM */
	return v->backend == BACKEND_LIBVIRT ? NULL : backend_cannot(v->backend, SETTING_HALT_POLL);
}
