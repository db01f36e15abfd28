// SPDX-License-Identifier: GPL-2.0
#include "cli/doctor_options.h"

#include <stdio.h>
#include <string.h>

#include "cli/emulated_cli.h"
#include "cli/option_table.h"
#include "model/connect_list.h"
#include "util/errbuf.h"

#define SEE_HELP "see plerig doctor --help"

static const struct opt_entry doctor_table[] = {
    {.name = "json",
     OPT_FLAG_FIELD(struct doctor_options, json),
     .help = "the same as a JSON document on stdout"},
    {.name = "connect",
     .metavar = "emulated[:amd]",
     OPT_PATH_FIELD(struct doctor_options, connect),
     .help = "probe the emulated host instead: the same doctor inside L1 (--kernel booted "
	     "under Bochs' emulated CPU with the real kvm_intel, or kvm_amd with :amd), its "
	     "findings those of L1"},
    EMULATED_CLI_ENTRIES(struct doctor_options),
    OPT_HELP_ENTRY,
    {.kind = OPT_END},
};

static void usage(FILE *out)
{
	fputs("usage: plerig doctor [--json]\n"
	      "       plerig doctor --connect emulated[:amd] [--kernel FILE] [--json]\n"
	      "\n"
	      "Probes what PLE experiments need on this host: the KVM module and\n"
	      "whether it intercepts PAUSE, the PLE / pause-filter parameters (value,\n"
	      "writable or reload needed), KVM capabilities, tracefs and perf\n"
	      "permissions (and whether kvm:kvm_exit really fires), libvirt, QEMU,\n"
	      "CPUs and SMT siblings. One finding per line, its status first (ok,\n"
	      "info, warn, no), with the fix where something is missing.\n"
	      "\n"
	      "options:\n",
	      out);
	option_table_usage(doctor_table, NULL, out);
	fputs("\n"
	      "Exit status: 0 KVM is usable here; 1 no usable KVM device (the routes\n"
	      "that need none are listed: the emulated host, the native and TCG\n"
	      "backends); 2 bad command line. With --connect emulated, L1's doctor's\n"
	      "status; 125 L1's kernel cannot be tested, 77 the emulated host could\n"
	      "not start.\n",
	      out);
}

int doctor_options_parse(int argc, char **argv, struct doctor_options *o, char *err, size_t errlen)
{
	int next;

	memset(o, 0, sizeof(*o));
	const int outcome = option_table_outcome(
	    option_table_parse(doctor_table, argc, argv, o, SEE_HELP, &next, err, errlen), usage);
	if (outcome)
		return outcome;
	if (next < argc)
		return errbuf_printf(err, errlen,
				     "unexpected argument '%s' (plerig doctor takes no operand)",
				     argv[next]);
	if (o->connect && !connect_is_emulated(o->connect))
		return errbuf_printf(err, errlen,
				     "--connect %s: doctor probes this host, or the emulated one "
				     "(run plerig doctor on that host)",
				     o->connect);
	if (emulated_cli_check(o->connect != NULL, o->kernel_path, o->modules_path, o->cache_dir,
			       o->module_params, err, errlen))
		return -1;
	return 0;
}
