// SPDX-License-Identifier: GPL-2.0
/* `plerig tune`: what should I set for guests like mine? */
#include "commands/commands.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/suite_file.h"
#include "cli/tune_options.h"
#include "commands/emulated_proxy.h"
#include "model/connect_list.h"
#include "experiment/tune.h"
#include "output/html_writer.h"
#include "output/sweep_writer.h"
#include "output/tune_writer.h"
#include "util/errbuf.h"
#include "util/interrupt.h"
#include "util/printable.h"
#include "util/text_file.h"

#define WHO "plerig tune"

/* The scenario of @suite that @name names, or its only one. */
static const struct scenario *pick_scenario(const struct suite *suite, const char *name)
{
	if (!name && suite->nr_scenarios == 1)
		return &suite->scenarios[0];
	for (unsigned i = 0; name && i < suite->nr_scenarios; i++)
		if (!strcmp(suite->scenarios[i].name, name))
			return &suite->scenarios[i];
	printable_printf(stderr, "%s: %s: ", WHO, suite->path);
	if (name)
		printable_printf(stderr, "no scenario [%s]; it has", name);
	else
		fprintf(stderr, "%u scenarios: name one with --scenario:", suite->nr_scenarios);
	for (unsigned i = 0; i < suite->nr_scenarios; i++)
		printable_printf(stderr, " %s", suite->scenarios[i].name);
	fprintf(stderr, "\n");
	return NULL;
}

static int plan_from_suite(const struct tune_options *o, struct suite *suite, struct run_plan *plan)
{
	char err[ERRBUF_SIZE];
	if (suite_load(o->suite_path, suite, err, sizeof(err))) {
		printable_printf(stderr, "%s: %s\n", WHO, err);
		return EXIT_USAGE;
	}
	const struct scenario *s = pick_scenario(suite, o->scenario);
	if (!s)
		return EXIT_USAGE;
	if (s->nr_params) {
		printable_printf(
		    stderr,
		    "%s: [%s] sets host parameters (params = %s=%s...): tune sets them "
		    "itself; leave params out of the section\n",
		    WHO, s->name, s->params[0].name, s->params[0].value);
		return EXIT_USAGE;
	}
	*plan = *s->plan;
	return host_plan_check(WHO, "tune", plan);
}

/* What tune leaves to itself: PLE per VM, halt polling per VM when it tunes halt_poll_ns. */
static int check_shapes(const struct tune_options *o, const struct run_plan *plan)
{
	unsigned n = tune_plan_shapes(plan);
	if (plan->nr_ples != 1 || plan->ples[0] != PLE_ON) {
		printable_printf(stderr,
				 "%s: run options: --ple: tune measures per-VM PLE off against the "
				 "best window itself (--no-ple-off to leave it out)\n",
				 WHO);
		return EXIT_USAGE;
	}
	if (!strncmp(o->param, "halt_poll_ns", 12))
		for (unsigned i = 0; i < plan->nr_halt_polls; i++)
			if (plan->halt_polls[i] != HALT_POLL_HOST) {
				printable_printf(
				    stderr,
				    "%s: run options: --halt-poll sets each VM's polling, which "
				    "hides %s: leave it out to tune %s\n",
				    WHO, o->param, o->param);
				return EXIT_USAGE;
			}
	if (n > TUNE_MAX_SHAPES) {
		printable_printf(stderr,
				 "%s: run options: %u shapes (variants); tune takes at most %d\n",
				 WHO, n, TUNE_MAX_SHAPES);
		return EXIT_USAGE;
	}
	return 0;
}

/* The recommendation with its cost curves, then every visit as plerig sweep draws a sweep. */
static int write_report(const char *path, const struct tune_result *r,
			const struct sweep_curve *curve)
{
	char err[ERRBUF_SIZE];
	struct html_input in[2] = {{.name = "this tune", .doc = tune_result_json(r)},
				   {.name = "this tune's visits", .doc = sweep_curve_json(curve)}};
	int rc = html_document_write(path, in, 2, err, sizeof(err));
	if (rc)
		printable_printf(stderr, "%s: %s\n", WHO, err);
	json_object_put(in[0].doc);
	json_object_put(in[1].doc);
	return rc;
}

static int write_outputs(const struct tune_options *o, const struct tune_result *r,
			 const struct sweep_curve *curve)
{
	char err[ERRBUF_SIZE];
	int rc = 0;
	bool stdout_taken = (o->json_path && !strcmp(o->json_path, "-")) ||
			    (o->report_path && !strcmp(o->report_path, "-"));
	tune_result_print(stdout_taken ? stderr : stdout, r);
	if (o->json_path && tune_result_write_json(r, o->json_path, err, sizeof(err))) {
		printable_printf(stderr, "%s: %s\n", WHO, err);
		rc = -1;
	}
	if (o->report_path && write_report(o->report_path, r, curve))
		rc = -1;
	return rc;
}

/*
 * tune --connect emulated: the whole tune inside L1, whose kvm_intel it
 * reloads with each value (times there are emulated seconds, and L1's
 * plerig says so); its table, JSON and report come back here.
 */
static int tune_emulated(const struct tune_options *o, const char *guest_path)
{
	static char suite[1 << 20];
	const char *head[32], *tail[1 + o->run_argc];
	char budget[32], visits[16], tolerance[32], seed[32];
	unsigned n = 0, nr_tail = 0;
	struct emulated_file in = {.name = "in/suite.cfg"};
	head[n++] = "tune";
	if (o->param_arg) {
		head[n++] = "--param";
		head[n++] = o->param_arg;
	}
	snprintf(budget, sizeof(budget), "%.17g", o->budget_s);
	snprintf(tolerance, sizeof(tolerance), "%.17g", o->tolerance_pct);
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)o->seed);
	head[n++] = "--budget";
	head[n++] = budget;
	head[n++] = "--tolerance";
	head[n++] = tolerance;
	head[n++] = "--metric";
	head[n++] = o->metrics[0]->name;
	head[n++] = "--seed";
	head[n++] = seed;
	if (o->max_visits) {
		snprintf(visits, sizeof(visits), "%u", o->max_visits);
		head[n++] = "--max-visits";
		head[n++] = visits;
	}
	if (o->no_ple_off)
		head[n++] = "--no-ple-off";
	if (o->quiet)
		head[n++] = "--quiet";
	if (o->suite_path) {
		ssize_t len = text_file_read(o->suite_path, suite, sizeof(suite));
		if (len < 0) {
			printable_printf(stderr, "%s: %s: %s\n", WHO, o->suite_path,
					 strerror((int)-len));
			return EXIT_USAGE;
		}
		in.data = suite;
		in.len = (size_t)len;
		head[n++] = "--suite";
		head[n++] = "in/suite.cfg";
		if (o->scenario) {
			head[n++] = "--scenario";
			head[n++] = o->scenario;
		}
	}
	if (o->run_argc)
		tail[nr_tail++] = "--";
	for (int i = 0; i < o->run_argc; i++)
		tail[nr_tail++] = o->run_argv[i];
	const struct proxy_out outs[] = {
	    {o->json_path, "tune.json", "JSON", "--json", false, true},
	    {o->report_path, "tune.html", "HTML report", "--report", false, false}};
	const struct emulated_options eo = {.kernel = o->kernel_path,
					    .modules = o->modules_path,
					    .module_params = o->module_params,
					    .cache_dir = o->cache_dir,
					    .guest_path = guest_path,
					    .quiet = o->quiet};
	const struct proxy_command one = {.head = head,
					  .nr_head = n,
					  .ins = &in,
					  .nr_ins = o->suite_path ? 1 : 0,
					  .outs = outs,
					  .nr_outs = 2,
					  .tail = tail,
					  .nr_tail = nr_tail};
	struct proxy_command c[CONNECT_MAX_HOSTS];
	struct connect_list l;
	char err[ERRBUF_SIZE];
	connect_list_parse(o->connect, &l, err, sizeof(err)); /* checked by the parser */
	/* one parameter for every host: a vendor's own only where each host has it */
	for (unsigned i = 0; i < l.nr; i++) {
		char why[512];
		if (o->param[0] && proxy_param_misfit(l.uris[i], o->param, why, sizeof(why))) {
			printable_printf(stderr,
					 "%s: --param: %s: leave --param out (each host tunes its "
					 "own window), or tune %s's own in a tune of its own\n",
					 WHO, why, l.uris[i]);
			return EXIT_USAGE;
		}
		c[i] = one;
	}
	return proxy_fleet(WHO, &l, &eo, c);
}

int cmd_tune(int argc, char **argv, const char *guest_path)
{
	static struct tune_options o;
	static struct run_plan plan;
	static struct tune_result result;
	struct suite suite = {0};
	struct sweep_curve curve = {0};
	char err[ERRBUF_SIZE];
	int st;

	switch (tune_options_parse(argc, argv, &o, err, sizeof(err))) {
	case TUNE_OPTIONS_HELP:
		return EXIT_OK;
	case TUNE_OPTIONS_ERROR:
		printable_printf(stderr, "%s: %s\n", WHO, err);
		return EXIT_USAGE;
	case TUNE_OPTIONS_OK:
		break;
	}
	if (o.restore)
		return host_params_restore(WHO);
	/* the shapes are L1's to check: the CPUs named are L1's */
	if (o.connect)
		return check_outputs(WHO, "--json", o.json_path, "--report", o.report_path)
			   ? EXIT_USAGE
			   : tune_emulated(&o, guest_path);
	if (o.suite_path) {
		st = plan_from_suite(&o, &suite, &plan);
	} else if (o.run_argc) {
		st = host_plan_parse(WHO, "tune", o.run_argc, o.run_argv, &plan);
	} else {
		char *pause[] = {"--relax", "pause"}; /* PLE acts on PAUSE: NOP never exits */
		st = host_plan_parse(WHO, "tune", 2, pause, &plan);
	}
	if (!st)
		st = check_shapes(&o, &plan);
	if (!st && plan.guest_path)
		guest_path = plan.guest_path;
	if (!st && (check_outputs(WHO, "--json", o.json_path, "--report", o.report_path) ||
		    check_guest(WHO, plan.guest_path, guest_path)))
		st = EXIT_USAGE;
	if (st) {
		suite_free(&suite);
		return st < 0 ? EXIT_OK : st;
	}
	/* from here on Ctrl-C only raises a flag: the originals always go back */
	if (interrupt_install()) {
		perror(WHO ": installing signal handlers");
		suite_free(&suite);
		return EXIT_FAILED;
	}
	char *line = command_line_join("plerig", argc, argv);
	const struct tune_request req = {
	    .plan = &plan,
	    .guest_path = guest_path,
	    .param = o.param[0] ? o.param : NULL,
	    .range_given = o.range_given,
	    .lo = o.lo,
	    .hi = o.hi,
	    .metric = o.metrics[0],
	    .tolerance_pct = o.tolerance_pct,
	    .budget_s = o.budget_s,
	    .max_visits = o.max_visits,
	    .seed = o.seed,
	    .ple_off = !o.no_ple_off,
	    .quiet = o.quiet,
	    .command_line = line,
	};
	int status = tune_run(&req, &result, &curve, err, sizeof(err));
	free(line);
	if (status == TUNE_REFUSED) { /* nothing changed, nothing measured: no files */
		printable_printf(stderr, "%s: %s\n", WHO, err);
		status = interrupt_requested() ? 128 + interrupt_signal() : EXIT_FAILED;
	} else {
		if (result.search.stop == TUNE_STOP_ERROR)
			printable_printf(stderr, "%s: %s\n", WHO, err);
		if (write_outputs(&o, &result, &curve) && status == 0)
			status = EXIT_FAILED;
		if (interrupt_requested()) {
			printable_printf(stderr, "%s: interrupted\n", WHO);
			status = 128 + interrupt_signal();
		}
	}
	tune_result_free(&result);
	sweep_curve_free(&curve);
	suite_free(&suite);
	return status;
}
