// SPDX-License-Identifier: GPL-2.0
/* `plerig report FILES -o REPORT.html`: load every file, then draw them all, or nothing. */
#include "commands/commands.h"

#include <stdio.h>

#include "cli/report_options.h"
#include "compare/html_inputs.h"
#include "util/errbuf.h"
#include "util/printable.h"

int cmd_report(int argc, char **argv, const char *guest_path)
{
	struct report_options o;
	struct html_input in[REPORT_MAX_INPUTS];
	char err[ERRBUF_SIZE];
	unsigned n = 0;
	int status = EXIT_OK;

	(void)guest_path;
	switch (report_options_parse(argc, argv, &o, err, sizeof(err))) {
	case 1:
		return EXIT_OK;
	case 0:
		break;
	default:
		printable_printf(stderr, "plerig report: %s\n", err);
		return EXIT_USAGE;
	}
	for (; n < o.nr_inputs; n++)
		if (html_input_load(o.inputs[n], &in[n], err, sizeof(err))) {
			printable_printf(stderr, "plerig report: %s\n", err);
			status = EXIT_USAGE;
			goto out;
		}
	if (html_document_write(o.output, in, n, err, sizeof(err))) {
		printable_printf(stderr, "plerig report: %s\n", err);
		status = EXIT_FAILED;
	}
out:
	for (unsigned i = 0; i < n; i++)
		json_object_put(in[i].doc);
	return status;
}
