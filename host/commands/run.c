// SPDX-License-Identifier: GPL-2.0
/* `plerig run`: the command line to a plan, the engine, then the tables and files. */
#include "commands/commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/run_options.h"
#include "experiment/experiment.h"
#include "output/csv_writer.h"
#include "output/hosts_table.h"
#include "output/html_writer.h"
#include "output/json_writer.h"
#include "output/ple_notes.h"
#include "output/stats_table.h"
#include "output/results_table.h"
#include "util/errbuf.h"
#include "util/interrupt.h"
#include "util/printable.h"

static int write_outputs(const struct run_plan *plan, const struct outcome *rep)
{
	char err[ERRBUF_SIZE];
	int status = 0;
	if (plan->json_path && json_results_write(plan->json_path, rep, err, sizeof(err))) {
		printable_printf(stderr, "plerig run: %s\n", err);
		status = EXIT_FAILED;
	}
	if (plan->csv_path && csv_results_write(plan->csv_path, rep, err, sizeof(err))) {
		printable_printf(stderr, "plerig run: %s\n", err);
		status = EXIT_FAILED;
	}
	if (plan->report_path) {
		struct html_input in = {.name = "this run", .doc = json_results_document(rep)};
		if (html_document_write(plan->report_path, &in, 1, err, sizeof(err))) {
			printable_printf(stderr, "plerig run: %s\n", err);
			status = EXIT_FAILED;
		}
		json_object_put(in.doc);
	}
	return status;
}

int cmd_run(int argc, char **argv, const char *guest_path)
{
	static struct run_plan plan; /* the template variant holds a 4 KiB CPU list */
	struct outcome rep;
	char err[ERRBUF_SIZE];

	switch (run_options_parse(argc, argv, &plan, err, sizeof(err))) {
	case RUN_OPTIONS_HELP:
		return EXIT_OK;
	case RUN_OPTIONS_ERROR:
		printable_printf(stderr, "plerig run: %s\n", err);
		return EXIT_USAGE;
	case RUN_OPTIONS_OK:
		break;
	}
	if (experiment_check(&plan, err, sizeof(err))) {
		printable_printf(stderr, "plerig run: %s\n", err);
		return EXIT_USAGE;
	}
	if (plan.guest_path)
		guest_path = plan.guest_path;
	if (check_outputs("plerig run", "--json", plan.json_path, "--csv", plan.csv_path) ||
	    check_outputs("plerig run", "--report", plan.report_path, NULL, NULL) ||
	    check_guest("plerig run", plan.guest_path, guest_path))
		return EXIT_USAGE;
	if (interrupt_install()) {
		perror("plerig run: installing signal handlers");
		return EXIT_FAILED;
	}
	char *command_line = command_line_join("plerig", argc, argv);
	if (!command_line) {
		fprintf(stderr, "plerig run: out of memory\n");
		return EXIT_FAILED;
	}
	/* with the JSON or the CSV on stdout, the tables go to stderr */
	FILE *tables = (plan.json_path && !strcmp(plan.json_path, "-")) ||
			       (plan.csv_path && !strcmp(plan.csv_path, "-"))
			   ? stderr
			   : stdout;
	const struct experiment_output out = {.rows = tables, .who = "plerig run"};
	int status = EXIT_FAILED;
	if (plan.connect_auto_why[0] && !plan.quiet)
		printable_printf(stderr, "plerig run: %s\n", plan.connect_auto_why);
	const int ran =
	    experiment_run(&plan, guest_path, command_line, &out, &rep, err, sizeof(err));
	if (ran) {
		printable_printf(stderr, "plerig run: %s\n", err);
		if (ran == -2)
			status = EXIT_USAGE;
		goto out;
	}
	if (!plan.quiet)		       /* the JSON keeps every reason */
		ple_notes_print(stderr, &rep); /* stdout stays the table, for scripts */
	if (plan.repeat > 1) {
		stats_table_print(tables, &rep);
		comparison_table_print(tables, &rep);
	}
	hosts_table_print(tables, &rep);
	status = write_outputs(&plan, &rep);
	if (!plan.quiet && plan.repeat == 1) {
		if (rep.nr_hosts > 1)
			results_table_host_legend(stderr);
		results_table_legend(stderr);
		results_table_clock_legend(stderr, &rep);
	}
	int s = experiment_status(&rep);
	if (rep.interrupted) {
		unsigned done = 0;
		for (unsigned i = 0; i < rep.nr_series; i++)
			done += rep.series[i].nr_runs;
		printable_printf(stderr, "plerig run: interrupted; %u of %u run(s) completed%s\n",
				 done, rep.planned_runs,
				 plan.json_path ? " and written to the JSON file" : "");
	}
	if (s)
		status = s;
out:
	if (interrupt_requested()) /* a signal always says so: 128 + N */
		status = 128 + interrupt_signal();
	outcome_free(&rep);
	free(command_line);
	return status;
}
