// SPDX-License-Identifier: GPL-2.0
/*
 * `plerig doctor [--json]`: every probe, one finding and its status each;
 * exit 1 when no usable KVM device. With --connect emulated, the same
 * doctor inside L1 (commands/emulated_proxy.h), its output and status.
 */
#include "commands/commands.h"

#include <stdio.h>
#include <string.h>

#include "cli/doctor_options.h"
#include "commands/emulated_proxy.h"
#include "model/connect_list.h"
#include "util/errbuf.h"
#include "doctor/doctor.h"
#include "util/printable.h"

int cmd_doctor(int argc, char **argv, const char *guest_path)
{
	struct doctor_options o;
	char err[ERRBUF_SIZE];
	switch (doctor_options_parse(argc, argv, &o, err, sizeof(err))) {
	case 1:
		return 0;
	case -1:
		printable_printf(stderr, "plerig doctor: %s\n", err);
		return 2;
	}

	if (o.connect) {
		const char *head[] = {"doctor", "--json"};
		const struct emulated_options eo = {.kernel = o.kernel_path,
						    .vendor = connect_emulated_vendor(o.connect),
						    .modules = o.modules_path,
						    .module_params = o.module_params,
						    .cache_dir = o.cache_dir,
						    .guest_path = guest_path};
		const struct proxy_command c = {.head = head, .nr_head = o.json ? 2 : 1};
		return proxy_command("plerig doctor", &eo, &c);
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
