// SPDX-License-Identifier: GPL-2.0
#include "backends/libvirt/lv_host_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/libvirt/connection.h"
#include "backends/libvirt/lv_caps_kvm.h"
#include "util/errbuf.h"
#include "util/printable.h"

int lv_xml_text(const char *xml, const char *after, const char *tag, char *out, size_t len)
{
	char open[64], close[64];
	const char *p = after ? strstr(xml, after) : xml;
	snprintf(open, sizeof(open), "<%s>", tag);
	snprintf(close, sizeof(close), "</%s>", tag);
	const char *start = p ? strstr(p, open) : NULL;
	const char *end = start ? strstr(start, close) : NULL;
	if (!end)
		return -1;
	start += strlen(open);
	snprintf(out, len, "%.*s", (int)(end - start), start);
	return 0;
}

/* "Intel(R) Xeon(R) ...": the processor's version in the host's SMBIOS, as libvirt reads it. */
static int sysinfo_cpu_model(virConnectPtr conn, char *out, size_t len)
{
	char *xml = virConnectGetSysinfo(conn, 0);
	int rc = -1;
	const char *proc = xml ? strstr(xml, "<processor>") : NULL;
	const char *v = proc ? strstr(proc, "<entry name='version'>") : NULL;
	if (v) {
		v += strlen("<entry name='version'>");
		snprintf(out, len, "%.*s", (int)strcspn(v, "<"), v);
		rc = out[0] ? 0 : -1;
	}
	free(xml);
	return rc;
}

static int caps_cpu_model(const char *caps, char *out, size_t len)
{
	char vendor[64] = "", model[96] = "";
	if (!caps || lv_xml_text(caps, "<host>", "model", model, sizeof(model)))
		return -1;
	lv_xml_text(caps, "<host>", "vendor", vendor, sizeof(vendor));
	snprintf(out, len, "%s%s%s (libvirt's CPU model)", vendor, vendor[0] ? " " : "", model);
	return 0;
}

/* libvirt names no module: the capabilities' host CPU and guests tell which, or "unknown". */
static void caps_kvm_module(const char *caps, struct host_info *h)
{
	if (!caps || lv_caps_kvm_module(caps, h->kvm_module, sizeof(h->kvm_module),
					h->kvm_module_source, sizeof(h->kvm_module_source))) {
		snprintf(h->kvm_module, sizeof(h->kvm_module), "unknown");
		h->kvm_module_source[0] = '\0';
	}
}

static void version_text(unsigned long v, char *out, size_t len)
{
	snprintf(out, len, "%lu.%lu.%lu", v / 1000000, v / 1000 % 1000, v % 1000);
}

/* @s (@len bytes) by the printable rule, in place. */
static void make_printable(char *s, size_t len)
{
	char *copy = strdup(s);
	if (copy)
		printable_copy(s, len, copy);
	else
		s[0] = '\0'; /* out of memory: nothing, rather than the bytes unchecked */
	free(copy);
}

int lv_host_info(virConnectPtr conn, const char *shown, struct host_info *h, char *err,
		 size_t errlen)
{
	virNodeInfo node;
	unsigned long qemu = 0, lib = 0;
	char *name = virConnectGetHostname(conn);
	memset(h, 0, sizeof(*h));
	if (!name || virNodeGetInfo(conn, &node) < 0) {
		free(name);
		return errbuf_printf(err, errlen, "%s: the host's identity: %s", shown,
				     lv_last_error());
	}
	/* the other host's words: shown to people, and keyed on */
	printable_copy(h->name, sizeof(h->name), name);
	free(name);
	h->cpus = node.cpus;
	h->cpus_online = node.cpus;
	h->smt = node.threads > 1;
	char *caps = virConnectGetCapabilities(conn);
	if (sysinfo_cpu_model(conn, h->cpu_model, sizeof(h->cpu_model)) &&
	    caps_cpu_model(caps, h->cpu_model, sizeof(h->cpu_model)))
		snprintf(h->cpu_model, sizeof(h->cpu_model), "%s", node.model);
	caps_kvm_module(caps, h);
	free(caps);
	make_printable(h->cpu_model, sizeof(h->cpu_model));
	make_printable(h->kvm_module, sizeof(h->kvm_module));
	snprintf(h->kernel, sizeof(h->kernel), "unknown");
	snprintf(h->unknown_why, sizeof(h->unknown_why),
		 "libvirt does not report the kernel%s or the PLE parameters of the host it runs "
		 "on",
		 h->kvm_module_source[0] ? "" : ", the KVM module");
	snprintf(h->connection, sizeof(h->connection), "%s", shown);
	char qv[32] = "?", lv[32] = "?";
	if (virConnectGetVersion(conn, &qemu) == 0)
		version_text(qemu, qv, sizeof(qv));
	if (virConnectGetLibVersion(conn, &lib) == 0)
		version_text(lib, lv, sizeof(lv));
	snprintf(h->hypervisor, sizeof(h->hypervisor), "QEMU %s, libvirt %s", qv, lv);
	return 0;
}
