// SPDX-License-Identifier: GPL-2.0
#include "doctor/doctor.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void doctor_add(struct doctor_report *r, const char *key, const char *title,
		enum doctor_verdict verdict, const char *fmt, ...)
{
	if (r->n == DOCTOR_MAX_CHECKS)
		return;
	struct doctor_check *c = &r->checks[r->n++];
	memset(c, 0, sizeof(*c));
	snprintf(c->key, sizeof(c->key), "%s", key);
	snprintf(c->title, sizeof(c->title), "%s", title);
	c->verdict = verdict;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
}

void doctor_fix(struct doctor_report *r, const char *fmt, ...)
{
	if (!r->n)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->checks[r->n - 1].fix, sizeof(r->checks[r->n - 1].fix), fmt, ap);
	va_end(ap);
}

const char *doctor_verdict_name(enum doctor_verdict v)
{
	switch (v) {
	case DOCTOR_OK:
		return "ok";
	case DOCTOR_INFO:
		return "info";
	case DOCTOR_WARN:
		return "warn";
	case DOCTOR_NO:
		return "no";
	}
	return "?";
}

void doctor_collect(struct doctor_report *r)
{
	memset(r, 0, sizeof(*r));
	/* KVM first: the PLE checks read the module it found */
	doctor_check_kvm(r);
	doctor_check_ple(r);
	doctor_check_tracing(r);
	doctor_check_tools(r);
	doctor_check_cpus(r);
}

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

int doctor_main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	bool json = false;
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
