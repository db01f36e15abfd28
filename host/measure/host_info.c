// SPDX-License-Identifier: GPL-2.0
#include "measure/host_info.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "ple/host_params.h"
#include "util/text_file.h"

static void read_cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 2;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

const char *host_cpu_virt_flag(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	const char *found = NULL;
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *save = NULL;
		if (strncmp(line, "flags", 5) || !colon)
			continue;
		for (char *t = strtok_r(colon + 1, " \t\n", &save); t && !found;
		     t = strtok_r(NULL, " \t\n", &save))
			found = !strcmp(t, "vmx") ? "vmx" : !strcmp(t, "svm") ? "svm" : NULL;
		break;
	}
	fclose(f);
	return found;
}

/*
 * The PLE parameters as the host has them now, of the module loaded in the
 * sysfs tree that plerig sweep and check's params = write to (a fake one
 * under PLERIG_SYSFS_ROOT, whatever KVM module this machine has).
 */
static void describe_ple_params(char *buf, size_t len)
{
	struct ple_host h;
	size_t used = 0;
	buf[0] = '\0';
	ple_host_read_params(&h, ple_sysfs_root(), ple_loaded_module(ple_sysfs_root()));
	for (unsigned i = 0; i < h.nr_params; i++) {
		int n = snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "",
				 h.params[i].name, h.params[i].value);
		if (n > 0 && (size_t)n < len - used)
			used += (size_t)n;
	}
}

void host_info_collect(struct host_info *h, const char *kvm_module)
{
	struct utsname u;
	cpu_set_t set;
	memset(h, 0, sizeof(*h));
	if (gethostname(h->name, sizeof(h->name)))
		snprintf(h->name, sizeof(h->name), "unknown");
	snprintf(h->kernel, sizeof(h->kernel), "%s", uname(&u) == 0 ? u.release : "unknown");
	snprintf(h->kvm_module, sizeof(h->kvm_module), "%s", kvm_module ? kvm_module : "none");
	read_cpu_model(h->cpu_model, sizeof(h->cpu_model));
	CPU_ZERO(&set);
	h->cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? (unsigned)CPU_COUNT(&set) : 0;
	h->cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
	char smt[16];
	h->smt = text_file_read("/sys/devices/system/cpu/smt/active", smt, sizeof(smt)) > 0
		     ? (smt[0] == '1')
		     : -1;
	describe_ple_params(h->ple_params, sizeof(h->ple_params));
	/* plerig l1-serve sets it for what runs in L1: there a second is an emulated one */
	const char *clock = getenv("PLERIG_CLOCK");
	if (clock)
		snprintf(h->clock, sizeof(h->clock), "%s", clock);
	/* and, once it reloaded L1's modules with --module-params, what they took */
	const char *given = getenv("PLERIG_MODULE_PARAMS");
	if (given)
		snprintf(h->module_params, sizeof(h->module_params), "%s", given);
}

void host_kvm_module_text(const struct host_info *h, char *buf, size_t len)
{
	if (h->kvm_module_source[0])
		snprintf(buf, len, "%s (%s)", h->kvm_module, h->kvm_module_source);
	else
		snprintf(buf, len, "%s", h->kvm_module);
}
