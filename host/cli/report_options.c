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
	      "Draws `plerig run --json` results, `plerig sweep --json` curves and\n"
	      "`plerig tune --json` answers as one self-contained HTML page (inline SVG\n"
	      "and CSS: no network, no script): per variant throughput with stddev and\n"
	      "95% CI, stalled share and run-queue delay with the reference and\n"
	      "significant differences marked; wait-time distributions (histogram and\n"
	      "CDF on a log axis, p50/p99/max marked); throughput and stalls against\n"
	      "over-commit; per-vCPU throughput with Jain's fairness index and run-queue\n"
	      "delay next to stalls; the runs in time order; sweep curves against the\n"
	      "swept parameter; tune's recommendation per shape with its CIs and its\n"
	      "cost curves, the best value marked and the flat range shaded; the hosts\n"
	      "they ran on, side by side (each host's acq/s, failed runs and verdicts\n"
	      "per file) where they ran on more than one (plerig run --connect LIST).\n"
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
