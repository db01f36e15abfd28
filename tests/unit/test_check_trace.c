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
	check_trace_begin(&t, true);
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
 * A histogram counted anew (the next scenario's, in the same instance):
 * ":clear" appended to its trigger, never written over it (O_TRUNC drops
 * every trigger), and held to it: a table the kernel did not empty fails.
 */
START_TEST(test_clear)
{
	char root[SCRATCH_DIR_LEN], rel[SCRATCH_DIR_LEN + 64], text[512];
	struct trace_hist h;
	scratch_dir(root, sizeof(root), "trace-clear");
	make(root, "instances", NULL);
	ck_assert_int_eq(trace_hist_clear(&(struct trace_hist){0}, err, sizeof(err)), -1);
	ck_assert_int_eq(trace_hist_begin(&h, root, "plerig-test", err, sizeof(err)), 0);
	make(root, "instances/plerig-test/events/kvm/kvm_exit/trigger", "");
	make(root, "instances/plerig-test/events/kvm/kvm_exit/hist", "Totals:\n    Dropped: 0\n");
	ck_assert_int_eq(trace_hist_add(&h, "kvm", "kvm_exit", "common_pid", err, sizeof(err)), 0);
	ck_assert_int_eq(trace_hist_clear(&h, err, sizeof(err)), 0);
	read_back(root, "instances/plerig-test/events/kvm/kvm_exit/trigger", text, sizeof(text));
	ck_assert_str_eq(text,
			 "hist:keys=common_pid:size=8192hist:keys=common_pid:size=8192:clear");
	make(root, "instances/plerig-test/events/kvm/kvm_exit/hist",
	     "{ common_pid: 5 } hitcount: 2\n");
	ck_assert_int_eq(trace_hist_clear(&h, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "kvm/kvm_exit: 1 entries left after ':clear'"));
	snprintf(rel, sizeof(rel), "rm -rf '%s'", root);
	ck_assert_int_eq(system(rel), 0);
}
END_TEST

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
	snprintf(rel, sizeof(rel), "instances/plerig-check-%d-1-pause/events/kvm/kvm_exit/trigger",
		 (int)dead);
	make(root, rel, trigger);
	snprintf(rel, sizeof(rel), "instances/plerig-check-%d-2-nop", (int)dead);
	make(root, rel, NULL);
	snprintf(rel, sizeof(rel), "instances/plerig-check-%d-1-pause/events/kvm/kvm_exit/trigger",
		 live);
	make(root, rel, trigger);
	snprintf(rel, sizeof(rel), "instances/someone-%d", (int)dead);
	make(root, rel, NULL);
	make(root, "kprobe_events", "");

	FILE *say = open_memstream(&said, &said_len);
	ck_assert_ptr_nonnull(say);
	check_trace_sweep(root, say);
	fclose(say);

	snprintf(rel, sizeof(rel), "instances/plerig-check-%d-1-pause/events/kvm/kvm_exit/trigger",
		 (int)dead);
	read_back(root, rel, text, sizeof(text));
	ck_assert_str_eq(text, "!hist:keys=common_pid,exit_reason:vals=hitcount:sort=hitcount:"
			       "size=8192");
	snprintf(rel, sizeof(rel), "%s/instances/plerig-check-%d-2-nop", root, (int)dead);
	ck_assert_int_eq(access(rel, F_OK), -1);
	snprintf(text, sizeof(text), "removed tracing instance plerig-check-%d-2-nop of plerig %d",
		 (int)dead, (int)dead);
	ck_assert_ptr_nonnull(strstr(said, text));
	/* a fake tree keeps its files: the real tracefs removes them with the instance */
	snprintf(text, sizeof(text), "cannot remove tracing instance plerig-check-%d-1-pause",
		 (int)dead);
	ck_assert_ptr_nonnull(strstr(said, text));
	ck_assert_ptr_null(strstr(said, "someone"));
	/* the kprobe events of the instance that went (yield-trace's, kick-trace's) go too */
	read_back(root, "kprobe_events", text, sizeof(text));
	snprintf(rel, sizeof(rel), "-:plerig_%d_2/vcpu_yield_to-:plerig_%d_2/vcpu_yield_to_ret",
		 (int)dead, (int)dead);
	ck_assert_ptr_nonnull(strstr(text, rel));
	snprintf(rel, sizeof(rel), "-:plerig_%d_2/deliver_ret", (int)dead);
	ck_assert_ptr_nonnull(strstr(text, rel));
	snprintf(rel, sizeof(rel), "plerig_%d_1/", (int)dead);
	ck_assert_ptr_null(strstr(text, rel));
	snprintf(rel, sizeof(rel), "instances/plerig-check-%d-1-pause/events/kvm/kvm_exit/trigger",
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

/* yield-trace: pv-yield's two vCPUs (threads 231, 232) yield to each other */
static const char *const yield_hypercalls =
    "{ common_pid:        231, nr:         11, a0:          1 } hitcount:        40\n"
    "{ common_pid:        232, nr:         11, a0:          0 } hitcount:        38\n"
    "{ common_pid:        232, nr:          5, a0:          0 } hitcount:         3\n"
    "\n"
    "Totals:\n"
    "    Dropped: 0\n";

static struct check_calls calls;

static void calls_read(enum check_calls_kind kind, const char *const *texts, unsigned n)
{
	check_calls_free(&calls);
	memset(&calls, 0, sizeof(calls));
	calls.kind = kind;
	for (unsigned i = 0; i < n; i++)
		ck_assert_int_eq(trace_hist_parse(texts[i], &calls.tab[i], err, sizeof(err)), 0);
	calls.nr = n;
	calls.read = true;
}

static void yields_run(uint64_t attempted, uint64_t successful)
{
	setup_run();
	for (unsigned i = 0; i < 2; i++) {
		recs[i].kvm.valid[KVM_STAT_DIRECTED_YIELD_ATTEMPTED] = true;
		recs[i].kvm.valid[KVM_STAT_DIRECTED_YIELD_SUCCESSFUL] = true;
	}
	recs[0].kvm.value[KVM_STAT_DIRECTED_YIELD_ATTEMPTED] = attempted;
	recs[0].kvm.value[KVM_STAT_DIRECTED_YIELD_SUCCESSFUL] = successful;
}

START_TEST(test_yields)
{
	char detail[1024];
	const char *texts[] = {
	    yield_hypercalls, "{ common_pid: 231 } hitcount: 90\n",
	    "{ ret: 1 } hitcount: 60\n{ ret: 18446744073709551615 } hitcount: 30\n",
	    "{ ret: 1 } hitcount: 60\n"};
	calls_read(CHECK_CALLS_YIELDS, texts, 4);
	yields_run(70, 50);
	ck_assert_int_eq(check_calls_judge_yields(&calls, &run, detail, sizeof(detail)),
			 TRACE_AGREES);
	ck_assert_ptr_nonnull(strstr(detail, "78 KVM_HC_SCHED_YIELD traced"));
	ck_assert_ptr_nonnull(strstr(detail, "0 of them name the yielding vCPU itself"));
	ck_assert_ptr_nonnull(strstr(detail, "ran 90 times"));
	ck_assert_ptr_nonnull(strstr(detail, "ret=1: 60, ret=-1: 30"));
	/* more attempts than hypercalls traced: a yield ftrace missed */
	yields_run(79, 50);
	ck_assert_int_eq(check_calls_judge_yields(&calls, &run, detail, sizeof(detail)),
			 TRACE_DIFFERS);
	ck_assert_ptr_nonnull(strstr(detail, "fewer yields traced than KVM attempted"));
	/* no successful yield */
	yields_run(70, 0);
	ck_assert_int_eq(check_calls_judge_yields(&calls, &run, detail, sizeof(detail)),
			 TRACE_DIFFERS);
	ck_assert_ptr_nonnull(strstr(detail, "none succeeded"));
	/* a yield naming the caller: vCPU 0 (thread 231) to APIC ID 0 */
	const char *self[] = {"{ common_pid: 231, nr: 11, a0: 0 } hitcount: 2\n"
			      "{ common_pid: 231, nr: 11, a0: 1 } hitcount: 80\n"};
	calls_read(CHECK_CALLS_YIELDS, self, 1);
	yields_run(70, 50);
	ck_assert_int_eq(check_calls_judge_yields(&calls, &run, detail, sizeof(detail)),
			 TRACE_DIFFERS);
	ck_assert_ptr_nonnull(strstr(detail, "2 of them name the yielding vCPU itself"));
	/* no hypercall at all */
	const char *none[] = {"\nTotals:\n    Dropped: 0\n"};
	calls_read(CHECK_CALLS_YIELDS, none, 1);
	yields_run(0, 0);
	ck_assert_int_eq(check_calls_judge_yields(&calls, &run, detail, sizeof(detail)),
			 TRACE_DIFFERS);
	/* no stats, or no counts: not judged, with why */
	calls_read(CHECK_CALLS_YIELDS, texts, 4);
	setup_run();
	ck_assert_int_eq(check_calls_judge_yields(&calls, &run, detail, sizeof(detail)),
			 TRACE_UNJUDGED);
	ck_assert_ptr_nonnull(strstr(detail, "directed_yield_attempted"));
	check_calls_free(&calls);
	snprintf(calls.why, sizeof(calls.why), "no ftrace histograms and kprobe events here: x");
	ck_assert_int_eq(check_calls_judge_yields(&calls, &run, detail, sizeof(detail)),
			 TRACE_UNJUDGED);
	ck_assert_str_eq(detail, "no ftrace histograms and kprobe events here: x");
}
END_TEST

/* kick-trace: 4 vCPUs (threads 231-234) of lock pvqspin, VMX (HLT is reason 12) */
static const char *kicks[5];
static char kick_text[5][512];

static void kicks_default(void)
{
	snprintf(kick_text[0], 512,
		 "{ common_pid: 231, nr: 5, a1: 3 } hitcount: 10\n"
		 "{ common_pid: 232, nr: 5, a1: 0 } hitcount: 7\n"
		 "{ common_pid: 232, nr: 11, a1: 0 } hitcount: 9\n");
	snprintf(kick_text[1], 512,
		 "{ apicid: 3, dm: 768 } hitcount: 10\n{ apicid: 0, dm: 768 } hitcount: 7\n"
		 "{ apicid: 0, dm: 0 } hitcount: 100\n");
	snprintf(kick_text[2], 512, "{ ret: 1 } hitcount: 17\n");
	snprintf(kick_text[3], 512,
		 "{ common_pid: 231, exit_reason: 12 } hitcount: 7\n"
		 "{ common_pid: 234, exit_reason: 12 } hitcount: 10\n"
		 "{ common_pid: 234, exit_reason: 1 } hitcount: 40\n");
	snprintf(kick_text[4], 512,
		 "{ common_pid: 231 } hitcount: 7\n{ common_pid: 234 } hitcount: 10\n");
	for (unsigned i = 0; i < 5; i++)
		kicks[i] = kick_text[i];
}

static struct vcpu_record krecs[4];

static void kicks_run(uint64_t halts, uint64_t sent)
{
	memset(krecs, 0, sizeof(krecs));
	memset(&run, 0, sizeof(run));
	for (unsigned i = 0; i < 4; i++) {
		krecs[i].vcpu = i;
		krecs[i].tid = 231 + (pid_t)i;
		krecs[i].guest.pv.halts = i ? 0 : halts;
		krecs[i].guest.pv.kicks_sent = i ? 0 : sent;
	}
	run.ok = true;
	run.records = krecs;
	run.nr_records = 4;
	run.variant.vcpus = 4;
	run.variant.vms = 1;
	run.variant.lock = PLERIG_LOCK_PVQSPIN;
	run.pv_unhalt = true;
	run.ple_exit_reason = 40;
}

/* kick-trace's histograms as they stand (kick_text) judged against run: @want, @why in the detail
 */
static void kicks_judged(int want, const char *why)
{
	char detail[1024];
	calls_read(CHECK_CALLS_KICKS, kicks, 5);
	ck_assert_int_eq(check_calls_judge_kicks(&calls, &run, detail, sizeof(detail)), want);
	ck_assert_msg(strstr(detail, why), "\"%s\" not in \"%s\"", why, detail);
}

START_TEST(test_kicks)
{
	char detail[1024];
	kicks_default();
	kicks_run(15, 16);
	kicks_judged(TRACE_AGREES, "17 kicks");
	kicks_judged(TRACE_AGREES, "17 halt exits");
	/* a kick accepted by another APIC than it named */
	kicks_default();
	snprintf(kick_text[1], 512,
		 "{ apicid: 3, dm: 768 } hitcount: 9\n{ apicid: 1, dm: 768 } hitcount: 1\n"
		 "{ apicid: 0, dm: 768 } hitcount: 7\n");
	kicks_judged(TRACE_DIFFERS, "APIC ID 3 kicked 10 times");
	/* a delivery that reached no APIC (-1) */
	kicks_default();
	snprintf(kick_text[2], 512, "{ ret: 1 } hitcount: 16\n{ ret: 4294967295 } hitcount: 1\n");
	kicks_judged(TRACE_DIFFERS, "ret=-1: 1");
	/* the last vCPU (APIC ID 3) never kicked */
	kicks_default();
	snprintf(kick_text[0], 512, "{ common_pid: 232, nr: 5, a1: 0 } hitcount: 7\n");
	snprintf(kick_text[1], 512, "{ apicid: 0, dm: 768 } hitcount: 7\n");
	snprintf(kick_text[2], 512, "{ ret: 1 } hitcount: 7\n");
	kicks_run(15, 7);
	kicks_judged(TRACE_DIFFERS, "the last vCPU's APIC (ID 3) accepted 0");
	/* a halt exit without its wake-up */
	kicks_default();
	snprintf(kick_text[4], 512,
		 "{ common_pid: 231 } hitcount: 7\n{ common_pid: 234 } hitcount: 9\n");
	kicks_run(15, 16);
	kicks_judged(TRACE_DIFFERS, "thread 234: 10 halt exits");
	/* a wake-up of a thread that never halted */
	kicks_default();
	snprintf(kick_text[4], 512,
		 "{ common_pid: 231 } hitcount: 7\n{ common_pid: 234 } hitcount: 10\n"
		 "{ common_pid: 233 } hitcount: 1\n");
	kicks_judged(TRACE_DIFFERS, "thread 233: 0 halt exits");
	/* the guest halted more in its interval than KVM saw in the whole run */
	kicks_default();
	kicks_run(18, 16);
	kicks_judged(TRACE_DIFFERS, "18 halts");
	/* SVM: HLT is 0x78, so reason 12 is no halt exit */
	kicks_run(15, 16);
	run.ple_exit_reason = 0x77;
	ck_assert_int_eq(check_calls_judge_kicks(&calls, &run, detail, sizeof(detail)),
			 TRACE_DIFFERS);
	/* PLE off: no PAUSE reason in the run, the host's module tells (kvm_intel: 12) */
	run.ple_exit_reason = 0;
	ck_assert_int_eq(check_calls_judge_kicks(&calls, &run, detail, sizeof(detail)),
			 TRACE_UNJUDGED);
	ck_assert_ptr_nonnull(strstr(detail, "halt exits untold"));
	calls.hlt_reason = 12;
	ck_assert_int_eq(check_calls_judge_kicks(&calls, &run, detail, sizeof(detail)),
			 TRACE_AGREES);
	calls.hlt_reason = 0x78;
	ck_assert_int_eq(check_calls_judge_kicks(&calls, &run, detail, sizeof(detail)),
			 TRACE_DIFFERS);
	check_calls_free(&calls);
}
END_TEST

/* A kprobe event is appended to kprobe_events (never truncating it) and removed at the end. */
START_TEST(test_kprobe)
{
	char root[SCRATCH_DIR_LEN], text[512];
	struct trace_hist h;
	scratch_dir(root, sizeof(root), "trace-kprobe");
	make(root, "instances", NULL);
	make(root, "kprobe_events", "p:someone/else do_sys_open\n");
	ck_assert_int_eq(trace_hist_begin(&h, root, "plerig-test", err, sizeof(err)), 0);
	ck_assert_int_eq(trace_hist_kprobe(&h, 'r', "plerig_1_1", "deliver_ret",
					   "kvm_irq_delivery_to_apic ret=$retval:s32", err,
					   sizeof(err)),
			 0);
	read_back(root, "kprobe_events", text, sizeof(text));
	ck_assert_str_eq(text, "p:someone/else do_sys_open\n"
			       "r:plerig_1_1/deliver_ret kvm_irq_delivery_to_apic ret=$retval:s32");
	trace_hist_end(&h);
	read_back(root, "kprobe_events", text, sizeof(text));
	ck_assert_ptr_nonnull(strstr(text, "s32-:plerig_1_1/deliver_ret"));
	ck_assert_ptr_nonnull(strstr(text, "p:someone/else"));
	/* no kprobe_events: a kernel without CONFIG_KPROBE_EVENTS, said */
	snprintf(text, sizeof(text), "%s/kprobe_events", root);
	ck_assert_int_eq(unlink(text), 0);
	ck_assert_int_eq(trace_hist_begin(&h, root, "plerig-test", err, sizeof(err)), 0);
	ck_assert_int_eq(trace_hist_kprobe(&h, 'p', "g", "e", "f", err, sizeof(err)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "CONFIG_KPROBE_EVENTS"));
	trace_hist_end(&h);
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
	tcase_add_test(t, test_clear);
	tcase_add_test(t, test_sweep_left);
	tcase_add_test(t, test_yields);
	tcase_add_test(t, test_kicks);
	tcase_add_test(t, test_kprobe);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(check_trace_suite)
