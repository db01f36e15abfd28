// SPDX-License-Identifier: GPL-2.0
#include "experiment/check_trace.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "measure/tracefs.h"
#include "util/errbuf.h"
#include "util/printable.h"

enum { HIST_EXITS, HIST_WINDOWS };

#define INSTANCE_PREFIX "plerig-check-"

static const char *const traced[] = {"kvm/kvm_exit", "kvm/kvm_ple_window_update"};

/*
 * A check killed while counting (kill -9, a CI job's timeout) left its
 * instance and its triggers, which would count every exit of every VM
 * from then on: the instances of plerig checks whose process is gone.
 * A live one's, and whatever is not named as a check's, stay.
 */
void check_trace_sweep(const char *tracefs, FILE *say)
{
	char path[PATH_MAX + 16];
	snprintf(path, sizeof(path), "%s/instances", tracefs);
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		int pid, end = 0;
		if (sscanf(e->d_name, INSTANCE_PREFIX "%d-%n", &pid, &end) != 1 || !end ||
		    pid <= 0 || pid == getpid() || !kill(pid, 0) || errno != ESRCH)
			continue;
		const int rc = trace_hist_remove_left(tracefs, e->d_name, traced,
						      sizeof(traced) / sizeof(traced[0]));
		if (rc)
			printable_printf(
			    say,
			    "plerig: cannot remove tracing instance %s of plerig %d, which no "
			    "longer runs: %s\n",
			    e->d_name, pid, strerror(-rc));
		else
			printable_printf(
			    say,
			    "plerig: removed tracing instance %s of plerig %d, which no longer "
			    "runs\n",
			    e->d_name, pid);
	}
	if (d)
		closedir(d);
}

void check_trace_begin(struct check_trace *t, const char *scenario, bool elsewhere)
{
	char tracefs[PATH_MAX], name[128], err[ERRBUF_SIZE];
	memset(t, 0, sizeof(*t));
	if (elsewhere) {
		errbuf_printf(t->why, sizeof(t->why),
			      "it runs on another host: ftrace here counts this host's vCPUs only");
		return;
	}
	/*
	 * a name of its own per scenario and begin: one left behind does not stop
	 * the next, nor does the same scenario of another --connect host of this
	 * machine, counting at the same time
	 */
	static unsigned begun;
	snprintf(name, sizeof(name), INSTANCE_PREFIX "%d-%u-%s", (int)getpid(),
		 __atomic_add_fetch(&begun, 1, __ATOMIC_RELAXED), scenario);
	const int located = tracefs_locate(tracefs, sizeof(tracefs), NULL, 0, err, sizeof(err));
	if (!located)
		check_trace_sweep(tracefs, stderr);
	if (located || trace_hist_begin(&t->hist, tracefs, name, err, sizeof(err)) ||
	    trace_hist_add(&t->hist, "kvm", "kvm_exit", "common_pid,exit_reason", err,
			   sizeof(err)) ||
	    trace_hist_add(&t->hist, "kvm", "kvm_ple_window_update", "common_pid", err,
			   sizeof(err))) {
		errbuf_printf(t->why, sizeof(t->why), "no ftrace histograms here: %s", err);
		trace_hist_end(&t->hist);
		return;
	}
	t->active = true;
}

void check_trace_collect(struct check_trace *t)
{
	char err[ERRBUF_SIZE];
	if (!t->active)
		return;
	if (trace_hist_read(&t->hist, HIST_EXITS, &t->exits, err, sizeof(err)) ||
	    trace_hist_read(&t->hist, HIST_WINDOWS, &t->windows, err, sizeof(err)))
		errbuf_printf(t->why, sizeof(t->why), "reading ftrace's histograms: %s", err);
	else if (t->exits.dropped || t->windows.dropped)
		errbuf_printf(t->why, sizeof(t->why),
			      "ftrace's histograms were full (%" PRIu64 " hits dropped): no "
			      "complete count to compare",
			      t->exits.dropped + t->windows.dropped);
	else
		t->read = true;
	trace_hist_end(&t->hist);
	t->active = false;
}

void check_trace_free(struct check_trace *t)
{
	trace_hist_end(&t->hist);
	trace_hist_table_free(&t->exits);
	trace_hist_table_free(&t->windows);
	t->read = t->active = false;
}

/* One count of one vCPU against ftrace's: 1 when they differ (@detail says how), else 0. */
static int differs(const struct vcpu_record *rec, const char *what, uint64_t ours, uint64_t traced,
		   const char *tracepoint, char *detail, size_t len)
{
	if (ours == traced)
		return 0;
	snprintf(detail, len,
		 "vCPU %u of VM %u (thread %d): %" PRIu64 " %s over its whole life, ftrace's %s "
		 "counted %" PRIu64,
		 rec->vcpu, rec->vm, (int)rec->tid, ours, what, tracepoint, traced);
	return 1;
}

enum trace_verdict check_trace_judge_run(const struct check_trace *t,
					 const struct variant_result *r, char *detail, size_t len)
{
	unsigned judged = 0;
	if (!t->read) {
		snprintf(detail, len, "%s", t->why[0] ? t->why : "ftrace's counts were not read");
		return TRACE_UNJUDGED;
	}
	for (unsigned i = 0; i < r->nr_records; i++) {
		const struct vcpu_record *rec = &r->records[i];
		const struct vcpu_lifetime *l = &rec->lifetime;
		uint64_t tid = (uint64_t)rec->tid;
		if (!l->valid)
			continue;
		if (l->exits_valid &&
		    differs(rec, "exits (KVM's exits stat)", l->exits,
			    trace_hist_sum(&t->exits, tid, true, 0), "kvm:kvm_exit", detail, len))
			return TRACE_DIFFERS;
		if (l->ple.pause_exits_valid && r->ple_exit_reason &&
		    differs(rec, "PAUSE-loop exits (plerig's)", l->ple.pause_exits,
			    trace_hist_sum(&t->exits, tid, false, r->ple_exit_reason),
			    "kvm:kvm_exit with the PAUSE reason", detail, len))
			return TRACE_DIFFERS;
		if (l->ple.window_updates_valid &&
		    differs(rec, "PLE window updates (plerig's)", l->ple.window_updates,
			    trace_hist_sum(&t->windows, tid, true, 0), "kvm:kvm_ple_window_update",
			    detail, len))
			return TRACE_DIFFERS;
		judged += l->exits_valid || l->ple.pause_exits_valid || l->ple.window_updates_valid;
	}
	if (!judged) {
		snprintf(detail, len, "%s",
			 r->ple_why[0] ? r->ple_why
				       : "no vCPU with counts over its whole life (this backend "
					 "does not count them)");
		return TRACE_UNJUDGED;
	}
	const struct vcpu_record *rec = &r->records[0];
	snprintf(detail, len,
		 "e.g. vCPU %u: %" PRIu64 " exits, %" PRIu64 " PAUSE-loop exits, %" PRIu64
		 " window updates, as ftrace counted them",
		 rec->vcpu, rec->lifetime.exits, rec->lifetime.ple.pause_exits,
		 rec->lifetime.ple.window_updates);
	return TRACE_AGREES;
}
