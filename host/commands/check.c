// SPDX-License-Identifier: GPL-2.0
/*
 * `plerig check`: a suite of scenarios, their expectations and their
 * figures against this machine's baseline; a summary, TAP and JUnit; the
 * exit status a CI job reads (0, 1, 2, 77).
 */
#include "commands/commands.h"
#include "commands/check_emulated.h"
#include "commands/check_host.h"

#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/check_options.h"
#include "cli/suite_file.h"
#include "experiment/check.h"
#include "experiment/host_identity.h"
#include "measure/kvm_system.h"
#include "model/connect_list.h"
#include "model/outcome.h"
#include "output/tap_junit.h"
#include "output/html_writer.h"
#include "util/errbuf.h"
#include "util/interrupt.h"
#include "util/data_path.h"
#include "util/output_path.h"
#include "util/strfmt.h"
#include "util/uri_redact.h"

#ifndef PLERIG_VERSION
#define PLERIG_VERSION "unknown"
#endif

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
		printf("%-24s groups=%s expect=", sc->name, sc->groups[0] ? sc->groups : "-");
		const char *sep = "";
		for (unsigned e = 0; e < EXPECT_COUNT; e++)
			if (sc->expects & (1u << e)) {
				printf("%s%s", sep, expectation_name(e));
				sep = ",";
			}
		sep = "";
		printf("%s requires=", *sep || !sc->expects ? "-" : "");
		for (unsigned r = 0; r < REQUIRE_COUNT; r++)
			if (sc->requires & (1u << r)) {
				printf("%s%s", sep, requirement_name(r));
				sep = ",";
			}
		printf("%s", *sep ? "" : "-");
		for (unsigned p = 0; p < sc->nr_params; p++)
			printf("%s%s=%s", p ? "," : " params=", sc->params[p].name,
			       sc->params[p].value);
		printf("\n  %s\n", sc->options);
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

static const char *same_or(const char *then, const char *now)
{
	return strcmp(then, now) ? "CHANGED" : "same";
}

/* Which baseline the verdicts rest on, and what differs from it (kernel, PLE parameters). */
static void describe_baseline(const char *path, const struct baseline *b,
			      const struct host_info *now, char *buf, size_t len)
{
	(void)pathf(buf, len,
		    "baseline %s, recorded %s (plerig %s)\n"
		    "  kernel: %s then, %s now (%s)\n"
		    "  PLE parameters: '%s' then, '%s' now (%s)",
		    path, b->recorded_at, b->plerig_version, b->host.kernel, now->kernel,
		    same_or(b->host.kernel, now->kernel), b->host.ple_params, now->ple_params,
		    same_or(b->host.ple_params, now->ple_params));
}

struct baselines {
	const char *dir;
	char path[1024];
	struct baseline b;
	bool loaded;
	char no_baseline[1200];
};

/* 0, or exit 2 with the message printed. */
static int open_baselines(const struct check_options *o, struct check_result *res,
			  struct baselines *bl)
{
	char err[ERRBUF_SIZE];
	memset(bl, 0, sizeof(*bl));
	bl->dir = baseline_store_dir(o->baselines_dir);
	if (!bl->dir)
		return 0;
	baseline_key(&res->host, res->baseline_key, sizeof(res->baseline_key));
	baseline_path(bl->dir, res->baseline_key, bl->path, sizeof(bl->path));
	/* a store that cannot take the recording is said before anything runs */
	if (o->record && baseline_store_prepare(bl->dir, err, sizeof(err))) {
		fprintf(stderr, "plerig check: --record: %s\n", err);
		return EXIT_USAGE;
	}
	int rc = baseline_load(bl->dir, res->baseline_key, &bl->b, err, sizeof(err));
	if (rc < 0) {
		/* a recording merges into the file: a damaged one is not silently replaced */
		fprintf(stderr, "plerig check: %s%s\n", err,
			o->record ? " (--record keeps the other scenarios' entries of this file: "
				    "mend it, or remove it to record afresh)"
				  : "");
		return EXIT_USAGE;
	}
	bl->loaded = rc == 0;
	if (bl->loaded && !o->record) {
		describe_baseline(bl->path, &bl->b, &res->host, res->baseline_note,
				  sizeof(res->baseline_note));
	} else if (!o->record) {
		(void)pathf(bl->no_baseline, sizeof(bl->no_baseline),
			    "no baseline for this machine (%s) in %s: record one with --record",
			    res->baseline_key, bl->dir);
		str_copy(res->baseline_note, sizeof(res->baseline_note), bl->no_baseline);
	} else {
		/* the recording starts empty: what is in the file then is merged in at the end */
		baseline_free(&bl->b);
		(void)pathf(res->baseline_note, sizeof(res->baseline_note),
			    "recording this machine's baseline into %s", bl->path);
	}
	return 0;
}

static int save_baseline(struct baselines *bl, const struct check_result *res,
			 const char *suite_path)
{
	char err[ERRBUF_SIZE];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(bl->b.recorded_at, sizeof(bl->b.recorded_at), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(bl->b.key, sizeof(bl->b.key), "%s", res->baseline_key);
	snprintf(bl->b.plerig_version, sizeof(bl->b.plerig_version), "%s", PLERIG_VERSION);
	str_copy(bl->b.suite, sizeof(bl->b.suite), suite_path);
	bl->b.host = res->host;
	if (!bl->b.nr_entries) {
		fprintf(stderr,
			"plerig check: nothing recorded (no scenario completed with every run "
			"ok, or a failed case above says why), %s unchanged\n",
			bl->path);
		return 0;
	}
	if (baseline_save(bl->dir, &bl->b, stderr, err, sizeof(err))) {
		char *text = baseline_text(&bl->b), fallback[PATH_MAX];
		if (text && !output_path_fallback("baseline", "json", text, strlen(text), fallback,
						  sizeof(fallback)))
			fprintf(stderr, "plerig check: %s; this recording is in %s instead\n", err,
				fallback);
		else
			fprintf(stderr, "plerig check: %s; no fallback file could be written\n",
				err);
		free(text);
		return EXIT_FAILED;
	}
	fprintf(stderr, "plerig check: baseline of this machine written to %s\n", bl->path);
	return 0;
}

static int write_outputs(const struct check_options *o, const struct check_result *res)
{
	char err[ERRBUF_SIZE];
	int status = 0;
	if (o->tap_path && verdicts_tap_write(o->tap_path, res, err, sizeof(err))) {
		fprintf(stderr, "plerig check: %s\n", err);
		status = EXIT_FAILED;
	}
	if (o->junit_path && verdicts_junit_write(o->junit_path, res, err, sizeof(err))) {
		fprintf(stderr, "plerig check: %s\n", err);
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
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(results, i), *v;
		in[i].name =
		    json_object_object_get_ex(o, "scenario", &v) ? json_object_get_string(v) : "?";
		in[i].doc = json_object_object_get_ex(o, "results", &v) ? v : NULL;
		in[i].host =
		    json_object_object_get_ex(o, "host", &v) ? json_object_get_string(v) : NULL;
	}
	int rc = html_document_write(path, in, (unsigned)n, err, sizeof(err));
	if (rc)
		fprintf(stderr, "plerig check: %s\n", err);
	free(in);
	return rc ? EXIT_FAILED : 0;
}

static bool is_stdout(const char *path)
{
	return path && !strcmp(path, "-");
}

/* --report with --connect: each scenario's results say which host they ran on. */
static void name_results_host(json_object *results, size_t from, const char *label)
{
	for (size_t i = from; results && label && i < json_object_array_length(results); i++)
		json_object_object_add(json_object_array_get_idx(results, i), "host",
				       json_object_new_string(label));
}

/*
 * The suite on one host, judged against that host's baseline (keyed by
 * @res->host, which the caller filled), its summary printed. The exit
 * status it earns.
 */
int check_host(const struct check_options *o, const struct host_check *h, struct check_result *res)
{
	struct baselines bl;
	char err[ERRBUF_SIZE];
	str_copy(res->suite, sizeof(res->suite), h->suite_path);
	int status = open_baselines(o, res, &bl);
	if (status)
		return status;
	if (h->suite->host_runs_nothing_else && bl.loaded && !o->record) {
		const size_t n = strlen(res->baseline_note);
		(void)pathf(res->baseline_note + n, sizeof(res->baseline_note) - n,
			    "\n  foreign load: never makes a drop not comparable here (the suite's "
			    "[suite] host_runs_nothing_else = yes)");
	}
	size_t before = h->results ? json_object_array_length(h->results) : 0;
	struct check_config c = {
	    .suite = h->suite,
	    .guest_path = h->guest_path,
	    .on_host = h->on_host,
	    .connect_uri = h->uri,
	    .hosts_here = h->hosts_here,
	    .host_label = h->label,
	    .groups = o->groups[0] ? o->groups : NULL,
	    .nr_metrics = o->nr_metrics,
	    .threshold_pct = o->threshold_pct,
	    .aa = o->aa,
	    .baseline = &bl.b,
	    .baseline_loaded = bl.loaded && !o->record,
	    .record = o->record,
	    .no_baseline = bl.no_baseline[0] ? bl.no_baseline : NULL,
	    .budget_s = o->budget_s,
	    .progress = o->quiet ? NULL : stderr,
	    .results = h->results,
	};
	memcpy(c.metrics, o->metrics, sizeof(c.metrics));
	if (check_suite_run(&c, res, err, sizeof(err))) {
		fprintf(stderr, "plerig check: %s\n", err);
		baseline_free(&bl.b);
		return EXIT_FAILED;
	}
	name_results_host(h->results, before, h->label);
	verdicts_summary_print(h->summary, res);
	fflush(h->summary);
	status = check_result_status(res);
	if (o->record && save_baseline(&bl, res, h->suite_path))
		status = EXIT_FAILED;
	baseline_free(&bl.b);
	return status;
}

int cmd_check(int argc, char **argv, const char *guest_path)
{
	struct check_options o;
	struct suite suite;
	struct check_result res;
	char err[ERRBUF_SIZE], buf[PATH_MAX];
	json_object *results = NULL; /* --report: every scenario's results */
	int status;

	switch (check_options_parse(argc, argv, &o, err, sizeof(err))) {
	case 1:
		return EXIT_OK;
	case 0:
		break;
	default:
		fprintf(stderr, "plerig check: %s\n", err);
		return EXIT_USAGE;
	}
	if (check_outputs("plerig check", "--tap", o.tap_path, "--junit", o.junit_path) ||
	    check_outputs("plerig check", "--report", o.report_path, NULL, NULL))
		return EXIT_USAGE;
	const char *suite_path = o.suite_path ? o.suite_path : default_suite_path(buf, sizeof(buf));
	if (suite_load(suite_path, &suite, err, sizeof(err))) {
		fprintf(stderr, "plerig check: %s\n", err);
		return EXIT_USAGE;
	}
	if (o.groups[0] && !suite_has_group(&suite, o.groups)) {
		fprintf(stderr,
			"plerig check: --group: no scenario of %s is in one of those groups\n",
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
	if (o.report_path && !(results = json_object_new_array())) {
		status = EXIT_FAILED;
		goto out;
	}
	/* a TAP, JUnit or HTML document on stdout is that document alone */
	bool stdout_taken =
	    is_stdout(o.tap_path) || is_stdout(o.junit_path) || is_stdout(o.report_path);
	struct host_check h = {.suite = &suite,
			       .suite_path = suite_path,
			       .guest_path = guest_path,
			       .results = results,
			       .summary = stdout_taken ? stderr : stdout};
	if (o.connect_list && !strcmp(o.connect_list, CONNECT_EMULATED)) {
		status = check_emulated(&o, suite_path, guest_path, h.summary);
		goto out;
	}
	if (o.connect_list) {
		h.on_host = true;
		status = check_fleet(&o, &h, &res);
	} else {
		host_info_collect(&res.host, kvm_detect_module());
		status = check_host(&o, &h, &res);
		if (status == EXIT_USAGE)
			goto out;
	}
	if (write_outputs(&o, &res))
		status = EXIT_FAILED;
	if (results && write_report(o.report_path, results))
		status = EXIT_FAILED;
	if (res.interrupted && interrupt_signal())
		status = 128 + interrupt_signal();
out:
	json_object_put(results);
	check_result_free(&res);
	suite_free(&suite);
	return status;
}
