// SPDX-License-Identifier: GPL-2.0
/* plerig: a test rig for PAUSE-loop exiting and lock-holder preemption on KVM. */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare/compare.h"
#include "doctor/doctor.h"
#include "commands/run.h"
#include "commands/sweep.h"

#ifndef PLERIG_VERSION
#define PLERIG_VERSION "unknown"
#endif

static void usage(FILE *out)
{
	fprintf(out, "usage: plerig COMMAND [OPTIONS]\n"
		     "\n"
		     "A test rig for PAUSE-loop exiting (PLE) and lock-holder preemption on KVM:\n"
		     "boots small VMs whose vCPUs hammer one spin lock, and measures how the\n"
		     "relax instruction, the lock and the over-commit change the stalls.\n"
		     "\n"
		     "commands:\n"
		     "  run        run the experiment matrix (plerig run --help)\n"
		     "  compare    did NEW.json get worse than BASE.json? (plerig compare --help)\n"
		     "  sweep      the matrix per host PLE parameter value (plerig sweep --help)\n"
		     "  doctor     what this host offers PLE experiments, and the fixes\n"
		     "  version    print the version\n"
		     "  help       this text\n"
		     "\n"
		     "With no command-line options, `plerig run` compares PAUSE and NOP relax\n"
		     "with one vCPU per host CPU and with 2x over-commit.\n");
}

/* The guest image built next to this binary: BUILD/images/plerig-guest.elf. */
static const char *default_guest_path(void)
{
	static char path[PATH_MAX];
	const char *env = getenv("PLERIG_GUEST");
	if (env && *env)
		return env;
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return "images/plerig-guest.elf";
	self[n] = '\0';
	snprintf(path, sizeof(path), "%s/images/plerig-guest.elf", dirname(self));
	return path;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "run"))
		return runner_main(argc - 1, argv + 1, default_guest_path());
	if (!strcmp(cmd, "compare"))
		return compare_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "sweep"))
		return sweep_main(argc - 1, argv + 1, default_guest_path());
	if (!strcmp(cmd, "doctor"))
		return doctor_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("plerig %s\n", PLERIG_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "plerig: unknown command '%s' (see plerig --help)\n", cmd);
	return 2;
}
