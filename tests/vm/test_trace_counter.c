// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoint counter against the running kernel: a real VM whose vCPU
 * runs in this thread and does a known number of port writes, counted
 * through perf_event_open on this thread only and compared with what
 * user space saw and with KVM's own exits stat.
 *
 * kvm:kvm_exit must match the exits stat where the vendor module fires it
 * (VMX, SVM). PVM (this development host) never fires kvm_exit; there the
 * same counter is checked exactly on the events PVM does fire
 * (kvm_userspace_exit, kvm_pio), and the reason filter on recorded
 * kvm_userspace_exit samples. Skips (77, with the reason) only where
 * /dev/kvm or perf tracepoint counting is not available.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/kvm_stats.h"
#include "doctor/known_exits_vm.h"
#include "ple/host_params.h"
#include "measure/ple_counters.h"
#include "measure/trace_counter.h"
#include "measure/trace_filter.h"
#include "support/trace_sampler.h"
#include "support/trace_vm.h"
#include "measure/tracefs.h"
#include "support/check_main.h"

#define OUTS 500

static char tracefs[4096];
static char module[PLE_MODULE_LEN];
static char err[1024];

static void open_counter(struct trace_counter *c, const char *event, pid_t tid, const char *filter)
{
	ck_assert_msg(trace_counter_open(c, tracefs, "kvm", event, tid, filter, err, sizeof(err)) ==
			  0,
		      "%s", err);
}

static uint64_t read_counter(struct trace_counter *c)
{
	uint64_t v;
	ck_assert_msg(trace_counter_read(c, &v, err, sizeof(err)) == 0, "%s", err);
	return v;
}

static bool has_kvm_exit_tracepoint(void)
{
	return strcmp(module, "kvm_intel") == 0 || strcmp(module, "kvm_amd") == 0;
}

START_TEST(test_counts_match_the_vm)
{
	struct known_exits_vm p;
	struct known_exits_result r;
	struct trace_counter exits, uexits, pio, io_only;
	pid_t tid = gettid();

	ck_assert_msg(known_exits_vm_open(&p, OUTS, err, sizeof(err)) == 0, "%s", err);
	open_counter(&exits, "kvm_exit", tid, NULL);
	open_counter(&uexits, "kvm_userspace_exit", tid, NULL);
	open_counter(&pio, "kvm_pio", tid, NULL);
	/* the kernel-side filter, on a field whose value we know: KVM_EXIT_IO */
	open_counter(&io_only, "kvm_userspace_exit", tid, "reason == 2");
	uint64_t e0 = read_counter(&exits), u0 = read_counter(&uexits), p0 = read_counter(&pio),
		 i0 = read_counter(&io_only);
	ck_assert_msg(known_exits_vm_run(&p, &r, err, sizeof(err)) == 0, "%s", err);
	uint64_t e = read_counter(&exits) - e0, u = read_counter(&uexits) - u0,
		 n = read_counter(&pio) - p0, io = read_counter(&io_only) - i0;
	uint64_t stat = r.stats.value[KVM_STAT_EXITS];

	printf("%s: %u OUTs: KVM_RUN returns %llu (IO %llu); exits stat %llu; counted: "
	       "kvm_exit %llu, kvm_userspace_exit %llu (reason == 2: %llu), kvm_pio %llu\n",
	       module, OUTS, (unsigned long long)r.kvm_run_returns, (unsigned long long)r.io_exits,
	       (unsigned long long)stat, (unsigned long long)e, (unsigned long long)u,
	       (unsigned long long)io, (unsigned long long)n);
	ck_assert_uint_eq(r.io_exits, OUTS);
	ck_assert(r.stats.valid[KVM_STAT_EXITS]);
	ck_assert_uint_ge(stat, OUTS);
	/* exact: every return to user space, every port write, nothing else */
	ck_assert_uint_eq(u, r.kvm_run_returns);
	ck_assert_uint_eq(io, OUTS);
	ck_assert_uint_eq(n, OUTS);
	if (has_kvm_exit_tracepoint()) {
		/* VMX/SVM trace every exit; allow a few around the edges of KVM_RUN */
		ck_assert_msg(e + 4 >= stat && stat + 4 >= e, "kvm_exit %llu vs exits stat %llu",
			      (unsigned long long)e, (unsigned long long)stat);
	} else {
		/* PVM's exit path has no kvm_exit tracepoint: all or nothing, never part */
		ck_assert_msg(e == 0 || (e + 4 >= stat && stat + 4 >= e),
			      "kvm_exit %llu vs exits stat %llu", (unsigned long long)e,
			      (unsigned long long)stat);
		if (e == 0)
			printf("%s does not fire kvm:kvm_exit (PLE exits are unavailable here "
			       "anyway)\n",
			       module);
	}
	trace_counter_close(&exits);
	trace_counter_close(&uexits);
	trace_counter_close(&pio);
	trace_counter_close(&io_only);
	known_exits_vm_close(&p);
}
END_TEST

static void *idle_thread(void *arg)
{
	pid_t *tid = arg;
	__atomic_store_n(tid, gettid(), __ATOMIC_RELEASE);
	while (__atomic_load_n(tid, __ATOMIC_ACQUIRE) != 0)
		usleep(1000);
	return NULL;
}

/* pid = tid: another thread's counter sees none of this thread's exits. */
START_TEST(test_counts_only_its_thread)
{
	struct known_exits_vm p;
	struct known_exits_result r;
	struct trace_counter other, mine;
	pthread_t t;
	pid_t tid = 0;

	ck_assert_int_eq(pthread_create(&t, NULL, idle_thread, &tid), 0);
	while (!__atomic_load_n(&tid, __ATOMIC_ACQUIRE))
		usleep(100);
	ck_assert_msg(known_exits_vm_open(&p, 50, err, sizeof(err)) == 0, "%s", err);
	open_counter(&other, "kvm_userspace_exit", tid, NULL);
	open_counter(&mine, "kvm_userspace_exit", gettid(), NULL);
	ck_assert_msg(known_exits_vm_run(&p, &r, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(read_counter(&other), 0);
	ck_assert_uint_eq(read_counter(&mine), r.kvm_run_returns);
	trace_counter_close(&other);
	trace_counter_close(&mine);
	known_exits_vm_close(&p);
	__atomic_store_n(&tid, 0, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
}
END_TEST

struct tally {
	const struct trace_field *reason;
	const struct trace_filter *filter;
	unsigned long total, io, hlt, other, matched;
};

static void tally_sample(const void *raw, size_t size, void *arg)
{
	struct tally *t = arg;
	uint64_t v;
	t->total++;
	ck_assert_int_eq(trace_field_value(t->reason, raw, size, &v), 0);
	if (v == KVM_EXIT_IO)
		t->io++;
	else if (v == KVM_EXIT_HLT)
		t->hlt++;
	else
		t->other++;
	t->matched += trace_filter_match(t->filter, raw, size);
}

/*
 * The reason filter on recorded samples: decode each raw record by the
 * offsets of the format file, and check the user-space filter agrees with
 * the kernel's PERF_EVENT_IOC_SET_FILTER on the same events.
 */
START_TEST(test_samples_and_filter)
{
	struct known_exits_vm p;
	struct known_exits_result r;
	struct trace_sampler s;
	struct trace_counter kernel_filtered;
	struct trace_format fmt;
	struct trace_filter filter;
	/* kvm_exit where it fires (PAUSE has no exits here, port I/O does); else user exits */
	const char *event = has_kvm_exit_tracepoint() ? "kvm_exit" : "kvm_userspace_exit";
	const char *field = has_kvm_exit_tracepoint() ? "exit_reason" : "reason";
	char text[64];
	unsigned io_reason = !strcmp(module, "kvm_intel") ? 30	  /* EXIT_REASON_IO_INSTRUCTION */
			     : !strcmp(module, "kvm_amd") ? 0x07b /* SVM_EXIT_IOIO */
							  : KVM_EXIT_IO;

	ck_assert_msg(trace_format_load(tracefs, "kvm", event, &fmt, err, sizeof(err)) == 0, "%s",
		      err);
	snprintf(text, sizeof(text), "%s == %u", field, io_reason);
	ck_assert_msg(trace_filter_parse(text, &fmt, &filter, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(known_exits_vm_open(&p, OUTS, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(
	    trace_sampler_open(&s, tracefs, "kvm", event, gettid(), 64, err, sizeof(err)) == 0,
	    "%s", err);
	open_counter(&kernel_filtered, event, gettid(), text);
	ck_assert_msg(known_exits_vm_run(&p, &r, err, sizeof(err)) == 0, "%s", err);

	struct tally t = {.reason = trace_format_field(&fmt, field), .filter = &filter};
	unsigned long n = trace_sampler_drain(&s, tally_sample, &t);
	uint64_t k = read_counter(&kernel_filtered);
	printf("%s samples: %lu (%s == %u: %lu by the filter here, %llu by the kernel's; lost "
	       "%llu)\n",
	       event, n, field, io_reason, t.matched, (unsigned long long)k,
	       (unsigned long long)s.ring.lost);
	ck_assert_uint_eq(s.ring.lost, 0);
	ck_assert_uint_eq(n, t.total);
	ck_assert_uint_eq(t.matched, k);
	ck_assert_uint_eq(k, OUTS);
	if (!has_kvm_exit_tracepoint()) {
		ck_assert_uint_eq(t.io, OUTS);
		ck_assert_uint_eq(t.hlt, 1);
		ck_assert_uint_eq(t.other, 0);
		ck_assert_uint_eq(n, r.kvm_run_returns);
	}
	/* drained: nothing more until the next event */
	ck_assert_uint_eq(trace_sampler_drain(&s, tally_sample, &t), 0);
	trace_counter_close(&kernel_filtered);
	trace_sampler_close(&s);
	known_exits_vm_close(&p);
}
END_TEST

/* What the runner sees: PLE counters on this host, available or with a reason. */
START_TEST(test_ple_counters_here)
{
	struct ple_probe probe;
	struct ple_counters c;
	struct ple_counts a, b, d;
	struct known_exits_vm p;
	struct known_exits_result r;

	ple_probe_init(&probe);
	ck_assert_msg(known_exits_vm_open(&p, 20, err, sizeof(err)) == 0, "%s", err);
	int rc = ple_counters_open(&c, &probe, gettid());
	ple_counters_read(&c, &a);
	ck_assert_msg(known_exits_vm_run(&p, &r, err, sizeof(err)) == 0, "%s", err);
	ple_counters_read(&c, &b);
	ple_counts_delta(&a, &b, &d);
	if (probe.vendor == PLE_VENDOR_NONE) {
		printf("PAUSE-loop exits here: unavailable: %s\n", probe.pause_exits_why);
		ck_assert_int_eq(rc, -EOPNOTSUPP);
		ck_assert_str_eq(c.pause_exits_why, probe.pause_exits_why);
		ck_assert(!d.pause_exits_valid);
		ck_assert(!d.window_updates_valid);
		ck_assert_msg(strstr(probe.pause_exits_why, "no hardware PLE on this host"), "%s",
			      probe.pause_exits_why);
	} else {
		ck_assert_msg(rc == 0, "%s %s", c.pause_exits_why, c.window_updates_why);
		ck_assert(d.pause_exits_valid);
		/* port writes in real mode: no PAUSE, so no PAUSE-loop exit */
		ck_assert_uint_eq(d.pause_exits, 0);
	}
	ple_counters_close(&c);
	known_exits_vm_close(&p);
}
END_TEST

static int try_counter(const char *where, char *e, size_t elen)
{
	struct trace_counter c;
	int rc = trace_counter_open(&c, where, "kvm", "kvm_exit", gettid(), NULL, e, elen);
	if (!rc)
		trace_counter_close(&c);
	return rc;
}

int main(void)
{
	const char *why =
	    trace_vm_cannot_run(tracefs, sizeof(tracefs), module, sizeof(module), try_counter);
	if (why)
		return check_skip("%s", why);
	Suite *s = suite_create("trace_counter");
	TCase *t = tcase_create("real_vm");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_counts_match_the_vm);
	tcase_add_test(t, test_counts_only_its_thread);
	tcase_add_test(t, test_samples_and_filter);
	tcase_add_test(t, test_ple_counters_here);
	suite_add_tcase(s, t);
	return check_run(s, CK_FORK_GETENV);
}
