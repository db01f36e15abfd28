// SPDX-License-Identifier: GPL-2.0
#include "model/names.h"

#include <stdio.h>
#include <string.h>

#include "model/plan.h"
#include "model/variant.h"

#define TABLE(var, what_, ...)                                                                     \
	static const char *const var##_words[] = {__VA_ARGS__};                                    \
	const struct name_table var = {what_, sizeof(var##_words) / sizeof(var##_words[0]),        \
				       var##_words}

/* Changing a word breaks scripts and stored results. */
TABLE(backend_names, "backend", [BACKEND_KVM] = "kvm", [BACKEND_NATIVE] = "native",
      [BACKEND_LIBVIRT] = "libvirt", [BACKEND_LIBVIRT_TCG] = "libvirt-emulated");
TABLE(lock_names, "lock", [PLERIG_LOCK_TICKET] = "ticket", [PLERIG_LOCK_TAS] = "tas",
      [PLERIG_LOCK_MCS] = "mcs", [PLERIG_LOCK_PVQSPIN] = "pvqspin");
TABLE(relax_names, "relax", [PLERIG_RELAX_PAUSE] = "pause", [PLERIG_RELAX_NOP] = "nop",
      [PLERIG_RELAX_REP_PAUSE] = "rep-pause", [PLERIG_RELAX_NONE] = "none",
      [PLERIG_RELAX_PV_YIELD] = "pv-yield");
TABLE(ple_names, "PLE mode", [PLE_ON] = "on", [PLE_OFF] = "off");
TABLE(ring_choice_names, "ring", [RING_CHOICE_AUTO] = "auto", [RING_CHOICE_USER] = "user",
      [RING_CHOICE_KERNEL] = "kernel");
TABLE(pin_names, "placement", [PIN_EACH] = "each", [PIN_FLOAT] = "float");
TABLE(order_names, "order", [ORDER_INTERLEAVE] = "interleave", [ORDER_SHUFFLE] = "shuffle",
      [ORDER_SEQUENTIAL] = "sequential");
TABLE(inject_names, "injection", [PLERIG_INJECT_NONE] = "none", [PLERIG_INJECT_FAULT] = "fault",
      [PLERIG_INJECT_HANG] = "hang", [PLERIG_INJECT_GARBAGE] = "garbage");
TABLE(accel_names, "accelerator", [ACCEL_KVM] = "kvm", [ACCEL_TCG] = "tcg");
TABLE(reference_axis_names, "axis", [REFERENCE_BACKEND] = "backend", [REFERENCE_LOCK] = "lock",
      [REFERENCE_RELAX] = "relax", [REFERENCE_VCPUS] = "vcpus", [REFERENCE_PLE] = "ple");

const char *name_of(const struct name_table *t, unsigned v)
{
	return v < t->count && t->names[v] ? t->names[v] : "?";
}

int name_lookup(const struct name_table *t, const char *s)
{
	if (!s)
		return -1;
	for (unsigned i = 0; i < t->count; i++)
		if (t->names[i] && strcmp(t->names[i], s) == 0)
			return (int)i;
	return -1;
}

const char *name_list(const struct name_table *t, char *buf, size_t len)
{
	size_t used = 0;
	const char *sep = "";
	if (len)
		buf[0] = '\0';
	for (unsigned i = 0; i < t->count && used < len; i++) {
		if (!t->names[i])
			continue;
		int n = snprintf(buf + used, len - used, "%s%s", sep, t->names[i]);
		if (n < 0)
			break;
		used += (size_t)n;
		sep = ", ";
	}
	return buf;
}
