// SPDX-License-Identifier: GPL-2.0
#include "backends/libvirt/lv_caps_kvm.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Does the host CPU (<host><cpu>...</cpu>) of @caps list @flag? */
static bool host_cpu_has(const char *cpu, const char *end, const char *flag)
{
	char tag[64];
	snprintf(tag, sizeof(tag), "<feature name='%s'/>", flag);
	const char *f = strstr(cpu, tag);
	return f && f < end;
}

int lv_caps_kvm_module(const char *caps, char *module, size_t module_len, char *how, size_t how_len)
{
	static const char no_name[] = "libvirt names no module";
	const char *host = strstr(caps, "<host>");
	const char *cpu = host ? strstr(host, "<cpu>") : NULL;
	const char *end = cpu ? strstr(cpu, "</cpu>") : NULL;
	const bool kvm = strstr(caps, "<domain type='kvm'") != NULL;
	if (!kvm && strstr(caps, "<domain type=")) {
		/* whatever the CPU: libvirt would start no KVM domain there */
		snprintf(module, module_len, "none");
		snprintf(how, how_len, "inferred: libvirt offers no KVM domains there, only TCG");
		return 0;
	}
	if (!end || !kvm)
		return -1;
	static const struct {
		const char *flag, *module;
	} hw_virt[] = {{"vmx", "kvm_intel"}, {"svm", "kvm_amd"}};
	for (size_t i = 0; i < sizeof(hw_virt) / sizeof(hw_virt[0]); i++)
		if (host_cpu_has(cpu, end, hw_virt[i].flag)) {
			snprintf(module, module_len, "%s", hw_virt[i].module);
			snprintf(how, how_len, "inferred from the host CPU's %s flag; %s",
				 hw_virt[i].flag, no_name);
			return 0;
		}
	snprintf(module, module_len, "kvm_pvm");
	snprintf(how, how_len, "inferred: KVM domains on a host CPU with neither vmx nor svm; %s",
		 no_name);
	return 0;
}
