// SPDX-License-Identifier: GPL-2.0
#include "cli/compare_options.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/metric_options.h"
#include "util/errbuf.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: plerig compare [OPTIONS] BASE.json NEW.json\n"
	    "\n"
	    "Did NEW get worse than BASE? Both are `plerig run --json` files (schema 2),\n"
	    "best with --repeat 5 or more. Variants are matched by backend, lock, relax,\n"
	    "ring, vms, vcpus, pcpus, pin, cs_cycles, think_cycles and ple; for each match and\n"
	    "metric, Welch's t-test on the per-run values of the ok runs gives the change\n"
	    "of the mean, its p-value and 95%% confidence interval. A metric is worse\n"
	    "when p < 0.05 and it moved at least the threshold in its bad direction.\n"
	    "\n"
	    "options:\n"
	    "  --threshold PCT     smallest change that counts, in %% of the BASE mean\n"
	    "                      (default: %g)\n"
	    "  --metric NAME[,NAME...]\n"
	    "                      metrics to compare (default: %s);\n"
	    "                      any of:",
	    COMPARE_DEFAULT_THRESHOLD_PCT, COMPARE_DEFAULT_METRICS);
	for (unsigned i = 0; i < nr_metrics; i++)
		fprintf(out, "%s %s", i ? (i % 4 ? "," : ",\n                     ") : "",
			metrics[i].name);
	fprintf(out, "\n"
		     "  --json FILE         the comparison as JSON (- for stdout; the table then\n"
		     "                      goes to stderr)\n"
		     "  -h, --help          this text\n"
		     "\n"
		     "Exit status: 0 nothing got worse; 1 something did, or NEW has more failed\n"
		     "runs than BASE; 2 bad input (unreadable, malformed, wrong schema, nothing\n"
		     "in common, or nothing testable: fewer than 2 ok runs on a side).\n");
}

static int parse_metrics(const char *list, struct compare_options *o, char *err, size_t errlen)
{
	return metric_list_parse("--metric", list, o->metrics,
				 sizeof(o->metrics) / sizeof(o->metrics[0]), &o->nr_metrics, err,
				 errlen);
}

enum { OPT_THRESHOLD = 256, OPT_METRIC, OPT_JSON };

int compare_options_parse(int argc, char **argv, struct compare_options *o, char *err,
			  size_t errlen)
{
	static const struct option long_options[] = {
	    {"threshold", required_argument, NULL, OPT_THRESHOLD},
	    {"metric", required_argument, NULL, OPT_METRIC},
	    {"json", required_argument, NULL, OPT_JSON},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->threshold_pct = COMPARE_DEFAULT_THRESHOLD_PCT;
	if (parse_metrics(COMPARE_DEFAULT_METRICS, o, err, errlen))
		return -1;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_THRESHOLD:
			if (threshold_parse(optarg, &o->threshold_pct, err, errlen))
				return -1;
			break;
		case OPT_METRIC:
			/* as with `plerig run` lists: the last one given wins */
			if (parse_metrics(optarg, o, err, errlen))
				return -1;
			break;
		case OPT_JSON:
			if (!*optarg)
				return errbuf_printf(err, errlen, "--json: empty file name");
			o->json_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case ':':
			return errbuf_printf(err, errlen, "%s needs a value", argv[optind - 1]);
		default:
			return errbuf_printf(err, errlen, "unknown option '%s' (see --help)",
					     argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return errbuf_printf(err, errlen,
				     "expected two results files, BASE.json NEW.json (got %d)",
				     argc - optind);
	o->base_path = argv[optind];
	o->cand_path = argv[optind + 1];
	return 0;
}
