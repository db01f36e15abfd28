// SPDX-License-Identifier: GPL-2.0
/* `plerig doctor [--json]`: every probe, one finding and its status each; exit 1 when no usable KVM device. */
#include "commands/commands.h"

#include <stdio.h>
#include <string.h>

#include "cli/doctor_options.h"
#include "util/errbuf.h"
#include "doctor/doctor.h"
#include "util/printable.h"

int cmd_doctor(int argc, char **argv, const char *guest_path)
{
	struct doctor_options o;
	char err[ERRBUF_SIZE];
	(void)guest_path;
	switch (doctor_options_parse(argc, argv, &o, err, sizeof(err))) {
	case 1:
		return 0;
	case -1:
		printable_printf(stderr, "plerig doctor: %s\n", err);
		return 2;
	}

	static struct doctor_findings r; /* ~50 KiB: not on the stack */
	doctor_collect(&r);
	if (o.json) {
		if (doctor_print_json(stdout, &r, err, sizeof(err))) {
			printable_printf(stderr, "plerig doctor: %s\n", err);
			return 1;
		}
	} else {
		doctor_print_text(stdout, &r);
	}
	for (unsigned i = 0; i < r.n; i++)
		if (!strcmp(r.list[i].key, "kvm_device") && r.list[i].status == DOCTOR_NO)
			return 1;
	return 0;
}
