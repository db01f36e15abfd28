// SPDX-License-Identifier: GPL-2.0
/* The programs other backends and the sweep call: libvirt, QEMU, modprobe. */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include "doctor/probes.h"
#include "ple/module_reload.h"
#include "util/errbuf.h"
#include "util/spawn.h"
#include "util/strfmt.h"

#define TOOL_TIMEOUT_MS 10000

/* First line of `@prog @arg`; 0, or -errno (-ENOENT: not installed). */
static int version_of(const char *prog, const char *arg, char *line, size_t len)
{
	char out[512], err[ERRBUF_SIZE];
	char *argv[] = {(char *)prog, (char *)arg, NULL};
	int rc = spawn_capture(argv, out, sizeof(out), TOOL_TIMEOUT_MS, err, sizeof(err));
	if (rc < 0) {
		str_copy(line, len, err);
		return rc;
	}
	char *nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
	str_copy(line, len, out);
	return rc == 0 ? 0 : -EIO;
}

static void check_libvirt(struct doctor_findings *r)
{
	char line[256];
	int rc = version_of("virsh", "--version", line, sizeof(line));
	if (rc == -ENOENT) {
		doctor_add(r, "libvirt", "libvirt", DOCTOR_NO,
			   "virsh not found: the libvirt backend cannot run");
		doctor_fix(r, "apt-get install libvirt-clients libvirt-daemon-system "
			      "libvirt-daemon-driver-qemu");
		return;
	}
	if (rc) {
		doctor_add(r, "libvirt", "libvirt", DOCTOR_WARN, "virsh --version failed: %s",
			   line);
		return;
	}
	/* the embedded QEMU driver runs as this user unless qemu.conf says otherwise */
	if (!getpwnam("libvirt-qemu")) {
		doctor_add(r, "libvirt", "libvirt", DOCTOR_WARN,
			   "virsh %s, but no libvirt-qemu user (the embedded driver needs it)",
			   line);
		doctor_fix(r, "apt-get install libvirt-daemon-system");
		return;
	}
	doctor_add(r, "libvirt", "libvirt", DOCTOR_OK, "virsh %s", line);
}

static void check_qemu(struct doctor_findings *r)
{
	char line[256];
	int rc = version_of("qemu-system-x86_64", "--version", line, sizeof(line));
	if (rc == -ENOENT) {
		doctor_add(r, "qemu", "QEMU", DOCTOR_NO, "qemu-system-x86_64 not found");
		doctor_fix(r, "apt-get install qemu-system-x86");
	} else if (rc) {
		doctor_add(r, "qemu", "QEMU", DOCTOR_WARN,
			   "qemu-system-x86_64 --version failed: %s", line);
	} else {
		doctor_add(r, "qemu", "QEMU", DOCTOR_OK, "%s", line);
	}
}

/* Only a loadable module can be reloaded with new PLE values. */
static void check_modprobe(struct doctor_findings *r)
{
	const struct ple_host *h = &r->host;
	if (h->vendor == PLE_VENDOR_NONE || !h->loadable)
		return;
	char line[256];
	const char *modprobe = module_modprobe_command();
	int rc = version_of(modprobe, "--version", line, sizeof(line));
	if (rc == -ENOENT) {
		doctor_add(r, "modprobe", "modprobe", DOCTOR_NO,
			   "%s not found: read-only PLE parameters cannot be changed by reloading "
			   "%s",
			   modprobe, h->module);
		doctor_fix(r, "apt-get install kmod");
	} else {
		doctor_add(r, "modprobe", "modprobe", rc ? DOCTOR_WARN : DOCTOR_OK, "%s: %s",
			   modprobe, line);
	}
}

void doctor_probe_tools(struct doctor_findings *r)
{
	check_libvirt(r);
	check_qemu(r);
	check_modprobe(r);
}
