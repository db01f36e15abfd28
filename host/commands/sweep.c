// SPDX-License-Identifier: GPL-2.0
/* `plerig sweep`: the run matrix once per host PLE parameter value, and the curve. */
#include "commands/commands.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/sweep_options.h"
#include "commands/emulated_proxy.h"
#include "experiment/experiment.h"
#include "experiment/sweep.h"
#include "model/connect_list.h"
#include "ple/param_session.h"
#include "output/sweep_writer.h"
#include "util/errbuf.h"
#include "util/interrupt.h"
#include "util/printable.h"
#include "util/strfmt.h"

/* The run options after --, parsed once into the plan every point runs. */
static int parse_plan(const struct sweep_options *o, struct run_plan *plan)
{
	int st = host_plan_parse("plerig sweep", "the sweep", o->run_argc, o->run_argv, plan);
	if (st)
		return st;
	if (plan->report_path) {
		fprintf(stderr, "plerig sweep: run options: --report belongs before --: the "
				"sweep draws the curves (plerig sweep --report FILE)\n");
		return EXIT_USAGE;
	}
	if (plan->csv_path) {
		fprintf(stderr, "plerig sweep: run options: --csv belongs before --: the sweep "
				"writes the curve (plerig sweep --csv FILE)\n");
		return EXIT_USAGE;
	}
	return 0;
}

static int write_outputs(const struct sweep_options *o, const struct sweep_curve *curve)
{
	char err[ERRBUF_SIZE];
	int rc = 0;
	/* the table goes to stdout unless a file took stdout */
	bool stdout_taken = (o->json_path && !strcmp(o->json_path, "-")) ||
			    (o->csv_path && !strcmp(o->csv_path, "-")) ||
			    (o->report_path && !strcmp(o->report_path, "-"));
	sweep_curve_print(stdout_taken ? stderr : stdout, curve);
	if (o->json_path && sweep_curve_write_json(curve, o->json_path, err, sizeof(err))) {
		printable_printf(stderr, "plerig sweep: %s\n", err);
		rc = -1;
	}
	if (o->csv_path && sweep_curve_write_csv(curve, o->csv_path, err, sizeof(err))) {
		printable_printf(stderr, "plerig sweep: %s\n", err);
		rc = -1;
	}
	if (o->report_path &&
	    sweep_curve_report("plerig sweep", o->report_path, "this sweep", curve))
		rc = -1;
	return rc;
}

/* The name of --param NAME=V1,V2 (@arg) into @name. */
static void param_name(const char *arg, char *name, size_t len)
{
	snprintf(name, len, "%.*s", (int)strcspn(arg, "="), arg);
}

/*
 * Which --params host @i of @l sweeps: @keep[k] those its KVM modules have
 * (the others left out, said on stderr). EXIT_USAGE (said) where it has none.
 */
static int host_params(const struct sweep_options *o, const struct connect_list *l, unsigned i,
		       bool *keep)
{
	char name[PLE_NAME_LEN + 1], why[512], first[512] = "", who[256];
	unsigned kept = 0;
	proxy_who("plerig sweep", l->uris[i], l->nr, who, sizeof(who));
	for (unsigned k = 0; k < o->nr_param_args; k++) {
		param_name(o->param_args[k], name, sizeof(name));
		keep[k] = !proxy_param_misfit(l->uris[i], name, why, sizeof(why));
		kept += keep[k];
		if (!keep[k] && !first[0])
			str_copy(first, sizeof(first), why);
	}
	if (!kept) {
		printable_printf(stderr,
				 "plerig sweep: --param: %s; it has none of the parameters swept: "
				 "give one of its own beside them (each host sweeps those its "
				 "modules have), or leave %s out of --connect\n",
				 first, l->uris[i]);
		return EXIT_USAGE;
	}
	for (unsigned k = 0; k < o->nr_param_args; k++)
		if (!keep[k]) {
			param_name(o->param_args[k], name, sizeof(name));
			printable_printf(stderr, "%s: --param %s left out: %s\n", who, name,
					 proxy_param_misfit(l->uris[i], name, why, sizeof(why)));
		}
	return 0;
}

/*
 * sweep --connect emulated[,emulated:amd]: the whole sweep inside each L1
 * in turn, whose KVM module it reloads with each value; the curve and its
 * files back here, each host's its own.
 */
static int sweep_emulated(const struct sweep_options *o, const char *guest_path)
{
	static const char *head[CONNECT_MAX_HOSTS][2 * PLE_MAX_PARAMS + 8];
	static struct proxy_command c[CONNECT_MAX_HOSTS];
	const char *tail[1 + o->run_argc];
	char rounds[16], seed[32], err[ERRBUF_SIZE];
	struct connect_list l;
	bool keep[PLE_MAX_PARAMS];
	connect_list_parse(o->connect, &l, err, sizeof(err)); /* checked by the parser */
	snprintf(rounds, sizeof(rounds), "%u", o->rounds);
	snprintf(seed, sizeof(seed), "%llu", o->seed);
	tail[0] = "--";
	for (int i = 0; i < o->run_argc; i++)
		tail[i + 1] = o->run_argv[i];
	/* the same option in L1, its file under out/ */
	const struct proxy_out outs[] = {
	    {o->json_path, "sweep.json", "JSON", "--json", false, true},
	    {o->csv_path, "sweep.csv", "CSV", "--csv", false, false},
	    {o->report_path, "sweep.html", "HTML report", "--report", false, false}};
	for (unsigned h = 0; h < l.nr; h++) {
		unsigned n = 0;
		int st = host_params(o, &l, h, keep);
		if (st)
			return st;
		head[h][n++] = "sweep";
		for (unsigned i = 0; i < o->nr_param_args; i++)
			if (keep[i]) {
				head[h][n++] = "--param";
				head[h][n++] = o->param_args[i];
			}
		head[h][n++] = "--rounds";
		head[h][n++] = rounds;
		if (o->seed_given) {
			head[h][n++] = "--seed";
			head[h][n++] = seed;
		}
		c[h] = (struct proxy_command){.head = head[h],
					      .nr_head = n,
					      .outs = outs,
					      .nr_outs = 3,
					      .tail = tail,
					      .nr_tail = 1 + (unsigned)o->run_argc};
	}
	const struct emulated_options eo = {.kernel = o->kernel_path,
					    .modules = o->modules_path,
					    .module_params = o->module_params,
					    .cache_dir = o->cache_dir,
					    .guest_path = guest_path};
	return proxy_fleet("plerig sweep", &l, &eo, c);
}

int cmd_sweep(int argc, char **argv, const char *guest_path)
{
	static struct sweep_options o;
	static struct run_plan plan;
	struct sweep_curve curve;
	char err[ERRBUF_SIZE];

	switch (sweep_options_parse(argc, argv, &o, err, sizeof(err))) {
	case SWEEP_OPTIONS_HELP:
		return EXIT_OK;
	case SWEEP_OPTIONS_ERROR:
		printable_printf(stderr, "plerig sweep: %s\n", err);
		return EXIT_USAGE;
	case SWEEP_OPTIONS_OK:
		break;
	}
	if (o.restore)
		return host_params_restore("plerig sweep");
	/* its run options are L1's to check: the CPUs named are L1's */
	if (o.connect)
		return sweep_emulated(&o, guest_path);
	int st = parse_plan(&o, &plan);
	if (st)
		return st < 0 ? EXIT_OK : st;
	if (plan.guest_path)
		guest_path = plan.guest_path;
	if (check_outputs("plerig sweep", "--json", o.json_path, "--csv", o.csv_path) ||
	    check_outputs("plerig sweep", "--report", o.report_path, NULL, NULL) ||
	    check_guest("plerig sweep", plan.guest_path, guest_path))
		return EXIT_USAGE;
	/* from here on Ctrl-C only raises a flag: the originals always go back */
	if (interrupt_install()) {
		perror("plerig sweep: installing signal handlers");
		return EXIT_FAILED;
	}
	unsigned long long seed = o.seed_given ? o.seed : (unsigned long long)time(NULL);
	int status = sweep_run(&o.grid, &plan, guest_path, o.rounds, seed, &curve);
	if (status == SWEEP_REFUSED) { /* the files of an earlier sweep stay as they were */
		sweep_curve_free(&curve);
		return interrupt_requested() ? 128 + interrupt_signal() : EXIT_FAILED;
	}
	if (write_outputs(&o, &curve) && status == 0)
		status = EXIT_FAILED;
	sweep_curve_free(&curve);
	if (interrupt_requested()) {
		fprintf(stderr, "plerig sweep: interrupted\n");
		status = 128 + interrupt_signal();
	}
	return status;
}
