// SPDX-License-Identifier: GPL-2.0
/*
 * plerig sweep without VMs: the command line, the combinations, the
 * experiment's in-memory report into the curve and the curve written
 * out, and the refusals that must happen before anything is changed.
 */
#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/sweep_options.h"
#include "commands/commands.h"
#include "model/sweep_curve.h"
#include "ple/state_file.h"
#include "output/sweep_writer.h"
#include "support/check_main.h"
#include "support/scratch_dir.h"
#include "support/fixtures.h"

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
	ck_assert_uint_eq(o.grid.nr_axes, 2);
	ck_assert_str_eq(o.grid.axes[0].name, "ple_window");
	ck_assert_uint_eq(o.grid.axes[1].nr_values, 3);
	ck_assert_str_eq(o.json_path, "c.json");
	ck_assert_int_eq(o.run_argc, 4);
	ck_assert_str_eq(o.run_argv[0], "--vcpus");
	ck_assert_str_eq(o.run_argv[3], "pause,nop");
	ck_assert_uint_eq(sweep_points(&o.grid), 6);
	/* last axis fastest */
	sweep_point_settings(&o.grid, 0, set);
	ck_assert_str_eq(set[0].value, "1024");
	ck_assert_str_eq(set[1].value, "0");
	sweep_point_settings(&o.grid, 4, set);
	ck_assert_str_eq(set[0].name, "ple_window");
	ck_assert_str_eq(set[0].value, "4096");
	ck_assert_str_eq(set[1].name, "ple_gap");
	ck_assert_str_eq(set[1].value, "128");

	ck_assert_uint_eq(o.rounds, 1);
	ck_assert(!o.seed_given);
	ck_assert_int_eq(parse(&o, "--param pause_filter_count=0"), SWEEP_OPTIONS_OK);
	ck_assert_int_eq(o.run_argc, 0);
	ck_assert_int_eq(parse(&o, "--param ple_window=1,2 --rounds 5 --seed 7"), SWEEP_OPTIONS_OK);
	ck_assert_uint_eq(o.rounds, 5);
	ck_assert(o.seed_given);
	ck_assert_uint_eq(o.seed, 7);
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
	    {"--param nx_huge_pages=5", "not a PLE parameter"},
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
	    {"--param ple_window=1 --rounds 0", "--rounds"},
	    {"--param ple_window=1 --rounds 1001", "--rounds"},
	    {"--param ple_window=1 --seed x", "--seed"},
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

/* The curve's table, as sweep_curve_print writes it. */
static const char *printed(const struct sweep_curve *c)
{
	static char table[4096];
	FILE *f = tmpfile();
	ck_assert_ptr_nonnull(f);
	sweep_curve_print(f, c);
	rewind(f);
	size_t n = fread(table, 1, sizeof(table) - 1, f);
	table[n] = '\0';
	fclose(f);
	return table;
}

static void setup(void)
{
	scratch_dir(top, sizeof(top), "sweep");
}

static void teardown(void)
{
	char cmd[PATH_MAX];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	ck_assert_int_eq(system(cmd), 0);
}

/* A good 1 s run of @s's variant (one vCPU) with these counts; ple < 0: not counted. */
static void fake_run(struct series *s, uint64_t acq, uint64_t stalls, double stalled_ms, long ple,
		     const char *ple_why)
{
	struct variant_result *r = &s->runs[s->nr_runs++];
	fixture_result(r, &s->variant, 1.0);
	r->records[0].guest.acquisitions = acq;
	r->records[0].guest.stalls = stalls;
	r->records[0].guest.stalled_cycles = (uint64_t)(stalled_ms * 1e6);
	r->records[0].ple.pause_exits_valid = ple >= 0;
	r->records[0].ple.pause_exits = ple >= 0 ? (uint64_t)ple : 0;
	snprintf(r->ple_why, sizeof(r->ple_why), "%s", ple_why);
}

static void fake_series(struct series *s, enum plerig_ring ring, unsigned vms)
{
	struct variant v = fixture_variant(BACKEND_KVM, 1, PLERIG_LOCK_TAS, PLERIG_RELAX_PAUSE);
	const unsigned cpu0 = 0;
	v.ring = ring;
	v.vms = vms;
	fixture_pin(&v, &cpu0, 1);
	fixture_series(s, &v, 3);
	s->nr_runs = 0; /* fake_run fills them in */
}

START_TEST(test_curve)
{
	static struct series series[2];
	struct outcome rep = {.series = series, .nr_series = 2};
	struct sweep_curve c;
	struct ple_setting axes[] = {{"ple_window", "4096"}};
	char p[PATH_MAX];

	/* a variant with two ok runs and a failed one; one whose exits are not counted */
	fake_series(&series[0], PLERIG_RING_KERNEL, 1);
	fake_run(&series[0], 100, 10, 500, 40, "");
	fake_run(&series[0], 300, 30, 250, 60, "");
	fake_run(&series[0], 0, 0, 0, 0, "");
	series[0].runs[2].ok = false;
	snprintf(series[0].runs[2].error, sizeof(series[0].runs[2].error), "KVM_RUN: EFAULT");
	fake_series(&series[1], PLERIG_RING_USER, 1);
	fake_run(&series[1], 5, 1, 100, -1, "no hardware PLE on this host (kvm_pvm)");

	sweep_curve_init(&c, axes, 1);
	ck_assert_int_eq(sweep_curve_add_report(&c, &rep, axes), 0);
	ck_assert_uint_eq(c.n, 2);
	const struct sweep_point *q = &c.points[0];
	ck_assert_str_eq(q->values[0], "4096");
	ck_assert_str_eq(q->variant, "kvm tas pause kernel ple-on 1x1/0");
	ck_assert(q->ok);
	ck_assert_uint_eq(q->runs, 2); /* the failed run is not averaged in */
	ck_assert_double_eq(q->acq_per_s, 200.0);
	ck_assert_double_eq(q->stalls, 20.0);
	ck_assert_double_eq(q->stalled_share, 0.375);
	ck_assert_double_eq(q->pause_exits, 50.0);
	ck_assert(isnan(c.points[1].pause_exits)); /* not counted: unavailable, never 0 */
	ck_assert_str_eq(c.points[1].pause_exits_why, "no hardware PLE on this host (kvm_pvm)");

	/* a variant whose every run failed is a failed point, with the reason */
	series[1].runs[0].ok = false;
	snprintf(series[1].runs[0].error, sizeof(series[1].runs[0].error),
		 "watchdog: vCPU 2 never stopped");
	rep.nr_series = 2;
	ck_assert_int_eq(sweep_curve_add_report(&c, &rep, axes), 0);
	ck_assert(!c.points[3].ok);
	ck_assert_str_eq(c.points[3].error, "watchdog: vCPU 2 never stopped");
	series[1].runs[0].ok = true;

	ck_assert_int_eq(sweep_curve_add_failure(&c, axes, "KVM went away"), 0);
	ck_assert_uint_eq(c.n, 5);
	/* an error from outside that a spreadsheet would run: text in the CSV */
	ck_assert_int_eq(sweep_curve_add_failure(&c, axes, "=cmd|' /C calc'!A0"), 0);

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
	ck_assert_msg(strstr(csv, "4096,kvm tas pause kernel ple-on 1x1/0,1,2,200,20,0.375,50,\n"),
		      "%s", csv);
	ck_assert_msg(strstr(csv, ",5,1,0.10000000000000001,,no hardware PLE on this host "
				  "(kvm_pvm)\n"),
		      "%s", csv);
	ck_assert_msg(strstr(csv, ",\"'=cmd|' /C calc'!A0\"\n"), "%s", csv);

	const char *table = printed(&c);
	ck_assert_msg(strstr(table, "FAILED: watchdog") &&
			  strstr(table, "pause-exits unavailable: no hardware PLE on this host "
					"(kvm_pvm)"),
		      "%s", table);

	for (unsigned i = 0; i < 2; i++)
		series_free(&series[i]);
	sweep_curve_free(&c);
}
END_TEST

/* Rounds: every visit kept, each combination and variant summarised over them. */
START_TEST(test_curve_rounds)
{
	static struct series series[1];
	struct outcome rep = {.series = series, .nr_series = 1};
	struct sweep_curve c;
	struct ple_setting big[] = {{"ple_window", "16384"}}, small[] = {{"ple_window", "1024"}};
	char p[PATH_MAX];

	sweep_curve_init(&c, big, 1);
	c.rounds = 3;
	c.seed = 42;
	/* visited in shuffled order: 16384 first; exits 100, 110, 120 at 1024 */
	const struct {
		struct ple_setting *set;
		uint64_t acq;
		long ple;
	} visits[] = {{big, 50, 10}, {small, 100, 100}, {small, 200, 110},
		      {big, 70, 12}, {big, 60, 14},	{small, 300, 120}};
	for (unsigned k = 0; k < 6; k++) {
		fake_series(&series[0], PLERIG_RING_KERNEL, 1);
		fake_run(&series[0], visits[k].acq, 1, 100, visits[k].ple, "");
		c.round = k / 2;
		ck_assert_int_eq(sweep_curve_add_report(&c, &rep, visits[k].set), 0);
		series_free(&series[0]);
	}
	ck_assert_int_eq(sweep_curve_add_failure(&c, big, "KVM went away"), 0);
	ck_assert_uint_eq(c.points[5].round, 2);
	unsigned n;
	struct sweep_summary *sum = sweep_curve_summarize(&c, &n);
	ck_assert_ptr_nonnull(sum);
	ck_assert_uint_eq(n, 3); /* 1024, 16384, and the failure at 16384 ("(all)") */
	ck_assert_str_eq(sum[0].values[0], "1024");
	ck_assert_uint_eq(sum[0].visits, 3);
	ck_assert_uint_eq(sum[0].ok, 3);
	ck_assert_double_eq(sum[0].pause_exits.mean, 110.0);
	ck_assert_double_eq_tol(sum[0].pause_exits.stddev, 10.0, 1e-9);
	/* t(0.975, 2) = 4.3027: half width 4.3027 * 10 / sqrt(3) */
	ck_assert_double_eq_tol(sum[0].pause_exits.ci95_high, 110.0 + 24.842, 1e-2);
	ck_assert_double_eq_tol(sum[0].pause_exits.ci95_low, 110.0 - 24.842, 1e-2);
	ck_assert_double_eq(sum[0].acq_per_s.mean, 200.0);
	ck_assert_str_eq(sum[1].values[0], "16384");
	ck_assert_double_eq(sum[1].pause_exits.mean, 12.0);
	ck_assert_str_eq(sum[2].variant, "(all)");
	ck_assert_uint_eq(sum[2].ok, 0);
	ck_assert_str_eq(sum[2].error, "KVM went away");
	free(sum);

	snprintf(p, sizeof(p), "%s/rounds.json", top);
	ck_assert_msg(sweep_curve_write_json(&c, p, err, sizeof(err)) == 0, "%s", err);
	char *j = slurp(p);
	ck_assert_msg(strstr(j, "\"rounds\":3") && strstr(j, "\"seed\":42") &&
			  strstr(j, "\"round\":2") && strstr(j, "\"summary\":[") &&
			  strstr(j, "\"mean\":110"),
		      "%s", j);
	const char *table = printed(&c);
	ck_assert_msg(strstr(table, "110 +- 25") && strstr(table, "3/3") &&
			  strstr(table, "FAILED: KVM went away"),
		      "%s", table);
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
	return cmd_sweep(argc, argv, "/nonexistent/guest.elf");
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
	tcase_add_test(files, test_curve_rounds);
	tcase_add_test(files, test_sweep_refused_on_pvm);
	suite_add_tcase(s, pure);
	suite_add_tcase(s, files);
	return s;
}

CHECK_MAIN(sweep_suite)
