// SPDX-License-Identifier: GPL-2.0
/*
 * `plerig check`: a suite of scenarios, their expectations and their
 * figures against this machine's baseline; a summary, TAP and JUnit; the
 * exit status a CI job reads (0, 1, 2, 77).
 */
#include "commands/commands.h"
#include "commands/check_emulated.h"
#include "commands/check_host.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/check_options.h"
#include "cli/suite_file.h"
#include "experiment/baseline_import.h"
#include "experiment/check.h"
#include "measure/host_info.h"
#include "measure/kvm_system.h"
#include "model/connect_list.h"
#include "model/outcome.h"
#include "output/tap_junit.h"
#include "output/html_writer.h"
#include "output/json_util.h"
#include "util/atomic_file.h"
#include "util/errbuf.h"
#include "util/interrupt.h"
#include "util/data_path.h"
#include "util/printable.h"
#include "util/strfmt.h"
#include "util/wall_clock.h"

/* $PLERIG_SUITE, else suites/default.cfg of the build tree, or the installed one. */
static const char *default_suite_path(char *buf, size_t len)
{
	const char *env = getenv("PLERIG_SUITE");
	if (env && *env)
		return env;
	data_path("suites", "default.cfg", buf, len);
	return buf;
}

static void list_suite(const struct suite *s, const struct check_options *o)
{
	for (unsigned i = 0; i < s->nr_scenarios; i++) {
		const struct scenario *sc = &s->scenarios[i];
		bool in = !o->groups[0];
		for (unsigned g = 0; o->groups[g]; g++)
			in |= scenario_in_group(sc, o->groups[g]);
		if (!in)
			continue;
		printable_printf(stdout, "%-24s groups=%s expect=", sc->name,
				 sc->groups[0] ? sc->groups : "-");
		const char *sep = "";
		for (unsigned e = 0; e < EXPECT_COUNT; e++)
			if (sc->expects & (1u << e)) {
				printable_printf(stdout, "%s%s", sep, expectation_name(e));
				sep = ",";
			}
		sep = "";
		printable_printf(stdout, "%s requires=", *sep || !sc->expects ? "-" : "");
		for (unsigned r = 0; r < REQUIRE_COUNT; r++)
			if (sc->requires & (1u << r)) {
				printable_printf(stdout, "%s%s", sep, requirement_name(r));
				sep = ",";
			}
		printable_printf(stdout, "%s", *sep ? "" : "-");
		for (unsigned p = 0; p < sc->nr_params; p++)
			printable_printf(stdout, "%s%s=%s",
					 p ? "," : " params=", sc->params[p].name,
					 sc->params[p].value);
		printable_printf(stdout, "\n  %s\n", sc->options);
	}
}

static bool suite_has_group(const struct suite *s, const char *const *groups)
{
	for (unsigned i = 0; i < s->nr_scenarios; i++)
		for (unsigned g = 0; groups[g]; g++)
			if (scenario_in_group(&s->scenarios[i], groups[g]))
				return true;
	return false;
}

static int write_outputs(const struct check_options *o, const struct check_result *res)
{
	char err[ERRBUF_SIZE];
	int status = 0;
	if (o->tap_path && verdicts_tap_write(o->tap_path, res, err, sizeof(err))) {
		printable_printf(stderr, "plerig check: %s\n", err);
		status = EXIT_FAILED;
	}
	if (o->junit_path && verdicts_junit_write(o->junit_path, res, err, sizeof(err))) {
		printable_printf(stderr, "plerig check: %s\n", err);
		status = EXIT_FAILED;
	}
	return status;
}

/* Every scenario's results on one page, headed by the scenario's name. */
static int write_report(const char *path, json_object *results)
{
	char err[ERRBUF_SIZE];
	size_t n = json_object_array_length(results);
	struct html_input *in = calloc(n ? n : 1, sizeof(*in));
	if (!in) {
		fprintf(stderr, "plerig check: out of memory for the report\n");
		return EXIT_FAILED;
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(results, i), *v;
		/* a scenario's first rounds only: those run again are in --json */
		if (json_object_object_get_ex(o, "again", &v) && json_object_get_boolean(v))
			continue;
		in[m].name =
		    json_object_object_get_ex(o, "scenario", &v) ? json_object_get_string(v) : "?";
		in[m].doc = json_object_object_get_ex(o, "results", &v) ? v : NULL;
		in[m].host =
		    json_object_object_get_ex(o, "host", &v) ? json_object_get_string(v) : NULL;
		m++;
	}
	int rc = html_document_write(path, in, (unsigned)m, err, sizeof(err));
	if (rc)
		printable_printf(stderr, "plerig check: %s\n", err);
	free(in);
	return rc ? EXIT_FAILED : 0;
}

static bool is_stdout(const char *path)
{
	return path && !strcmp(path, "-");
}

/* --json: every scenario's results document, as gathered for the report. */
static int write_json(const char *path, json_object *results)
{
	char err[ERRBUF_SIZE];
	const char *text = json_object_to_json_string_ext(results, json_text_flags());
	if (!text || atomic_file_write(path, "JSON", text, strlen(text), err, sizeof(err))) {
		printable_printf(stderr, "plerig check: %s\n",
				 text ? err : "out of memory for --json");
		return EXIT_FAILED;
	}
	return 0;
}

/* --import-baseline FILE: into the store, dated now; nothing runs. */
static int import_baseline(const struct check_options *o)
{
	char err[ERRBUF_SIZE], key[256], path[1024];
	const char *dir = baseline_store_dir(o->baselines_dir);
	if (baseline_import(dir, o->import_path, wall_clock_now(), stderr, key, sizeof(key), err,
			    sizeof(err))) {
		printable_printf(stderr, "plerig check: --import-baseline: %s\n", err);
		return EXIT_USAGE;
	}
	baseline_path(dir, key, path, sizeof(path));
	printable_printf(stdout, "baseline of %s imported into %s, dated by this host's clock\n",
			 key, path);
	return EXIT_OK;
}

int cmd_check(int argc, char **argv, const char *guest_path)
{
	struct check_options o;
	struct suite suite;
	struct check_result res;
	char err[ERRBUF_SIZE], buf[PATH_MAX];
	json_object *results = NULL; /* --report, --json: every scenario's results */
	int status;

	switch (check_options_parse(argc, argv, &o, err, sizeof(err))) {
	case 1:
		return EXIT_OK;
	case 0:
		break;
	default:
		printable_printf(stderr, "plerig check: %s\n", err);
		return EXIT_USAGE;
	}
	if (o.import_path)
		return import_baseline(&o);
	if (check_outputs("plerig check", "--tap", o.tap_path, "--junit", o.junit_path) ||
	    check_outputs("plerig check", "--report", o.report_path, "--json", o.json_path))
		return EXIT_USAGE;
	const char *suite_path = o.suite_path ? o.suite_path : default_suite_path(buf, sizeof(buf));
	if (suite_load(suite_path, &suite, err, sizeof(err))) {
		printable_printf(stderr, "plerig check: %s\n", err);
		return EXIT_USAGE;
	}
	if (o.groups[0] && !suite_has_group(&suite, o.groups)) {
		printable_printf(
		    stderr, "plerig check: --group: no scenario of %s is in one of those groups\n",
		    suite_path);
		suite_free(&suite);
		return EXIT_USAGE;
	}
	if (o.list) {
		list_suite(&suite, &o);
		suite_free(&suite);
		return EXIT_OK;
	}
	memset(&res, 0, sizeof(res));
	str_copy(res.suite, sizeof(res.suite), suite_path);
	if (interrupt_install()) {
		perror("plerig check: installing signal handlers");
		status = EXIT_FAILED;
		goto out;
	}
	if ((o.report_path || o.json_path) && !(results = json_object_new_array())) {
		status = EXIT_FAILED;
		goto out;
	}
	/* a TAP, JUnit, HTML or JSON document on stdout is that document alone */
	bool stdout_taken = is_stdout(o.tap_path) || is_stdout(o.junit_path) ||
			    is_stdout(o.report_path) || is_stdout(o.json_path);
	struct host_check h = {.suite = &suite,
			       .suite_path = suite_path,
			       .guest_path = guest_path,
			       .results = results,
			       .summary = stdout_taken ? stderr : stdout};
	struct connect_list hosts; /* checked by the parser */
	if (!connect_list_parse(o.connect_list, &hosts, err, sizeof(err)) &&
	    connect_list_emulated(&hosts)) {
		status = check_emulated(&o, suite_path, guest_path, h.summary);
		goto out;
	}
	if (o.connect_list) {
		h.on_host = true;
		status = check_fleet(&o, &h, &res);
	} else {
		host_info_collect(&res.host, kvm_active_module());
		status = check_host(&o, &h, &res);
		if (status == EXIT_USAGE)
			goto out;
	}
	if (write_outputs(&o, &res))
		status = EXIT_FAILED;
	if (o.report_path && write_report(o.report_path, results))
		status = EXIT_FAILED;
	if (o.json_path && write_json(o.json_path, results))
		status = EXIT_FAILED;
	if (res.interrupted && interrupt_signal())
		status = 128 + interrupt_signal();
out:
	json_object_put(results);
	check_result_free(&res);
	suite_free(&suite);
	return status;
}
