// SPDX-License-Identifier: GPL-2.0
/* `plerig doctor [--json]`: every check, one verdict each; exit 1 when KVM is unusable. */
#include "commands/commands.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "doctor/doctor.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: plerig doctor [--json]\n"
		     "\n"
		     "Checks what PLE experiments need on this host: the KVM module and\n"
		     "whether it intercepts PAUSE, the PLE / pause-filter parameters (value,\n"
		     "writable or reload needed), KVM capabilities, tracefs and perf\n"
		     "permissions (and whether kvm:kvm_exit really fires), libvirt, QEMU,\n"
		     "CPUs and SMT siblings. One verdict per line (ok, info, warn, no), with\n"
		     "the fix where something is missing.\n"
		     "\n"
		     "  --json   the same as a JSON document on stdout\n"
		     "\n"
		     "Exit status: 0 the host can run plerig; 1 it cannot (no usable KVM);\n"
		     "2 bad command line.\n");
}

int cmd_doctor(int argc, char **argv, const char *guest_path)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	bool json = false;
	(void)guest_path;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "plerig doctor: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}

	static struct doctor_report r; /* ~50 KiB: not on the stack */
	doctor_collect(&r);
	if (json) {
		char err[256];
		if (doctor_print_json(stdout, &r, err, sizeof(err))) {
			fprintf(stderr, "plerig doctor: %s\n", err);
			return 1;
		}
	} else {
		doctor_print_text(stdout, &r);
	}
	for (unsigned i = 0; i < r.n; i++)
		if (!strcmp(r.checks[i].key, "kvm_device") && r.checks[i].verdict == DOCTOR_NO)
			return 1;
	return 0;
}
