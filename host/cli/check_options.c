// SPDX-License-Identifier: GPL-2.0
#include "cli/check_options.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/metric_options.h"
#include "cli/emulated_cli.h"
#include "cli/option_table.h"
#include "experiment/check.h"
#include "model/connect_list.h"
#include "model/verdict.h"
#include "util/errbuf.h"

#define SEE_HELP "see plerig check --help"

static int parse_groups(const struct opt_entry *e, const char *list, void *target, char *err,
			size_t errlen)
{
	struct check_options *o = target;
	unsigned n = 0;
	char *save = NULL;
	(void)e;
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

static const struct real_range budget_range = {0.0, false, 86400.0};

static const struct opt_entry check_table[] = {
    {.name = "suite",
     .metavar = "FILE",
     OPT_PATH_FIELD(struct check_options, suite_path),
     .def = "suites/default.cfg next to the binary, or the installed one",
     .help = "the suite"},
    {.name = "group",
     .metavar = "LIST",
     .kind = OPT_CUSTOM,
     .parse = parse_groups,
     .def = "every scenario",
     .help = "only the scenarios in one of these groups (or so named)"},
    {.name = "list",
     OPT_FLAG_FIELD(struct check_options, list),
     .help = "print the scenarios, their groups and expectations; run none"},
    {.name = "connect",
     .metavar = "LIST",
     OPT_PATH_FIELD(struct check_options, connect_list),
     .def = "this machine, each scenario on its own backend",
     .help = "libvirt URIs (embedded: plerig's own embedded driver): the suite on each host "
	     "through libvirt, judged against that host's own baseline (keyed by its identity "
	     "as libvirt reports it); the exit status is the worst over the hosts; an "
	     "unreachable host is a failed case. Or emulated: the whole check inside "
	     "L1, the kernel --kernel booted under Bochs' emulated Intel CPU with VMX and "
	     "PAUSE-loop exiting, the real kvm_intel loaded (params = reload it there); times "
	     "in emulated seconds; exit 125 when that kernel cannot be tested. emulated:amd: "
	     "the same on Bochs 3.1's emulated AMD CPU with kvm_amd's pause filter; "
	     "emulated,emulated:amd: each in turn, each its own L1, summary and baseline, "
	     "each file written once per host (FILE.emulated.tap, FILE.emulated-amd.tap), "
	     "the exit status the worst (docs/hosts.md)"},
    EMULATED_CLI_ENTRIES(struct check_options),
    {.name = "tap",
     .metavar = "FILE",
     OPT_PATH_FIELD(struct check_options, tap_path),
     .help = "TAP version 13, one test point per case (- for stdout)"},
    {.name = "junit",
     .metavar = "FILE",
     OPT_PATH_FIELD(struct check_options, junit_path),
     .help = "JUnit XML, one testcase per scenario x expectation/metric"},
    {.name = "report",
     .metavar = "FILE",
     OPT_PATH_FIELD(struct check_options, report_path),
     .help = "every scenario's results as one HTML page of charts, as plerig report draws "
	     "them (- for stdout)"},
    {.name = "json",
     .metavar = "FILE",
     OPT_PATH_FIELD(struct check_options, json_path),
     .help = "every scenario's results as JSON, a list of {scenario, results}, each results "
	     "as plerig run --json writes them: every round, every vCPU's counts (- for "
	     "stdout)"},
    {.name = "baselines",
     .metavar = "DIR",
     OPT_PATH_FIELD(struct check_options, baselines_dir),
     .def = "$PLERIG_BASELINES",
     .help = "the baseline store; compares with this machine's baseline when it has one"},
    {.name = "record",
     OPT_FLAG_FIELD(struct check_options, record),
     .help = "store the figures as this machine's baseline (in DIR): each scenario that "
	     "completed with every run ok replaces its entries; the others keep theirs"},
    {.name = "import-baseline",
     .metavar = "FILE",
     OPT_PATH_FIELD(struct check_options, import_path),
     .help = "run nothing: store FILE, a baseline recorded elsewhere (make ple-test RECORD=1 "
	     "records one inside an emulated machine), in DIR under the key of the machine it "
	     "describes, after the validation a stored baseline gets, dated by this host's clock"},
    {.name = "aa",
     OPT_FLAG_FIELD(struct check_options, aa),
     .help = "A/A test: each scenario's odd rounds against its even rounds; must report "
	     "no regression"},
    {.name = "metric",
     .metavar = "LIST",
     OPT_METRIC_LIST_FIELD(struct check_options, metrics, nr_metrics),
     .def = CHECK_DEFAULT_METRICS,
     .help = "metrics judged where the suite names none"},
    {.name = "threshold",
     .metavar = "PCT",
     OPT_THRESHOLD_FIELD(struct check_options, threshold_pct),
     .def = "5",
     .help = "smallest change that counts, in % of the baseline mean; a CI wider than this is "
	     "too noisy to judge"},
    {.name = "budget",
     .metavar = "S",
     OPT_REAL_FIELD(struct check_options, budget_s, &budget_range),
     .def = "0: the suite's --repeat only",
     .help = "adaptive repeats: more interleaved rounds of a scenario until every CI it is "
	     "judged by is narrower than the threshold, while the check has run less than S "
	     "seconds, {range}"},
    {.name = "quiet",
     .letter = 'q',
     OPT_FLAG_FIELD(struct check_options, quiet),
     .help = "no progress on stderr"},
    OPT_HELP_ENTRY,
    {.kind = OPT_END},
};

static void usage(FILE *out)
{
	fputs("usage: plerig check [OPTIONS]\n"
	      "\n"
	      "Runs a suite of scenarios (plerig run option sets, each with the expectations\n"
	      "that hold on every correct host) through the experiment engine, and judges\n"
	      "their figures against this machine's baseline and/or against themselves.\n"
	      "A scenario whose requirement this host lacks (PLE, hardware virtualisation,\n"
	      "pv-yield, pv-unhalt, halt polling per VM) is skipped with the reason; --list\n"
	      "prints each scenario's expectations and requirements.\n"
	      "\n" VERDICT_RULE_HELP
	      "A worse figure is a regression, but for a contended variant (more than one\n"
	      "vCPU) judged against a baseline while other work took more than 5 points\n"
	      "more of its CPUs' time than when the baseline was recorded (the foreign\n"
	      "load): that one is not comparable, counted with the too noisy.\n"
	      "\n"
	      "options:\n",
	      out);
	option_table_usage(check_table, NULL, out);
	fputs("\n"
	      "Exit status: 0 every expectation held and nothing regressed; 1 a failure or a\n"
	      "regression; 2 bad usage or input (options, suite file, baseline file); 77\n"
	      "nothing could run (no usable /dev/kvm: every scenario skipped; the emulated\n"
	      "host could not start); 125 (--connect emulated) the kernel cannot be tested:\n"
	      "not a kernel, no kvm_intel, no serial console, it panics (0, 1 and 125 are\n"
	      "what git bisect run reads as good, bad and skip).\n",
	      out);
}

int check_options_parse(int argc, char **argv, struct check_options *o, char *err, size_t errlen)
{
	int next;

	memset(o, 0, sizeof(*o));
	o->threshold_pct = CHECK_DEFAULT_THRESHOLD_PCT;
	if (metric_list_parse("--metric", CHECK_DEFAULT_METRICS, o->metrics, SCENARIO_MAX_METRICS,
			      &o->nr_metrics, err, errlen))
		return -1;
	const int outcome = option_table_outcome(
	    option_table_parse(check_table, argc, argv, o, SEE_HELP, &next, err, errlen), usage);
	if (outcome)
		return outcome;
	if (next < argc)
		return errbuf_printf(err, errlen,
				     "unexpected argument '%s' (the suite is --suite FILE)",
				     argv[next]);
	if (o->list) {
		/* --list runs nothing: what only a run uses is refused, not ignored */
		static const char *const run_only[] = {"record", "aa",	 "tap",	  "junit",
						       "report", "json", "budget"};
		for (size_t i = 0; i < sizeof(run_only) / sizeof(run_only[0]); i++)
			if (option_table_given(check_table, run_only[i]))
				return errbuf_printf(err, errlen,
						     "--list runs no scenario: --%s would do "
						     "nothing with it (leave one of them out)",
						     run_only[i]);
	}
	if (o->record && !baseline_store_dir(o->baselines_dir))
		return errbuf_printf(err, errlen,
				     "--record needs a baseline store: --baselines DIR or "
				     "PLERIG_BASELINES=DIR");
	if (o->import_path) {
		if (!baseline_store_dir(o->baselines_dir))
			return errbuf_printf(
			    err, errlen,
			    "--import-baseline needs a baseline store: --baselines "
			    "DIR or PLERIG_BASELINES=DIR");
		if (o->record || o->aa || o->list || o->connect_list || o->tap_path ||
		    o->junit_path || o->report_path || o->json_path || o->groups[0] ||
		    o->suite_path)
			return errbuf_printf(err, errlen,
					     "--import-baseline runs no scenario: it takes "
					     "--baselines only");
	}
	struct connect_list hosts;
	if (connect_list_parse(o->connect_list, &hosts, err, errlen))
		return -1;
	if (o->connect_list && !hosts.nr)
		return errbuf_printf(err, errlen, "--connect: no URI given");
	const bool emulated = connect_list_emulated(&hosts) > 0;
	if (emulated && connect_list_emulated(&hosts) < hosts.nr)
		return errbuf_printf(
		    err, errlen,
		    "--connect: an emulated host runs the whole check inside its L1: list "
		    "emulated hosts alone (emulated,emulated:amd) and check the other hosts in a "
		    "check of their own");
	return emulated_cli_check(emulated, o->kernel_path, o->modules_path, o->cache_dir,
				  o->module_params, err, errlen);
}
