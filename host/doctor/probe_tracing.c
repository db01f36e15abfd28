// SPDX-License-Identifier: GPL-2.0
/*
 * tracefs, the kvm tracepoints and perf: PAUSE-loop exits are counted
 * from kvm:kvm_exit, so check it exists, can be counted per thread, and
 * really fires, by counting the exits of a probe VM run in this thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor/probes.h"
#include "measure/kvm_stats.h"
#include "doctor/known_exits_vm.h"
#include "measure/ple_counters.h"
#include "measure/trace_counter.h"
#include "measure/tracefs.h"
#include "util/errbuf.h"
#include "util/text_file.h"

#define PROBE_OUTS 100

static void check_events(struct doctor_findings *r, const char *tracefs)
{
	struct trace_format fmt;
	char err[ERRBUF_SIZE];
	if (trace_format_load(tracefs, "kvm", "kvm_exit", &fmt, err, sizeof(err))) {
		doctor_add(r, "tp_kvm_exit", "kvm:kvm_exit", DOCTOR_NO, "%s", err);
		doctor_fix(r, "a kernel with KVM tracepoints (CONFIG_KVM, CONFIG_TRACEPOINTS)");
	} else {
		const struct trace_field *f =
		    trace_format_integer_field(&fmt, "exit_reason", err, sizeof(err));
		if (f)
			doctor_add(r, "tp_kvm_exit", "kvm:kvm_exit", DOCTOR_OK,
				   "id %u, exit_reason: offset %u, %u bytes", fmt.id, f->offset,
				   f->size);
		else
			doctor_add(r, "tp_kvm_exit", "kvm:kvm_exit", DOCTOR_NO,
				   "id %u, but %s: PAUSE exits cannot be filtered", fmt.id, err);
	}
	if (trace_format_load(tracefs, "kvm", "kvm_ple_window_update", &fmt, err, sizeof(err)))
		doctor_add(r, "tp_ple_window", "kvm:kvm_ple_window_update", DOCTOR_WARN, "%s", err);
	else
		doctor_add(r, "tp_ple_window", "kvm:kvm_ple_window_update", DOCTOR_OK, "id %u",
			   fmt.id);
}

static bool check_perf(struct doctor_findings *r, const char *tracefs)
{
	struct trace_counter c;
	char err[ERRBUF_SIZE], paranoid[16];
	if (text_file_read("/proc/sys/kernel/perf_event_paranoid", paranoid, sizeof(paranoid)) < 0)
		snprintf(paranoid, sizeof(paranoid), "?");
	if (trace_counter_open(&c, tracefs, "kvm", "kvm_exit", gettid(), NULL, err, sizeof(err))) {
		doctor_add(r, "perf", "perf tracepoint counting", DOCTOR_NO, "%s", err);
		doctor_fix(r, "run plerig as root, or sysctl kernel.perf_event_paranoid=-1");
		return false;
	}
	trace_counter_close(&c);
	doctor_add(r, "perf", "perf tracepoint counting", DOCTOR_OK,
		   "perf_event_open(kvm:kvm_exit, this thread) permitted (euid %d, "
		   "perf_event_paranoid=%s)",
		   (int)geteuid(), paranoid);
	return true;
}

/* Only where PAUSE exits exist: does the kernel take the PAUSE filter? */
static void check_filter(struct doctor_findings *r)
{
	struct ple_probe p;
	struct ple_counters c;
	ple_probe_init(&p);
	if (p.vendor == PLE_VENDOR_NONE)
		return;
	if (!p.pause_exits_ok) {
		doctor_add(r, "pause_exit_count", "PAUSE-loop exit count", DOCTOR_NO, "%s",
			   p.pause_exits_why);
		return;
	}
	if (ple_counters_open(&c, &p, gettid()))
		doctor_add(r, "pause_exit_count", "PAUSE-loop exit count", DOCTOR_NO, "%s%s%s",
			   c.pause_exits_why, c.pause_exits_why[0] ? "; " : "",
			   c.window_updates_why);
	else
		doctor_add(r, "pause_exit_count", "PAUSE-loop exit count", DOCTOR_OK,
			   "kvm:kvm_exit filtered on \"%s\", and kvm:kvm_ple_window_update, per "
			   "vCPU thread",
			   p.pause_filter);
	ple_counters_close(&c);
}

static void count(struct trace_counter *c, uint64_t *v)
{
	char err[ERRBUF_SIZE];
	if (c->fd < 0 || trace_counter_read(c, v, err, sizeof(err)))
		*v = 0;
}

/* Run a probe VM here and compare the tracepoint counts with what happened. */
static void check_fires(struct doctor_findings *r, const char *tracefs)
{
	struct known_exits_vm probe;
	struct known_exits_result res;
	struct trace_counter exits, uexits;
	char err[ERRBUF_SIZE];
	uint64_t e0 = 0, e1 = 0, u0 = 0, u1 = 0;

	if (!r->kvm_device_ok) {
		doctor_add(r, "kvm_exit_fires", "kvm:kvm_exit fires", DOCTOR_INFO,
			   "not probed: no usable KVM device to run a probe VM on (see KVM "
			   "device)");
		return;
	}
	if (known_exits_vm_open(&probe, PROBE_OUTS, err, sizeof(err))) {
		doctor_add(r, "kvm_exit_fires", "kvm:kvm_exit fires", DOCTOR_NO,
			   "cannot create the probe VM: %s", err);
		return;
	}
	pid_t tid = gettid();
	if (trace_counter_open(&exits, tracefs, "kvm", "kvm_exit", tid, NULL, err, sizeof(err)))
		exits.fd = -1;
	if (trace_counter_open(&uexits, tracefs, "kvm", "kvm_userspace_exit", tid, NULL, err,
			       sizeof(err)))
		uexits.fd = -1;
	count(&exits, &e0);
	count(&uexits, &u0);
	int rc = known_exits_vm_run(&probe, &res, err, sizeof(err));
	count(&exits, &e1);
	count(&uexits, &u1);
	trace_counter_close(&exits);
	trace_counter_close(&uexits);
	known_exits_vm_close(&probe);
	if (rc) {
		doctor_add(r, "kvm_exit_fires", "kvm:kvm_exit fires", DOCTOR_NO, "%s", err);
		return;
	}
	uint64_t stat = res.stats.value[KVM_STAT_EXITS];
	bool stat_ok = res.stats.valid[KVM_STAT_EXITS];
	char user[200];
	snprintf(user, sizeof(user), "kvm:kvm_userspace_exit counted %llu of %llu KVM_RUN returns",
		 (unsigned long long)(u1 - u0), (unsigned long long)res.kvm_run_returns);
	if (!stat_ok)
		doctor_add(r, "kvm_exit_fires", "kvm:kvm_exit fires", DOCTOR_INFO,
			   "counted %llu kvm_exit in a probe VM (no exits stat to compare); %s",
			   (unsigned long long)(e1 - e0), user);
	else if (e1 - e0 == 0 && stat > 0)
		doctor_add(r, "kvm_exit_fires", "kvm:kvm_exit fires", DOCTOR_WARN,
			   "never here: counted 0 kvm_exit for %llu exits of a probe VM (the "
			   "exits stat), so %s exits bypass the tracepoint; per-thread counting "
			   "itself works: %s",
			   (unsigned long long)stat, r->host.module[0] ? r->host.module : "KVM",
			   user);
	else
		doctor_add(r, "kvm_exit_fires", "kvm:kvm_exit fires",
			   e1 - e0 + 4 >= stat && stat + 4 >= e1 - e0 ? DOCTOR_OK : DOCTOR_WARN,
			   "counted %llu kvm_exit for %llu exits of a probe VM (the exits stat); "
			   "%s",
			   (unsigned long long)(e1 - e0), (unsigned long long)stat, user);
}

void doctor_probe_tracing(struct doctor_findings *r)
{
	char tracefs[4096], note[64], err[ERRBUF_SIZE];
	if (tracefs_locate(tracefs, sizeof(tracefs), note, sizeof(note), err, sizeof(err))) {
		doctor_add(r, "tracefs", "tracefs", DOCTOR_NO, "%s", err);
		doctor_fix(r, "mount -t tracefs nodev /sys/kernel/tracing (as root)");
		return;
	}
	doctor_add(r, "tracefs", "tracefs", DOCTOR_OK, "%s (%s)", tracefs, note);
	check_events(r, tracefs);
	if (!check_perf(r, tracefs))
		return;
	check_filter(r);
	check_fires(r, tracefs);
}
