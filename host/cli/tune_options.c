// SPDX-License-Identifier: GPL-2.0
#include "cli/tune_options.h"

#include <string.h>

#include "cli/emulated_cli.h"
#include "cli/metric_options.h"
#include "cli/option_table.h"
#include "cli/option_values.h"
#include "model/connect_list.h"
#include "model/tune_space.h"
#include "util/errbuf.h"
#include "util/strfmt.h"

#define SEE_HELP "see plerig tune --help"

/* "ple_window" or "ple_window=1024..65536" */
static int parse_param(const struct opt_entry *e, const char *arg, void *target, char *err,
		       size_t errlen)
{
	struct tune_options *o = target;
	unsigned long long lo, hi;
	char lo_text[32], hi_text[32];
	(void)e;
	size_t n = strcspn(arg, "=");
	if (n == 0 || n >= sizeof(o->param))
		return errbuf_printf(err, errlen, "--param %s: expected NAME or NAME=LO..HI (%s)",
				     arg, SEE_HELP);
	memcpy(o->param, arg, n);
	o->param[n] = '\0';
	o->param_arg = arg;
	if (!tune_param_info(o->param))
		return errbuf_printf(err, errlen, "--param %s: tune searches %s", o->param,
				     tune_params_known());
	o->range_given = arg[n] == '=';
	if (!o->range_given)
		return 0;
	const char *range = arg + n + 1, *dots = strstr(range, "..");
	if (!dots || dots == range || !dots[2] || (size_t)(dots - range) >= sizeof(lo_text) ||
	    strlen(dots + 2) >= sizeof(hi_text))
		return errbuf_printf(err, errlen,
				     "--param %s: expected NAME=LO..HI, e.g. %s=256..65536", arg,
				     o->param);
	memcpy(lo_text, range, (size_t)(dots - range));
	lo_text[dots - range] = '\0';
	str_copy(hi_text, sizeof(hi_text), dots + 2);
	if (opt_parse_u64("--param LO", lo_text, 1, 4294967295ull, &lo, err, errlen) ||
	    opt_parse_u64("--param HI", hi_text, 2, 4294967295ull, &hi, err, errlen))
		return -1;
	if (lo >= hi)
		return errbuf_printf(err, errlen, "--param %s: LO must be below HI", arg);
	const struct tune_param_info *p = tune_param_info(o->param);
	if (hi > p->max)
		return errbuf_printf(err, errlen, "--param %s: %s takes at most %llu", arg,
				     o->param, (unsigned long long)p->max);
	o->lo = lo;
	o->hi = hi;
	return 0;
}

static int parse_metric(const struct opt_entry *e, const char *arg, void *target, char *err,
			size_t errlen)
{
	struct tune_options *o = target;
	if (opt_parse_metric_list(e, arg, target, err, errlen))
		return -1;
	if (!o->metrics[0]->better)
		return errbuf_printf(err, errlen,
				     "--metric %s: it has no better direction, so nothing to "
				     "optimise (acq_per_s, acq_per_cpu_s, wait_p99_ns, ...)",
				     arg);
	return 0;
}

static const struct real_range budget_range = {1.0, false, 7 * 86400.0};

static const struct opt_entry tune_table[] = {
    {.name = "param",
     .metavar = "NAME[=LO..HI]",
     .kind = OPT_CUSTOM,
     .parse = parse_param,
     .def = "ple_window on kvm_intel, pause_filter_count on kvm_amd, halt_poll_ns for "
	    "pvqspin shapes or where there is no PLE",
     .help = "the host parameter searched, and its range (values; the window's default "
	     "2^8..2^20)"},
    {.name = "budget",
     .metavar = "S",
     OPT_REAL_FIELD(struct tune_options, budget_s, &budget_range),
     .help = "seconds of measuring, {range}: the search stops before a visit that would not "
	     "fit"},
    {.name = "max-visits",
     .metavar = "N",
     OPT_UNSIGNED_FIELD(struct tune_options, max_visits, 1, 100000),
     .def = "no limit",
     .help = "stop after N visits (one run of every shape at one value), {range}: a budget "
	     "that does not depend on the machine's speed"},
    {.name = "tolerance",
     .metavar = "PCT",
     OPT_THRESHOLD_FIELD(struct tune_options, tolerance_pct),
     .help = "as good as the best: within PCT %; the flat range, and a CI wider than it is "
	     "too noisy"},
    {.name = "metric",
     .metavar = "NAME",
     .kind = OPT_CUSTOM,
     .parse = parse_metric,
     .off = offsetof(struct tune_options, metrics),
     .nr_off = offsetof(struct tune_options, nr_metrics),
     .max_items = 1,
     .def = "acq_per_s",
     .help = "the objective, a metric with a better direction"},
    {.name = "no-ple-off",
     OPT_FLAG_FIELD(struct tune_options, no_ple_off),
     .help = "do not measure per-VM PAUSE exits off against the best window"},
    {.name = "suite",
     .metavar = "FILE",
     OPT_PATH_FIELD(struct tune_options, suite_path),
     .help = "the shapes from a suite file's section (--scenario) instead of run options"},
    {.name = "scenario",
     .metavar = "NAME",
     OPT_PATH_FIELD(struct tune_options, scenario),
     .def = "the suite's only one",
     .help = "the section of --suite"},
    {.name = "seed",
     .metavar = "N",
     OPT_U64_FIELD(struct tune_options, seed, 0, ~0ULL),
     .help = "of the order of the visits: the same seed, the same search on a "
	     "deterministic host"},
    {.name = "json",
     .metavar = "FILE",
     OPT_PATH_FIELD(struct tune_options, json_path),
     .help = "the answer and every visit as JSON (schema plerig-tune 1); - for stdout"},
    {.name = "report",
     .metavar = "FILE",
     OPT_PATH_FIELD(struct tune_options, report_path),
     .help = "one HTML page: the recommendation and its cost curves (the best marked, the "
	     "flat range shaded), then every visit as plerig sweep --report draws it; - for "
	     "stdout"},
    {.name = "restore",
     OPT_FLAG_FIELD(struct tune_options, restore),
     .help = "only restore the values a killed tune or sweep left changed (as plerig sweep "
	     "--restore)"},
    {.name = "quiet",
     .letter = 'q',
     OPT_FLAG_FIELD(struct tune_options, quiet),
     .help = "no progress on stderr"},
    {.name = "connect",
     .metavar = "emulated[:amd]",
     OPT_PATH_FIELD(struct tune_options, connect),
     .help = "tune on the emulated host: the whole tune inside L1, --kernel booted under "
	     "Bochs' emulated Intel CPU with VMX and PAUSE-loop exiting, whose real kvm_intel "
	     "it reloads with each value; its times (--budget, the seconds) are emulated "
	     "seconds, and its answer the same on every run; emulated:amd: Bochs 3.1's AMD CPU "
	     "and kvm_amd; emulated,emulated:amd: each in turn, each file once per host "
	     "(FILE.emulated.json, FILE.emulated-amd.json), the exit status the worst; --param "
	     "must then be one every host's modules have (without it each tunes its own window)"},
    EMULATED_CLI_ENTRIES(struct tune_options),
    OPT_HELP_ENTRY,
    {.kind = OPT_END},
};

static void defaults(struct tune_options *o)
{
	memset(o, 0, sizeof(*o));
	o->budget_s = 600.0;
	o->tolerance_pct = 5.0;
	o->seed = 1;
	o->metrics[0] = metric_by_name("acq_per_s");
	o->nr_metrics = 1;
}

enum tune_options_status tune_options_parse(int argc, char **argv, struct tune_options *o,
					    char *err, size_t errlen)
{
	int next;
	defaults(o);
	const int outcome = option_table_outcome(
	    option_table_parse(tune_table, argc, argv, o, SEE_HELP, &next, err, errlen),
	    tune_options_usage);
	if (outcome)
		return outcome;
	bool dashdash = next > 0 && next <= argc && !strcmp(argv[next - 1], "--");
	if (next < argc && !dashdash)
		return errbuf_printf(
		    err, errlen,
		    "unexpected argument '%s': the shapes' run options go after -- "
		    "(%s)",
		    argv[next], SEE_HELP);
	o->run_argc = argc - next;
	o->run_argv = argv + next;
	if (emulated_cli_hosts(o->connect, "tune", err, errlen))
		return TUNE_OPTIONS_ERROR;
	if (emulated_cli_check(o->connect != NULL, o->kernel_path, o->modules_path, o->cache_dir,
			       o->module_params, err, errlen))
		return TUNE_OPTIONS_ERROR;
	if (o->restore) {
		if (o->connect)
			return errbuf_printf(
			    err, errlen, "--restore: L1 keeps nothing between boots to restore");
		if (argc > 2 || o->run_argc)
			return errbuf_printf(err, errlen, "--restore takes nothing else");
		return TUNE_OPTIONS_OK;
	}
	if (o->scenario && !o->suite_path)
		return errbuf_printf(err, errlen, "--scenario names a section of --suite FILE");
	if (o->suite_path && o->run_argc)
		return errbuf_printf(err, errlen,
				     "the shapes come from --suite or from the run options after "
				     "--, not both");
	for (int i = 0; i < o->run_argc; i++) {
		static const char *const theirs[] = {"--json", "--csv", "--report"};
		for (size_t j = 0; j < sizeof(theirs) / sizeof(theirs[0]); j++) {
			size_t n = strlen(theirs[j]);
			if (!strncmp(o->run_argv[i], theirs[j], n) &&
			    (!o->run_argv[i][n] || o->run_argv[i][n] == '='))
				return errbuf_printf(
				    err, errlen,
				    "the run options after -- must not have %s: "
				    "tune writes its own (plerig tune --json FILE, "
				    "--report FILE)",
				    theirs[j]);
		}
	}
	return TUNE_OPTIONS_OK;
}

void tune_options_usage(FILE *out)
{
	struct tune_options d;
	defaults(&d);
	fputs("usage: plerig tune [OPTIONS] [-- RUN OPTIONS]\n"
	      "       plerig tune --suite FILE [--scenario NAME] [OPTIONS]\n"
	      "       plerig tune --connect emulated[,emulated:amd] [--kernel FILE] [OPTIONS]\n"
	      "                   [-- RUN OPTIONS]\n"
	      "       plerig tune --restore\n"
	      "\n"
	      "What should I set for guests like mine? The guests are the run options after\n"
	      "-- (every variant of the matrix is a shape: lock, relax, vCPUs per host CPU,\n"
	      "pinned or not, ring; several --vcpus for several over-commit levels) or a\n"
	      "suite section. tune searches one host parameter coarse to fine on a log2\n"
	      "scale, every round of visits in a new shuffled order, within --budget, and\n"
	      "prints per shape the best value, its gain over the host's current value and\n"
	      "over the kernel default with a 95 % CI (claimed only where the CI excludes 0),\n"
	      "the range within --tolerance of the best, the cost curve, per-VM PLE off\n"
	      "against the best window, one value for the whole mix, how to apply it, and\n"
	      "where it came from. Every parameter is restored on every path, as plerig\n"
	      "sweep does (the same lock and state file: after a kill -9, plerig tune\n"
	      "--restore).\n"
	      "\n",
	      out);
	option_table_usage(tune_table, &d, out);
	fputs("  RUN OPTIONS         as for plerig run (not --json, --csv, --report; not --ple:\n"
	      "                      tune measures PLE off itself; --repeat: runs per visit)\n"
	      "                      (--relax pause when none are given)\n"
	      "\n"
	      "Parameters:\n  ",
	      out);
	fputs(tune_params_known(), out);
	fputs("\n\n"
	      "Example:\n"
	      "  plerig tune --budget 600 --json tune.json -- --vcpus 2,4 --pcpus 0,1 "
	      "--lock ticket --relax pause --ring kernel\n"
	      "\n"
	      "Environment: as plerig sweep (PLERIG_SYSFS_ROOT, PLERIG_MODPROBE, PLERIG_RMMOD,\n"
	      "PLERIG_STATE_DIR, PLERIG_PROC_ROOT, PLERIG_TRACEFS_ROOT).\n"
	      "Exit status: 0 an answer; 1 nothing resolvable in the budget, a run failed, or\n"
	      "the parameter cannot be changed here; 2 bad command line; 128+N on signal N,\n"
	      "after restoring.\n",
	      out);
}
