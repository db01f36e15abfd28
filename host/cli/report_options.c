// SPDX-License-Identifier: GPL-2.0
#include "cli/report_options.h"

#include <stdio.h>
#include <string.h>

#include "cli/option_table.h"
#include "util/errbuf.h"

#define SEE_HELP "see plerig report --help"

static const struct opt_entry report_table[] = {
    {.name = "output",
     .letter = 'o',
     .metavar = "FILE",
     OPT_PATH_FIELD(struct report_options, output),
     .help = "the HTML file, written whole or not at all (- for stdout)"},
    OPT_HELP_ENTRY,
    {.kind = OPT_END},
};

static void usage(FILE *out)
{
	fputs("usage: plerig report RESULTS.json [MORE.json ...] -o REPORT.html\n"
	      "\n"
	      "Draws `plerig run --json` results and `plerig sweep --json` curves as one\n"
	      "self-contained HTML page (inline SVG and CSS: no network, no script): per\n"
	      "variant throughput with stddev and 95% CI, stalled share and run-queue delay\n"
	      "with the baseline and significant differences marked; wait-time\n"
	      "distributions (histogram and CDF on a log axis, p50/p99/max marked);\n"
	      "throughput and stalls against over-commit; per-vCPU throughput with Jain's\n"
	      "fairness index and run-queue delay next to stalls; the runs in time order;\n"
	      "sweep curves against the swept parameter; the hosts they ran on, side\n"
	      "by side (each host's acq/s, failed runs and verdicts per file) where\n"
	      "they ran on more than one (plerig run --connect LIST).\n"
	      "\n"
	      "options:\n",
	      out);
	option_table_usage(report_table, NULL, out);
	fputs("\n"
	      "`plerig run --report FILE` and `plerig sweep --report FILE` write the same\n"
	      "page directly.\n"
	      "\n"
	      "Exit status: 0 written; 1 the file could not be written; 2 bad command line,\n"
	      "or an input that is unreadable, truncated or not plerig's (one line says\n"
	      "which file and where).\n",
	      out);
}

int report_options_parse(int argc, char **argv, struct report_options *o, char *err, size_t errlen)
{
	int next;

	memset(o, 0, sizeof(*o));
	const int outcome = option_table_outcome(
	    option_table_parse_anywhere(report_table, argc, argv, o, SEE_HELP, &next, err, errlen),
	    usage);
	if (outcome)
		return outcome;
	for (; next < argc; next++) {
		if (o->nr_inputs == REPORT_MAX_INPUTS)
			return errbuf_printf(err, errlen, "more than %d input files",
					     REPORT_MAX_INPUTS);
		o->inputs[o->nr_inputs++] = argv[next];
	}
	if (!o->nr_inputs)
		return errbuf_printf(
		    err, errlen, "no input: plerig report RESULTS.json [MORE.json ...] -o FILE");
	if (!o->output)
		return errbuf_printf(err, errlen, "no output: give -o REPORT.html");
	return 0;
}
