// SPDX-License-Identifier: GPL-2.0
/* plerig: a test rig for PAUSE-loop exiting and lock-holder preemption on KVM. */
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands/commands.h"
#include "util/data_path.h"
#include "util/printable.h"

#ifndef PLERIG_VERSION
#define PLERIG_VERSION "unknown"
#endif

static const struct command {
	const char *name;
	command_fn *fn;
	const char *summary;
} commands[] = {
    {"run", cmd_run, "run the experiment matrix (plerig run --help)"},
    {"compare", cmd_compare, "did NEW.json get worse than BASE.json? (plerig compare --help)"},
    {"sweep", cmd_sweep, "the matrix per host PLE parameter value (plerig sweep --help)"},
    {"doctor", cmd_doctor, "what this host offers PLE experiments, and the fixes"},
    {"check", cmd_check, "a suite of scenarios as a regression gate (plerig check --help)"},
    {"report", cmd_report, "results files as one HTML page of charts (plerig report --help)"},
    {"tune", cmd_tune, "what should I set for guests like mine? (plerig tune --help)"},
    /* the emulated host's plerig inside L1 (images/l1/init): not for people */
    {"l1-serve", cmd_l1_serve, NULL},
};

static void usage(FILE *out)
{
	fprintf(out, "usage: plerig COMMAND [OPTIONS]\n"
		     "\n"
		     "A test rig for PAUSE-loop exiting (PLE) and lock-holder preemption on KVM:\n"
		     "boots small VMs whose vCPUs hammer one spin lock, and measures how the\n"
		     "relax instruction, the lock and the over-commit change the stalls.\n"
		     "\n"
		     "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].summary)
			printable_printf(out, "  %-10s %s\n", commands[i].name,
					 commands[i].summary);
	printable_printf(out, "  %-10s %s\n  %-10s %s\n", "version", "print the version", "help",
			 "this text");
	fprintf(out, "\n"
		     "With no command-line options, `plerig run` compares PAUSE and NOP relax\n"
		     "with one vCPU per host CPU and with 2x over-commit.\n");
}

/*
 * The guest image (the libvirt domain template lies next to it): after
 * --guest (the run options), $PLERIG_GUEST, then the one built next to this
 * binary (BUILD/images/plerig-guest.elf), then the installed one in the
 * data directory compiled in (PREFIX/share/plerig/plerig-guest.elf).
 */
static const char *default_guest_path(void)
{
	static char path[PATH_MAX];
	const char *env = getenv("PLERIG_GUEST");
	if (env && *env)
		return env;
	data_path("images", "plerig-guest.elf", path, sizeof(path));
	return path;
}

/*
 * What a command printed is its result (run's table, check's verdicts): a
 * stdout that did not take it all (a full disk, >/dev/full, a closed
 * descriptor) fails the command, exit 1 as for a results file that could
 * not be written, instead of exit 0 with the table lost.
 */
static int stdout_written(const char *cmd, int status)
{
	/* an earlier failed write leaves the error flag, not its errno */
	int e = fflush(stdout) ? errno : 0;
	if (!e && !ferror(stdout))
		return status;
	printable_printf(stderr,
			 "plerig %s: writing to stdout failed%s%s: what it printed is lost\n", cmd,
			 e ? ": " : "", e ? strerror(e) : "");
	return status == EXIT_OK ? EXIT_FAILED : status;
}

int main(int argc, char **argv)
{
	/* GSL's default handler aborts; every statistic is checked for finiteness instead */
	gsl_set_error_handler_off();
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(cmd, commands[i].name))
			return stdout_written(
			    cmd, commands[i].fn(argc - 1, argv + 1, default_guest_path()));
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printable_printf(stdout, "plerig %s\n", PLERIG_VERSION);
		return stdout_written(cmd, EXIT_OK);
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage(stdout);
		return stdout_written(cmd, EXIT_OK);
	}
	printable_printf(stderr, "plerig: unknown command '%s' (see plerig --help)\n", cmd);
	return EXIT_USAGE;
}
