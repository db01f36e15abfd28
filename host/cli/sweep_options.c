// SPDX-License-Identifier: GPL-2.0
#include "cli/sweep_options.h"

#include <stdio.h>
#include <string.h>

#include "cli/emulated_cli.h"
#include "cli/option_table.h"
#include "cli/option_values.h"
#include "model/connect_list.h"
#include "util/errbuf.h"
#include "util/strfmt.h"

#define SEE_HELP "see plerig sweep --help"

/* SWEEP_OPTIONS_ERROR is -1: also what an option table parser returns on error */
#define fail(err, errlen, ...) (errbuf_printf(err, errlen, __VA_ARGS__), SWEEP_OPTIONS_ERROR)

/* "ple_window=1024,4096" */
static int parse_param(const struct opt_entry *e, const char *arg, void *target, char *err,
		       size_t errlen)
{
	struct sweep_options *o = target;

	(void)e;
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		return fail(err, errlen, "--param %s: expected NAME=V1,V2,... (%s)", arg, SEE_HELP);
	size_t nlen = (size_t)(eq - arg);
	if (nlen >= PLE_NAME_LEN)
		return fail(err, errlen, "--param %s: name too long", arg);
	if (o->grid.nr_axes == PLE_MAX_PARAMS)
		return fail(err, errlen, "at most %d --param options", PLE_MAX_PARAMS);
	struct sweep_axis *a = &o->grid.axes[o->grid.nr_axes];
	memset(a, 0, sizeof(*a));
	memcpy(a->name, arg, nlen);
	if (!ple_param_owner(a->name))
		return fail(err, errlen, "--param %s: not a PLE parameter (%s)", a->name,
			    ple_params_known());
	for (unsigned i = 0; i < o->grid.nr_axes; i++)
		if (!strcmp(o->grid.axes[i].name, a->name))
			return fail(err, errlen,
				    "--param %s given twice: put all its values in one", a->name);
	const char *p = eq + 1;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char v[PLE_VALUE_LEN];
		if (len == 0 || len >= sizeof(v))
			return fail(err, errlen, "--param %s: empty or too long value", a->name);
		memcpy(v, p, len);
		v[len] = '\0';
		if (!ple_value_valid(v))
			return fail(
			    err, errlen,
			    "--param %s: \"%s\" is not a decimal number from 0 to 4294967295",
			    a->name, v);
		if (a->nr_values == SWEEP_MAX_VALUES)
			return fail(err, errlen, "--param %s: at most %d values", a->name,
				    SWEEP_MAX_VALUES);
		str_copy(a->values[a->nr_values++], PLE_VALUE_LEN, v);
		if (!comma)
			break;
		p = comma + 1;
	}
	o->grid.nr_axes++;
	o->param_args[o->nr_param_args++] = arg;
	return 0;
}

static int parse_seed(const struct opt_entry *e, const char *arg, void *target, char *err,
		      size_t errlen)
{
	struct sweep_options *o = target;

	if (opt_parse_u64("--seed", arg, e->min, e->max, &o->seed, err, errlen))
		return -1;
	o->seed_given = true;
	return 0;
}

static const struct opt_entry sweep_table[] = {
    {.name = "param",
     .metavar = "NAME=LIST",
     .kind = OPT_CUSTOM,
     .parse = parse_param,
     .help = "a host PLE parameter (listed below) and its values; ple_gap=0 (or "
	     "pause_filter_count=0) turns PAUSE interception off"},
    {.name = "rounds",
     .metavar = "N",
     OPT_UNSIGNED_FIELD(struct sweep_options, rounds, 1, 1000),
     .help = "visit every value N times, in a new shuffled order each round; per point the "
	     "mean, stddev and 95% confidence interval over the rounds, {range} (1)"},
    {.name = "seed",
     .metavar = "N",
     .kind = OPT_CUSTOM,
     .parse = parse_seed,
     .min = 0,
     .max = ~0ULL,
     .help = "seed of the order of --rounds (from the clock, printed)"},
    {.name = "json",
     .metavar = "FILE",
     OPT_PATH_FIELD(struct sweep_options, json_path),
     .help = "the curve as JSON (schema plerig-sweep 1); - for stdout"},
    {.name = "csv",
     .metavar = "FILE",
     OPT_PATH_FIELD(struct sweep_options, csv_path),
     .help = "the curve as CSV; - for stdout"},
    {.name = "report",
     .metavar = "FILE",
     OPT_PATH_FIELD(struct sweep_options, report_path),
     .help = "the curves as one self-contained HTML page (as plerig report); - for stdout"},
    {.name = "restore",
     OPT_FLAG_FIELD(struct sweep_options, restore),
     .help = "only restore the values a crashed sweep left changed"},
    {.name = "connect",
     .metavar = "emulated[:amd]",
     OPT_PATH_FIELD(struct sweep_options, connect),
     .help = "sweep on the emulated host: the whole sweep inside L1, --kernel booted under "
	     "Bochs' emulated Intel CPU with VMX and PAUSE-loop exiting, whose real kvm_intel "
	     "it reloads with each value (times in emulated seconds); emulated:amd: Bochs 3.1's "
	     "AMD CPU and kvm_amd; emulated,emulated:amd: each in turn, each sweeping the "
	     "--params its modules have (the others left out, said; none: exit 2), each file "
	     "once per host (FILE.emulated.json, FILE.emulated-amd.json), the exit status the "
	     "worst; a libvirt host sweeps with a plerig of its own"},
    EMULATED_CLI_ENTRIES(struct sweep_options),
    OPT_HELP_ENTRY,
    {.kind = OPT_END},
};

/* Each point's results stay in the sweep's memory: the user asks the sweep for JSON. */
static enum sweep_options_status check_run_options(const struct sweep_options *o, char *err,
						   size_t errlen)
{
	for (int i = 0; i < o->run_argc; i++) {
		const char *a = o->run_argv[i];
		if (!strcmp(a, "--json") || !strncmp(a, "--json=", 7))
			return fail(
			    err, errlen,
			    "the run options after -- must not have --json: the sweep keeps "
			    "each point's results itself; use plerig sweep --json FILE for "
			    "the curve");
	}
	return SWEEP_OPTIONS_OK;
}

enum sweep_options_status sweep_options_parse(int argc, char **argv, struct sweep_options *o,
					      char *err, size_t errlen)
{
	int next;

	memset(o, 0, sizeof(*o));
	const int outcome = option_table_outcome(
	    option_table_parse(sweep_table, argc, argv, o, SEE_HELP, &next, err, errlen),
	    sweep_options_usage);
	if (outcome)
		return outcome;
	if (!o->rounds)
		o->rounds = 1;
	bool dashdash = next > 0 && next <= argc && !strcmp(argv[next - 1], "--");
	if (next < argc && !dashdash)
		return fail(err, errlen, "unexpected argument '%s': run options go after -- (%s)",
			    argv[next], SEE_HELP);
	o->run_argc = argc - next;
	o->run_argv = argv + next;
	if (emulated_cli_hosts(o->connect, "sweep", err, errlen))
		return SWEEP_OPTIONS_ERROR;
	if ((o->kernel_path || o->modules_path || o->cache_dir || o->module_params) && !o->connect)
		return fail(err, errlen, "%s: only for --connect emulated",
			    o->kernel_path    ? "--kernel"
			    : o->modules_path ? "--modules"
			    : o->cache_dir    ? "--cache-dir"
					      : "--module-params");
	if (o->modules_path && !o->kernel_path)
		return fail(err, errlen,
			    "--modules: the modules of which kernel? (give --kernel bzImage with "
			    "them)");
	if (o->cache_dir && cache_dir_given(o->cache_dir, err, errlen))
		return SWEEP_OPTIONS_ERROR;
	if (o->restore && o->connect)
		return fail(err, errlen, "--restore: L1 keeps nothing between boots to restore");
	if (o->restore) {
		if (argc > 2 || o->run_argc)
			return fail(err, errlen,
				    "--restore takes nothing else: it runs no sweep (no --param, "
				    "--rounds, --seed, output or run options)");
		return SWEEP_OPTIONS_OK;
	}
	if (o->seed_given && o->rounds < 2)
		return fail(err, errlen,
			    "--seed: one round is visited in order, only --rounds N >= 2 "
			    "shuffles (add --rounds, or leave --seed out)");
	if (!o->grid.nr_axes)
		return fail(err, errlen, "give at least one --param NAME=V1,V2,... (%s)", SEE_HELP);
	if (sweep_points(&o->grid) > SWEEP_MAX_POINTS)
		return fail(err, errlen, "too many combinations of values: more than %d",
			    SWEEP_MAX_POINTS);
	return check_run_options(o, err, errlen);
}

void sweep_options_usage(FILE *out)
{
	fputs("usage: plerig sweep --param NAME=V1,V2,... [--param ...] [--rounds N]\n"
	      "                    [--json FILE] [--csv FILE] -- [RUN OPTIONS]\n"
	      "       plerig sweep --restore\n"
	      "\n"
	      "For each value of a host PLE parameter, or of kvm's halt polling\n"
	      "(halt_poll_ns...), every combination when several are given,\n"
	      "set it, run the `plerig run` matrix, and report the curve of\n"
	      "throughput, stalls and PAUSE-loop exits against the value. The original\n"
	      "values are put back at the end, on error and on Ctrl-C / SIGTERM; they\n"
	      "are saved first in $PLERIG_STATE_DIR (/var/lib/plerig), so that after a\n"
	      "crash `plerig sweep --restore` puts them back.\n"
	      "\n"
	      "A parameter is written at run time where the kernel allows it (older\n"
	      "kernels); on current kernels they are read-only and the module is\n"
	      "reloaded with the new value (rmmod, then modprobe with every PLE\n"
	      "parameter; kvm itself stays loaded, its parameters untouched), which is\n"
	      "refused while anything holds KVM (a VM, an open /dev/kvm) and impossible\n"
	      "when the module is built into the kernel. kvm's halt-polling parameters\n"
	      "are always written at run time (kvm is never reloaded), so only where\n"
	      "they are writable; on PVM, which has no PLE parameter, they are what\n"
	      "there is to sweep.\n"
	      "\n",
	      out);
	/* no defaults: every option of the sweep is off unless given */
	option_table_usage(sweep_table, NULL, out);
	fputs("  RUN OPTIONS         as for plerig run (not --json, --csv, --report, nor\n"
	      "                      --connect to another host: sweep on each host)\n"
	      "\n"
	      "Parameters:\n",
	      out);
	/* one module per line */
	for (const char *p = ple_params_known(); *p;) {
		size_t n = strcspn(p, ";");
		fprintf(out, "  %.*s\n", (int)n, p);
		p += n;
		p += strspn(p, "; ");
	}
	fputs("\n", out);
	fputs("Example:\n"
	      "  plerig sweep --param ple_window=1024,4096,16384,65536 -- --vcpus 4 "
	      "--relax pause,nop\n"
	      "\n"
	      "Environment: PLERIG_SYSFS_ROOT (/sys), PLERIG_MODPROBE (modprobe),\n"
	      "PLERIG_RMMOD (rmmod), PLERIG_STATE_DIR (/var/lib/plerig), PLERIG_PROC_ROOT\n"
	      "(/proc), "
	      "PLERIG_TRACEFS_ROOT (where tracefs is mounted, else found in /proc/mounts).\n"
	      "Exit status: 0 done; 1 a run failed, or the parameters cannot be changed\n"
	      "here; 2 bad command line; 128+N on signal N, after restoring.\n",
	      out);
}
