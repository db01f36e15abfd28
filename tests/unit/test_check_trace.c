// SPDX-License-Identifier: GPL-2.0
/*
 * `expect = ftrace-counts`: ftrace's hist files read, and each vCPU's
 * whole-life counts held against them: equal counts pass, a count off by
 * one in exits, PAUSE-loop exits or window updates fails naming it, and
 * counts that could not be had leave the run unjudged with the reason.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "experiment/check_trace.h"
#include "measure/trace_hist.h"
#include "support/check_main.h"
#include "support/scratch_dir.h"

static char err[1024];

/* as a 6.1 kernel prints them: two threads, PAUSE (40) and external interrupt (1) exits */
static const char *const exits_hist =
    "# event histogram\n"
    "#\n"
    "# trigger info: hist:keys=common_pid,exit_reason:vals=hitcount:sort=hitcount:size=8192 "
    "[active]\n"
    "#\n"
    "\n"
    "{ common_pid:        231, exit_reason:          1 } hitcount:          7\n"
    "{ common_pid:        232, exit_reason:         40 } hitcount:         12\n"
    "{ common_pid:        231, exit_reason:         40 } hitcount:       1500\n"
    "{ common_pid:        232, exit_reason:          1 } hitcount:          3\n"
    "\n"
    "Totals:\n"
    "    Hits: 1522\n"
    "    Entries: 4\n"
    "    Dropped: 0\n";

static const char *const windows_hist = "{ common_pid:        231 } hitcount:          9\n"
					"{ common_pid:        232 } hitcount:          2\n"
					"\n"
					"Totals:\n"
					"    Dropped: 0\n";

START_TEST(test_parse)
{
	struct trace_hist_table t;
	ck_assert_int_eq(trace_hist_parse(exits_hist, &t, err, sizeof(err)), 0);
	ck_assert_uint_eq(t.n, 4);
	ck_assert_uint_eq(t.dropped, 0);
	ck_assert_uint_eq(trace_hist_sum(&t, 231, true, 0), 1507);
	ck_assert_uint_eq(trace_hist_sum(&t, 231, false, 40), 1500);
	ck_assert_uint_eq(trace_hist_sum(&t, 232, false, 40), 12);
	ck_assert_uint_eq(trace_hist_sum(&t, 999, true, 0), 0);
	trace_hist_table_free(&t);

	ck_assert_int_eq(trace_hist_parse("{ common_pid: 5 } hitcount: 2\n    Dropped: 17\n", &t,
					  err, sizeof(err)),
			 0);
	ck_assert_uint_eq(t.dropped, 17);
	trace_hist_table_free(&t);

	ck_assert_int_eq(trace_hist_parse("{ common_pid: x } hitcount: 2\n", &t, err, sizeof(err)),
			 -1);
	ck_assert_ptr_nonnull(strstr(err, "line 1"));
	ck_assert_int_eq(trace_hist_parse("{ common_pid: 5 }\n", &t, err, sizeof(err)), -1);
}
END_TEST

static struct vcpu_record recs[2];
static struct variant_result run;

/* Two vCPUs whose counts are those of the hist files above. */
static void setup_run(void)
{
	memset(recs, 0, sizeof(recs));
	memset(&run, 0, sizeof(run));
	for (unsigned i = 0; i < 2; i++) {
		recs[i].vcpu = i;
		recs[i].tid = 231 + (pid_t)i;
		recs[i].lifetime.valid = recs[i].lifetime.exits_valid = true;
		recs[i].lifetime.ple.pause_exits_valid = true;
		recs[i].lifetime.ple.window_updates_valid = true;
	}
	recs[0].lifetime.exits = 1507;
	recs[0].lifetime.ple.pause_exits = 1500;
	recs[0].lifetime.ple.window_updates = 9;
	recs[1].lifetime.exits = 15;
	recs[1].lifetime.ple.pause_exits = 12;
	recs[1].lifetime.ple.window_updates = 2;
	run.ok = true;
	run.records = recs;
	run.nr_records = 2;
	run.ple_exit_reason = 40;
}

static void traced(struct check_trace *t)
{
	memset(t, 0, sizeof(*t));
	ck_assert_int_eq(trace_hist_parse(exits_hist, &t->exits, err, sizeof(err)), 0);
	ck_assert_int_eq(trace_hist_parse(windows_hist, &t->windows, err, sizeof(err)), 0);
	t->read = true;
}

START_TEST(test_judge)
{
	struct check_trace t;
	char detail[512];
	traced(&t);
	setup_run();
	ck_assert_int_eq(check_trace_judge_run(&t, &run, detail, sizeof(detail)), TRACE_AGREES);
	ck_assert_ptr_nonnull(
	    strstr(detail, "1507 exits, 1500 PAUSE-loop exits, 9 window updates"));

	/* a wrong count of each kind fails, naming the vCPU, both counts and the tracepoint */
	recs[1].lifetime.exits = 16;
	ck_assert_int_eq(check_trace_judge_run(&t, &run, detail, sizeof(detail)), TRACE_DIFFERS);
	ck_assert_ptr_nonnull(strstr(detail, "vCPU 1 of VM 0 (thread 232): 16 exits"));
	ck_assert_ptr_nonnull(strstr(detail, "kvm:kvm_exit counted 15"));
	setup_run();
	recs[0].lifetime.ple.pause_exits = 1499;
	ck_assert_int_eq(check_trace_judge_run(&t, &run, detail, sizeof(detail)), TRACE_DIFFERS);
	ck_assert_ptr_nonnull(strstr(detail, "1499 PAUSE-loop exits"));
	ck_assert_ptr_nonnull(strstr(detail, "with the PAUSE reason counted 1500"));
	setup_run();
	recs[1].lifetime.ple.window_updates = 3;
	ck_assert_int_eq(check_trace_judge_run(&t, &run, detail, sizeof(detail)), TRACE_DIFFERS);
	ck_assert_ptr_nonnull(strstr(detail, "kvm:kvm_ple_window_update counted 2"));
	/* SVM's PAUSE reason (0x77) is none of these exits */
	setup_run();
	run.ple_exit_reason = 0x77;
	ck_assert_int_eq(check_trace_judge_run(&t, &run, detail, sizeof(detail)), TRACE_DIFFERS);

	/* what cannot be compared is not judged, and says why */
	setup_run();
	recs[0].lifetime.valid = recs[1].lifetime.valid = false;
	ck_assert_int_eq(check_trace_judge_run(&t, &run, detail, sizeof(detail)), TRACE_UNJUDGED);
	ck_assert_ptr_nonnull(strstr(detail, "whole life"));
	trace_hist_table_free(&t.exits);
	trace_hist_table_free(&t.windows);
	snprintf(t.why, sizeof(t.why), "no ftrace histograms here: EACCES");
	t.read = false;
	setup_run();
	ck_assert_int_eq(check_trace_judge_run(&t, &run, detail, sizeof(detail)), TRACE_UNJUDGED);
	ck_assert_str_eq(detail, "no ftrace histograms here: EACCES");

	/* a scenario run on another host (check --connect): this host's ftrace cannot count it */
	check_trace_begin(&t, "pause", true);
	ck_assert(!t.active);
	check_trace_collect(&t);
	ck_assert_int_eq(check_trace_judge_run(&t, &run, detail, sizeof(detail)), TRACE_UNJUDGED);
	ck_assert_ptr_nonnull(strstr(detail, "runs on another host"));
	check_trace_free(&t);
}
END_TEST

/* A tree shaped like tracefs: the instance is made and removed, a missing tracepoint named. */
START_TEST(test_instance)
{
	char root[SCRATCH_DIR_LEN], path[SCRATCH_DIR_LEN + 32];
	struct trace_hist h;
	scratch_dir(root, sizeof(root), "trace-hist");
	snprintf(path, sizeof(path), "%s/instances", root);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(trace_hist_begin(&h, root, "plerig-test", err, sizeof(err)), 0);
	ck_assert_int_eq(trace_hist_add(&h, "kvm", "kvm_exit", "common_pid", err, sizeof(err)),
			 -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "kvm:kvm_exit"));
	ck_assert_ptr_nonnull(strstr(err, "no such tracepoint"));
	ck_assert_int_eq(trace_hist_begin(&h, root, "plerig-test", err, sizeof(err)), -EEXIST);
	snprintf(path, sizeof(path), "%s/instances/plerig-test", root);
	ck_assert_int_eq(rmdir(path), 0);
	ck_assert_int_eq(trace_hist_begin(&h, root, "plerig-test", err, sizeof(err)), 0);
	trace_hist_end(&h);
	ck_assert_int_eq(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/instances", root);
	ck_assert_int_eq(rmdir(path), 0);
	ck_assert_int_eq(rmdir(root), 0);
}
END_TEST

/* Make @dir/@rel (and its parents) a directory, or a file holding @text. */
static void make(const char *dir, const char *rel, const char *text)
{
	char path[512], cmd[600];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	if (text)
		*strrchr(cmd, '/') = '\0', strcat(cmd, "'");
	ck_assert_int_eq(system(cmd), 0);
	if (text) {
		FILE *f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fputs(text, f);
		fclose(f);
	}
}

static void read_back(const char *dir, const char *rel, char *out, size_t len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	out[fread(out, 1, len - 1, f)] = '\0';
	fclose(f);
}

/*
 * A killed check's instance goes with its triggers (each hist line written
 * back with '!'); a live plerig's, and one not named as a check's, stay.
 */
START_TEST(test_sweep_left)
{
	char root[SCRATCH_DIR_LEN], rel[SCRATCH_DIR_LEN + 64], text[512], *said = NULL;
	size_t said_len = 0;
	const char *trigger = "hist:keys=common_pid,exit_reason:vals=hitcount:sort=hitcount:"
			      "size=8192 [active]\n";
	scratch_dir(root, sizeof(root), "trace-sweep");
	const pid_t dead = fork();
	if (!dead)
		_exit(0);
	ck_assert_int_eq(waitpid(dead, NULL, 0), dead);
	const int live = (int)getppid();
	snprintf(rel, sizeof(rel), "instances/plerig-check-%d-pause/events/kvm/kvm_exit/trigger",
		 (int)dead);
	make(root, rel, trigger);
	snprintf(rel, sizeof(rel), "instances/plerig-check-%d-nop", (int)dead);
	make(root, rel, NULL);
	snprintf(rel, sizeof(rel), "instances/plerig-check-%d-pause/events/kvm/kvm_exit/trigger",
		 live);
	make(root, rel, trigger);
	snprintf(rel, sizeof(rel), "instances/someone-%d", (int)dead);
	make(root, rel, NULL);

	FILE *say = open_memstream(&said, &said_len);
	ck_assert_ptr_nonnull(say);
	check_trace_sweep(root, say);
	fclose(say);

	snprintf(rel, sizeof(rel), "instances/plerig-check-%d-pause/events/kvm/kvm_exit/trigger",
		 (int)dead);
	read_back(root, rel, text, sizeof(text));
	ck_assert_str_eq(text, "!hist:keys=common_pid,exit_reason:vals=hitcount:sort=hitcount:"
			       "size=8192");
	snprintf(rel, sizeof(rel), "%s/instances/plerig-check-%d-nop", root, (int)dead);
	ck_assert_int_eq(access(rel, F_OK), -1);
	snprintf(text, sizeof(text), "removed tracing instance plerig-check-%d-nop of plerig %d",
		 (int)dead, (int)dead);
	ck_assert_ptr_nonnull(strstr(said, text));
	/* a fake tree keeps its files: the real tracefs removes them with the instance */
	snprintf(text, sizeof(text), "cannot remove tracing instance plerig-check-%d-pause",
		 (int)dead);
	ck_assert_ptr_nonnull(strstr(said, text));
	ck_assert_ptr_null(strstr(said, "someone"));
	snprintf(rel, sizeof(rel), "instances/plerig-check-%d-pause/events/kvm/kvm_exit/trigger",
		 live);
	read_back(root, rel, text, sizeof(text));
	ck_assert_str_eq(text, trigger);
	snprintf(text, sizeof(text), "plerig-check-%d-", live);
	ck_assert_ptr_null(strstr(said, text));
	free(said);
	snprintf(text, sizeof(text), "rm -rf '%s'", root);
	ck_assert_int_eq(system(text), 0);
}
END_TEST

static Suite *check_trace_suite(void)
{
	Suite *s = suite_create("check_trace");
	TCase *t = tcase_create("check_trace");
	tcase_add_test(t, test_parse);
	tcase_add_test(t, test_judge);
	tcase_add_test(t, test_instance);
	tcase_add_test(t, test_sweep_left);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(check_trace_suite)
