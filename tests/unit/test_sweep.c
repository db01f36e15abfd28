// SPDX-License-Identifier: GPL-2.0
/*
 * plerig sweep without VMs: the command line, the combinations, reading
 * the runner's JSON (schema 1 and 2) into the curve and writing it out,
 * and the refusals that must happen before anything is changed.
 */
#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ple/state_file.h"
#include "commands/sweep.h"
#include "experiment/sweep_curve.h"
#include "cli/sweep_options.h"
#include "support/check_main.h"

static char err[1024];
static char top[256];

static enum sweep_options_status parse(struct sweep_options *o, const char *line)
{
	static char buf[1024];
	static char *argv[64];
	int argc = 0;
	snprintf(buf, sizeof(buf), "%s", line);
	argv[argc++] = "sweep";
	for (char *tok = strtok(buf, " "); tok && argc < 63; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return sweep_options_parse(argc, argv, o, err, sizeof(err));
}

START_TEST(test_options)
{
	struct sweep_options o;
	struct ple_setting set[PLE_MAX_PARAMS];
	ck_assert_int_eq(parse(&o, "--param ple_window=1024,4096 --param ple_gap=0,128,256 "
				   "--json c.json -- --vcpus 4 --relax pause,nop"),
			 SWEEP_OPTIONS_OK);
	ck_assert_uint_eq(o.nr_axes, 2);
	ck_assert_str_eq(o.axes[0].name, "ple_window");
	ck_assert_uint_eq(o.axes[1].nr_values, 3);
	ck_assert_str_eq(o.json_path, "c.json");
	ck_assert_int_eq(o.run_argc, 4);
	ck_assert_str_eq(o.run_argv[0], "--vcpus");
	ck_assert_str_eq(o.run_argv[3], "pause,nop");
	ck_assert_uint_eq(sweep_points(&o), 6);
	/* last axis fastest */
	sweep_point_settings(&o, 0, set);
	ck_assert_str_eq(set[0].value, "1024");
	ck_assert_str_eq(set[1].value, "0");
	sweep_point_settings(&o, 4, set);
	ck_assert_str_eq(set[0].name, "ple_window");
	ck_assert_str_eq(set[0].value, "4096");
	ck_assert_str_eq(set[1].name, "ple_gap");
	ck_assert_str_eq(set[1].value, "128");

	ck_assert_int_eq(parse(&o, "--param pause_filter_count=0"), SWEEP_OPTIONS_OK);
	ck_assert_int_eq(o.run_argc, 0);
	ck_assert_int_eq(parse(&o, "--restore"), SWEEP_OPTIONS_OK);
	ck_assert(o.restore);
	/* run options that look like sweep options stay the run's */
	ck_assert_int_eq(parse(&o, "--param ple_gap=1 -- --csv x.csv"), SWEEP_OPTIONS_OK);
	ck_assert_ptr_null(o.csv_path);
	ck_assert_int_eq(o.run_argc, 2);
}
END_TEST

START_TEST(test_options_bad)
{
	static const struct {
		const char *line, *want;
	} bad[] = {
	    {"", "at least one --param"},
	    {"--param", "needs a value"},
	    {"--param ple_window", "NAME=V1,V2"},
	    {"--param ple_window=", "NAME=V1,V2"},
	    {"--param =5", "NAME=V1,V2"},
	    {"--param halt_poll_ns=5", "not a PLE parameter"},
	    {"--param ple_window=1,,2", "empty"},
	    {"--param ple_window=1,x", "not a decimal number"},
	    {"--param ple_window=-1", "not a decimal number"},
	    {"--param ple_window=4294967296", "not a decimal number"},
	    {"--param ple_window=1 --param ple_window=2", "given twice"},
	    {"--param ple_window=1 --vcpus 4", "unknown option"},
	    {"--param ple_window=1 stray", "run options go after --"},
	    {"--param ple_window=1 -- --json x", "must not have --json"},
	    {"--param ple_window=1 -- --json=x", "must not have --json"},
	    {"--restore --param ple_window=1", "--restore takes no"},
	    {"--restore -- --vcpus 2", "--restore takes no"},
	};
	struct sweep_options o;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(parse(&o, bad[i].line) == SWEEP_OPTIONS_ERROR, "accepted \"%s\"",
			      bad[i].line);
		ck_assert_msg(strstr(err, bad[i].want), "\"%s\": %s", bad[i].line, err);
	}
	/* too many combinations */
	char line[1024] = "";
	for (int a = 0; a < 3; a++) {
		static const char *const names[] = {"ple_gap", "ple_window", "ple_window_grow"};
		strcat(line, a ? " --param " : "--param ");
		strcat(line, names[a]);
		strcat(line, "=");
		for (int v = 0; v < 11; v++) {
			char num[8];
			snprintf(num, sizeof(num), v ? ",%d" : "%d", v);
			strcat(line, num);
		}
	}
	ck_assert_int_eq(parse(&o, line), SWEEP_OPTIONS_ERROR);
	ck_assert_msg(strstr(err, "more than 1024"), "%s", err);
}
END_TEST

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static char *slurp(const char *path)
{
	static char buf[16384];
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void setup(void)
{
	snprintf(top, sizeof(top), "%s/plerig-sweep-test-XXXXXX", getenv("TMPDIR") ?: "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(top));
}

static void teardown(void)
{
	char cmd[PATH_MAX];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	ck_assert_int_eq(system(cmd), 0);
}

/* schema 1: one summary per variant; the second variant failed */
static const char results_v1[] =
    "{\"schema\": \"plerig-results\", \"schema_version\": 1, \"variants\": ["
    "{\"backend\": \"kvm\", \"lock\": \"ticket\", \"relax\": \"pause\", \"ring\": \"user\","
    " \"vms\": 1, \"vcpus\": 4, \"pcpus\": \"0-1\", \"ok\": true,"
    " \"summary\": {\"acq_per_s\": 437.5, \"stalls\": 437, \"stalled_share\": 0.993,"
    " \"exits\": 546}},"
    "{\"backend\": \"kvm\", \"lock\": \"ticket\", \"relax\": \"nop\", \"ring\": \"user\","
    " \"vms\": 1, \"vcpus\": 4, \"pcpus\": \"0-1\", \"ok\": false,"
    " \"error\": \"watchdog: vCPU 2 never stopped\", \"summary\": null}]}";

/* schema 2: runs averaged; the PLE axis and the PLE exits as the runner may add them */
static const char results_v2[] =
    "{\"schema\": \"plerig-results\", \"schema_version\": 2, \"variants\": ["
    "{\"backend\": \"kvm\", \"lock\": \"tas\", \"relax\": \"pause\", \"ring\": \"kernel\","
    " \"ple\": \"on\", \"vms\": 2, \"vcpus\": 2, \"pcpus\": \"0\", \"runs\": ["
    "  {\"repeat\": 0, \"ok\": true, \"summary\": {\"acq_per_s\": 100.0, \"stalls\": 10,"
    "   \"stalled_share\": 0.5, \"pause_loop_exits\": 40}},"
    "  {\"repeat\": 1, \"ok\": true, \"summary\": {\"acq_per_s\": 300.0, \"stalls\": 30,"
    "   \"stalled_share\": 0.25, \"pause_loop_exits\": 60}},"
    "  {\"repeat\": 2, \"ok\": false, \"error\": \"KVM_RUN: EFAULT\", \"summary\": null}]},"
    "{\"backend\": \"kvm\", \"lock\": \"tas\", \"relax\": \"pause\", \"ring\": \"user\","
    " \"vms\": 1, \"vcpus\": 2, \"pcpus\": \"0\", \"runs\": ["
    "  {\"ok\": true, \"summary\": {\"acq_per_s\": 5.0, \"stalls\": 1, \"stalled_share\": 0.1,"
    "   \"pause_loop_exits\": null,"
    "   \"pause_loop_exits_unavailable\": \"no hardware PLE on this host (kvm_pvm)\"}}]}]}";

START_TEST(test_curve)
{
	struct sweep_curve c;
	struct ple_setting axes[] = {{"ple_window", "1024"}};
	char p[PATH_MAX];

	sweep_curve_init(&c, axes, 1);
	snprintf(p, sizeof(p), "%s/v1.json", top);
	put(p, results_v1);
	ck_assert_msg(sweep_curve_add_results(&c, p, axes, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(c.n, 2);
	ck_assert_str_eq(c.points[0].variant, "kvm ticket pause user 1x4/0-1");
	ck_assert(c.points[0].ok);
	ck_assert_double_eq(c.points[0].acq_per_s, 437.5);
	ck_assert_double_eq(c.points[0].stalls, 437);
	ck_assert(isnan(c.points[0].pause_exits)); /* absent: unavailable, never 0 */
	ck_assert_str_eq(c.points[0].pause_exits_why,
			 "the run's results have no pause_loop_exits figure");
	ck_assert(!c.points[1].ok);
	ck_assert_str_eq(c.points[1].error, "watchdog: vCPU 2 never stopped");

	axes[0] = (struct ple_setting){"ple_window", "4096"};
	snprintf(p, sizeof(p), "%s/v2.json", top);
	put(p, results_v2);
	ck_assert_msg(sweep_curve_add_results(&c, p, axes, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(c.n, 4);
	const struct sweep_point *q = &c.points[2];
	ck_assert_str_eq(q->values[0], "4096");
	ck_assert_str_eq(q->variant, "kvm tas pause kernel ple-on 2x2/0");
	ck_assert(q->ok);
	ck_assert_uint_eq(q->runs, 2);
	ck_assert_double_eq(q->acq_per_s, 200.0);
	ck_assert_double_eq(q->stalls, 20.0);
	ck_assert_double_eq(q->stalled_share, 0.375);
	ck_assert_double_eq(q->pause_exits, 50.0);
	ck_assert(isnan(c.points[3].pause_exits));
	ck_assert_str_eq(c.points[3].pause_exits_why, "no hardware PLE on this host (kvm_pvm)");

	ck_assert_int_eq(sweep_curve_add_failure(&c, axes, "KVM went away"), 0);
	ck_assert_uint_eq(c.n, 5);

	/* the outputs */
	snprintf(p, sizeof(p), "%s/curve.json", top);
	ck_assert_msg(sweep_curve_write_json(&c, p, err, sizeof(err)) == 0, "%s", err);
	char *j = slurp(p);
	ck_assert_msg(
	    strstr(j, "\"schema\":\"plerig-sweep\"") && strstr(j, "\"ple_window\":4096") &&
		strstr(j, "\"pause_loop_exits\":50") && strstr(j, "\"pause_loop_exits\":null") &&
		strstr(j, "\"error\":\"KVM went away\""),
	    "%s", j);
	snprintf(p, sizeof(p), "%s/curve.csv", top);
	ck_assert_msg(sweep_curve_write_csv(&c, p, err, sizeof(err)) == 0, "%s", err);
	char *csv = slurp(p);
	ck_assert_msg(!strncmp(csv,
			       "ple_window,variant,ok,runs,acq_per_s,stalls,stalled_share,"
			       "pause_loop_exits,note\n",
			       80),
		      "%s", csv);
	ck_assert_msg(strstr(csv, "4096,kvm tas pause kernel ple-on 2x2/0,1,2,200,20,0.375,50,\n"),
		      "%s", csv);
	ck_assert_msg(strstr(csv, ",5,1,0.10000000000000001,,no hardware PLE on this host "
				  "(kvm_pvm)\n"),
		      "%s", csv);

	FILE *f = tmpfile();
	sweep_curve_print(f, &c);
	rewind(f);
	char table[4096];
	size_t n = fread(table, 1, sizeof(table) - 1, f);
	table[n] = '\0';
	fclose(f);
	ck_assert_msg(strstr(table, "FAILED: watchdog") &&
			  strstr(table, "pause-exits unavailable: no hardware PLE on this host "
					"(kvm_pvm)"),
		      "%s", table);

	snprintf(p, sizeof(p), "%s/not.json", top);
	put(p, "{\"schema\": \"other\"}");
	ck_assert_int_eq(sweep_curve_add_results(&c, p, axes, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "not a plerig-results file"), "%s", err);
	snprintf(p, sizeof(p), "%s/missing.json", top);
	ck_assert_int_eq(sweep_curve_add_results(&c, p, axes, err, sizeof(err)), -1);
	sweep_curve_free(&c);
}
END_TEST

static int sweep(const char *line)
{
	static char buf[1024];
	static char *argv[64];
	int argc = 0;
	snprintf(buf, sizeof(buf), "%s", line);
	argv[argc++] = "sweep";
	for (char *tok = strtok(buf, " "); tok && argc < 63; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return sweep_main(argc, argv, "/nonexistent/guest.elf");
}

/* On this machine's kind of host a sweep fails at once, changing nothing. */
START_TEST(test_sweep_refused_on_pvm)
{
	char p[PATH_MAX], state[PATH_MAX];
	snprintf(p, sizeof(p), "mkdir -p %s/sys/module/kvm_pvm/parameters", top);
	ck_assert_int_eq(system(p), 0);
	snprintf(p, sizeof(p), "%s/sys", top);
	setenv("PLERIG_SYSFS_ROOT", p, 1);
	snprintf(p, sizeof(p), "%s/state", top);
	setenv("PLERIG_STATE_DIR", p, 1);
	ck_assert_int_eq(sweep("--param ple_window=1024,4096 -- --duration 0.1"), 1);
	ple_state_path(state, sizeof(state));
	ck_assert_int_ne(access(state, F_OK), 0);
	/* bad run options are refused before anything (here: before the module check) */
	ck_assert_int_eq(sweep("--param ple_window=1024 -- --vcpus 0"), 2);
	ck_assert_int_eq(sweep("--param nope=1"), 2);
	ck_assert_int_eq(sweep("--restore"), 0); /* nothing to restore */
}
END_TEST

static Suite *sweep_suite(void)
{
	Suite *s = suite_create("sweep");
	TCase *pure = tcase_create("pure");
	TCase *files = tcase_create("files");
	tcase_add_test(pure, test_options);
	tcase_add_test(pure, test_options_bad);
	tcase_add_checked_fixture(files, setup, teardown);
	tcase_add_test(files, test_curve);
	tcase_add_test(files, test_sweep_refused_on_pvm);
	suite_add_tcase(s, pure);
	suite_add_tcase(s, files);
	return s;
}

CHECK_MAIN(sweep_suite)
