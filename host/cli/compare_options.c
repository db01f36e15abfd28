// SPDX-License-Identifier: GPL-2.0
#include "cli/compare_options.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/metric_options.h"
#include "cli/option_table.h"
#include "model/verdict.h"
#include "util/errbuf.h"

#define SEE_HELP "see plerig compare --help"

static const struct opt_entry compare_table[] = {
    {.name = "threshold",
     .metavar = "PCT",
     OPT_THRESHOLD_FIELD(struct compare_options, threshold_pct),
     .def = VERDICT_DEFAULT_THRESHOLD_TEXT,
     .help = "smallest change that counts, in % of the BASE mean"},
    {.name = "metric",
     .metavar = "LIST",
     OPT_METRIC_LIST_FIELD(struct compare_options, metrics, nr_metrics),
     .def = COMPARE_DEFAULT_METRICS,
     .help = "metrics to compare, any of those listed below"},
    {.name = "any-host",
     OPT_FLAG_FIELD(struct compare_options, any_host),
     .help = "where a file ran on several hosts (--connect LIST): match a variant of one host "
	     "with the same variant of another (by default only variants of the same host, by "
	     "its label, are compared)"},
    {.name = "json",
     .metavar = "FILE",
     OPT_PATH_FIELD(struct compare_options, json_path),
     .help = "the comparison as JSON (- for stdout; the table then goes to stderr)"},
    OPT_HELP_ENTRY,
    {.kind = OPT_END},
};

static void usage(FILE *out)
{
	fputs("usage: plerig compare [OPTIONS] BASE.json NEW.json\n"
	      "\n"
	      "Did NEW get worse than BASE? Both are `plerig run --json` files (schema 2),\n"
	      "best with --repeat 5 or more. Variants are matched by backend, lock, relax,\n"
	      "ring, vms, vcpus, pcpus, pin, cs_cycles, think_cycles, ple and halt_poll_ns,\n"
	      "and where a file ran on several hosts, by host as well;\n"
	      "for each match and metric, Welch's t-test on the per-run values of the ok\n"
	      "runs gives the change of the mean, its p-value and 95% confidence interval.\n"
	      "\n" VERDICT_RULE_HELP "\n"
	      "options:\n",
	      out);
	option_table_usage(compare_table, NULL, out);
	fputs("\nMetrics:", out);
	/* as many to a line as fit in 80 columns, under the first */
	size_t col = strlen("Metrics:");
	for (unsigned i = 0; i < nr_metrics; i++) {
		const size_t len = strlen(metrics[i].name) + 2;
		const bool wrap = i && col + len > 79;
		fprintf(out, "%s %s", i ? (wrap ? ",\n        " : ",") : "", metrics[i].name);
		col = (wrap ? 8 : col + (i ? 1 : 0)) + len - 1;
	}
	fputs("\n"
	      "\n"
	      "Exit status: 0 nothing got worse; 1 something did, or NEW has more failed\n"
	      "runs than BASE (not where the files ran on different hardware: KVM modules\n"
	      "kvm_intel and kvm_amd, whose verdicts say how they differ); 2 bad input\n"
	      "(unreadable, malformed, wrong schema, nothing in common, or nothing\n"
	      "testable: fewer than 2 ok runs on a side).\n",
	      out);
}

int compare_options_parse(int argc, char **argv, struct compare_options *o, char *err,
			  size_t errlen)
{
	int next;

	memset(o, 0, sizeof(*o));
	o->threshold_pct = COMPARE_DEFAULT_THRESHOLD_PCT;
	if (metric_list_parse("--metric", COMPARE_DEFAULT_METRICS, o->metrics,
			      sizeof(o->metrics) / sizeof(o->metrics[0]), &o->nr_metrics, err,
			      errlen))
		return -1;
	const int outcome = option_table_outcome(
	    option_table_parse_anywhere(compare_table, argc, argv, o, SEE_HELP, &next, err, errlen),
	    usage);
	if (outcome)
		return outcome;
	if (argc - next != 2)
		return errbuf_printf(err, errlen,
				     "expected two results files, BASE.json NEW.json (got %d)",
				     argc - next);
	o->base_path = argv[next];
	o->cand_path = argv[next + 1];
	return 0;
}
