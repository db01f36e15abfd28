// SPDX-License-Identifier: GPL-2.0
#include "cli/check_options.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/metric_options.h"
#include "experiment/check.h"
#include "util/errbuf.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: plerig check [OPTIONS]\n"
	    "\n"
	    "Runs a suite of scenarios (plerig run option sets, each with the expectations\n"
	    "that hold on every correct host) through the experiment engine, and judges\n"
	    "their figures against this machine's baseline and/or against themselves.\n"
	    "\n"
	    "options:\n"
	    "  --suite FILE        the suite (default: suites/default.cfg next to the\n"
	    "                      binary, or the installed one)\n"
	    "  --group LIST        only the scenarios in one of these groups (or so named)\n"
	    "  --list              print the scenarios, their groups and expectations; run none\n"
	    "  --tap FILE          TAP version 13, one test point per case (- for stdout)\n"
	    "  --junit FILE        JUnit XML, one testcase per scenario x expectation/metric\n"
	    "  --baselines DIR     the baseline store (default: $PLERIG_BASELINES); compares\n"
	    "                      with this machine's baseline when it has one\n"
	    "  --record            store the figures as this machine's baseline (in DIR)\n"
	    "  --aa                A/A self-check: each scenario's odd rounds against its\n"
	    "                      even rounds; must report no regression\n"
	    "  --metric LIST       metrics judged where the suite names none (default: %s)\n"
	    "  --threshold PCT     smallest change that counts, in %% of the baseline mean;\n"
	    "                      a CI wider than this is too noisy to judge (default: %g)\n"
	    "  --budget S          adaptive repeats: more interleaved rounds of a scenario\n"
	    "                      until every CI it is judged by is narrower than the\n"
	    "                      threshold, while the check has run less than S seconds\n"
	    "                      (default 0: the suite's --repeat only)\n"
	    "  -q, --quiet         no progress on stderr\n"
	    "  -h, --help          this text\n"
	    "\n"
	    "Exit status: 0 every expectation held and nothing regressed; 1 a failure or a\n"
	    "regression; 2 bad usage or input (options, suite file, baseline file); 77\n"
	    "nothing could run (no usable /dev/kvm: every scenario skipped).\n",
	    CHECK_DEFAULT_METRICS, CHECK_DEFAULT_THRESHOLD_PCT);
}

static int parse_groups(const char *list, struct check_options *o, char *err, size_t errlen)
{
	unsigned n = 0;
	char *save = NULL;
	if (snprintf(o->group_buf, sizeof(o->group_buf), "%s", list) >= (int)sizeof(o->group_buf))
		return errbuf_printf(err, errlen, "--group: too long");
	for (char *g = strtok_r(o->group_buf, ",", &save); g; g = strtok_r(NULL, ",", &save)) {
		if (n == CHECK_MAX_GROUPS)
			return errbuf_printf(err, errlen, "--group: at most %d groups",
					     CHECK_MAX_GROUPS);
		o->groups[n++] = g;
	}
	o->groups[n] = NULL;
	if (!n)
		return errbuf_printf(err, errlen, "--group: no group named");
	return 0;
}

static int parse_budget(const char *s, double *out, char *err, size_t errlen)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !isfinite(v) || v < 0.0 || v > 86400.0)
		return errbuf_printf(err, errlen, "--budget: '%s' is not seconds from 0 to 86400",
				     s);
	*out = v;
	return 0;
}

static int file_arg(const char *opt, const char **dst, char *err, size_t errlen)
{
	if (!*optarg)
		return errbuf_printf(err, errlen, "%s: empty file name", opt);
	*dst = optarg;
	return 0;
}

enum {
	OPT_SUITE = 256,
	OPT_GROUP,
	OPT_LIST,
	OPT_TAP,
	OPT_JUNIT,
	OPT_BASELINES,
	OPT_RECORD,
	OPT_AA,
	OPT_METRIC,
	OPT_THRESHOLD,
	OPT_BUDGET,
};

static int apply(int c, char **argv, struct check_options *o, char *err, size_t errlen)
{
	switch (c) {
	case OPT_SUITE:
		return file_arg("--suite", &o->suite_path, err, errlen);
	case OPT_GROUP:
		return parse_groups(optarg, o, err, errlen);
	case OPT_LIST:
		o->list = true;
		return 0;
	case OPT_TAP:
		return file_arg("--tap", &o->tap_path, err, errlen);
	case OPT_JUNIT:
		return file_arg("--junit", &o->junit_path, err, errlen);
	case OPT_BASELINES:
		return file_arg("--baselines", &o->baselines_dir, err, errlen);
	case OPT_RECORD:
		o->record = true;
		return 0;
	case OPT_AA:
		o->aa = true;
		return 0;
	case OPT_METRIC:
		return metric_list_parse("--metric", optarg, o->metrics, SCENARIO_MAX_METRICS,
					 &o->nr_metrics, err, errlen);
	case OPT_THRESHOLD:
		return threshold_parse(optarg, &o->threshold_pct, err, errlen);
	case OPT_BUDGET:
		return parse_budget(optarg, &o->budget_s, err, errlen);
	case 'q':
		o->quiet = true;
		return 0;
	case ':':
		return errbuf_printf(err, errlen, "%s needs a value", argv[optind - 1]);
	default:
		return errbuf_printf(err, errlen, "unknown option '%s' (see --help)",
				     argv[optind - 1]);
	}
}

int check_options_parse(int argc, char **argv, struct check_options *o, char *err, size_t errlen)
{
	static const struct option long_options[] = {
	    {"suite", required_argument, NULL, OPT_SUITE},
	    {"group", required_argument, NULL, OPT_GROUP},
	    {"list", no_argument, NULL, OPT_LIST},
	    {"tap", required_argument, NULL, OPT_TAP},
	    {"junit", required_argument, NULL, OPT_JUNIT},
	    {"baselines", required_argument, NULL, OPT_BASELINES},
	    {"record", no_argument, NULL, OPT_RECORD},
	    {"aa", no_argument, NULL, OPT_AA},
	    {"metric", required_argument, NULL, OPT_METRIC},
	    {"threshold", required_argument, NULL, OPT_THRESHOLD},
	    {"budget", required_argument, NULL, OPT_BUDGET},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->threshold_pct = CHECK_DEFAULT_THRESHOLD_PCT;
	if (metric_list_parse("--metric", CHECK_DEFAULT_METRICS, o->metrics, SCENARIO_MAX_METRICS,
			      &o->nr_metrics, err, errlen))
		return -1;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":hq", long_options, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		if (apply(c, argv, o, err, errlen))
			return -1;
	}
	if (optind < argc)
		return errbuf_printf(err, errlen,
				     "unexpected argument '%s' (the suite is --suite FILE)",
				     argv[optind]);
	if (o->record && !baseline_store_dir(o->baselines_dir))
		return errbuf_printf(err, errlen,
				     "--record needs a baseline store: --baselines DIR or "
				     "PLERIG_BASELINES=DIR");
	return 0;
}
