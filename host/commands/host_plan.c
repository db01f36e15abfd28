// SPDX-License-Identifier: GPL-2.0
/* What sweep and tune share: they change this machine's KVM parameters. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/run_option_parsers.h"
#include "cli/run_options.h"
#include "commands/commands.h"
#include "experiment/experiment.h"
#include "output/html_writer.h"
#include "output/sweep_writer.h"
#include "ple/param_session.h"
#include "util/errbuf.h"
#include "util/printable.h"

int host_plan_parse(const char *who, const char *noun, int argc, char **argv, struct run_plan *plan)
{
	char err[ERRBUF_SIZE];
	char *args[argc + 2];
	args[0] = "run";
	for (int i = 0; i < argc; i++)
		args[1 + i] = argv[i];
	args[argc + 1] = NULL;
	switch (run_options_parse(argc + 1, args, plan, err, sizeof(err))) {
	case RUN_OPTIONS_HELP:
		return -1;
	case RUN_OPTIONS_ERROR:
		printable_printf(stderr, "%s: run options: %s\n", who, err);
		return EXIT_USAGE;
	case RUN_OPTIONS_OK:
		break;
	}
	return host_plan_check(who, noun, plan);
}

int host_plan_check(const char *who, const char *noun, const struct run_plan *plan)
{
	char err[ERRBUF_SIZE];
	/* the parameters are this machine's: a run measured elsewhere would not see them */
	if (run_plan_elsewhere(plan)) {
		printable_printf(
		    stderr,
		    "%s: run options: --connect names another host: %s sets this machine's "
		    "KVM parameters, so run %s on each host\n",
		    who, noun, who);
		return EXIT_USAGE;
	}
	if (experiment_check(plan, err, sizeof(err))) {
		printable_printf(stderr, "%s: run options: %s\n", who, err);
		return EXIT_USAGE;
	}
	return 0;
}

int host_params_restore(const char *who)
{
	char msg[1024];
	int rc = ple_restore_from_state(msg, sizeof(msg));
	if (rc < 0) {
		printable_printf(stderr, "%s --restore: %s\n", who, msg);
		return EXIT_FAILED;
	}
	printable_printf(stdout, "%s --restore: %s%s\n", who, rc ? "restored " : "", msg);
	return EXIT_OK;
}

int sweep_curve_report(const char *who, const char *path, const char *name,
		       const struct sweep_curve *curve)
{
	char err[ERRBUF_SIZE];
	struct html_input in = {.name = name, .doc = sweep_curve_json(curve)};
	int rc = html_document_write(path, &in, 1, err, sizeof(err));
	if (rc)
		printable_printf(stderr, "%s: %s\n", who, err);
	json_object_put(in.doc);
	return rc;
}
