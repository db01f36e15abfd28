// SPDX-License-Identifier: GPL-2.0
#include "backends/run_result.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/errbuf.h"
#include "util/printable.h"
#include "util/strfmt.h"

/* Exit times where a backend cannot have them: say why not. */
static void note_exit_times(struct variant_result *r, const struct variant *v)
{
	const char *why = NULL;
	if (!v->exit_times)
		return;
	if (v->backend == BACKEND_NATIVE)
		why = "not applicable: the native baseline runs on host threads, without VM exits";
	else if (v->backend == BACKEND_LIBVIRT_TCG)
		why = "not applicable: QEMU's emulator (TCG) makes no KVM exits";
	if (why)
		snprintf(r->exit_times_why, sizeof(r->exit_times_why), "%s", why);
}

int variant_result_init(struct variant_result *r, const struct variant *v)
{
	memset(r, 0, sizeof(*r));
	r->variant = *v;
	r->ok = true;
	r->nr_records = v->vms * v->vcpus;
	r->records = calloc(r->nr_records, sizeof(r->records[0]));
	r->protected_counter = calloc(v->vms, sizeof(r->protected_counter[0]));
	note_exit_times(r, v);
	if (!r->records || !r->protected_counter)
		return run_fail(r, "out of memory for %u vCPU records", r->nr_records);
	return 0;
}

int run_fail(struct variant_result *r, const char *fmt, ...)
{
	r->ok = false;
	if (r->error[0]) /* keep the first cause */
		return -1;
	va_list ap;
	va_start(ap, fmt);
	printable_vformat(r->error, sizeof(r->error), fmt, ap); /* a guest's or libvirt's words */
	va_end(ap);
	return -1;
}

int interval_snapshots_alloc(struct interval_snapshots *s, struct variant_result *r)
{
	s->before = calloc(r->nr_records, sizeof(s->before[0]));
	s->after = calloc(r->nr_records, sizeof(s->after[0]));
	if (!s->before || !s->after) {
		interval_snapshots_free(s);
		return run_fail(r, "out of memory for snapshots");
	}
	return 0;
}

void interval_snapshots_load(struct interval_snapshots *s, struct variant_result *r, bool after)
{
	const struct variant *v = &r->variant;
	char err[ERRBUF_SIZE];
	if (r->foreign_why[0])
		return;
	if (cpu_load_read(v->pcpus, v->nr_pcpus, after ? &s->load_after : &s->load_before, err,
			  sizeof(err)))
		(void)pathf(r->foreign_why, sizeof(r->foreign_why), "not measured: %s", err);
}

/*
 * The CPUs' busy time less what the vCPU threads ran there: the rest is
 * other work's (plerig's own control thread mostly sleeps). Clamped at 0:
 * the tick-based busy time can fall a few ms short of the threads' exact
 * run time.
 */
static void foreign_load(const struct interval_snapshots *s, struct variant_result *r)
{
	if (r->foreign_why[0])
		return;
	/* a vCPU whose run time is unknown would count all of it as other work's */
	if (r->sched_why[0]) {
		(void)pathf(r->foreign_why, sizeof(r->foreign_why), "not measured: %s",
			    r->sched_why);
		return;
	}
	if (!s->load_before.valid || !s->load_after.valid) {
		snprintf(r->foreign_why, sizeof(r->foreign_why), "not measured by this backend");
		return;
	}
	/*
	 * A thread the host starved for the whole interval ran 0 ns, which
	 * is a figure (and most likely on the loaded host this serves); no
	 * run time from any thread means schedstat could not be read.
	 */
	double vcpu_ns = 0.0;
	for (unsigned g = 0; g < r->nr_records; g++)
		vcpu_ns += (double)r->records[g].sched.run_ns;
	if (r->nr_records && vcpu_ns == 0.0) {
		snprintf(r->foreign_why, sizeof(r->foreign_why),
			 "not measured: no run time of any vCPU thread (schedstat)");
		return;
	}
	const double busy = (double)(s->load_after.busy_ns - s->load_before.busy_ns);
	r->foreign_cpu_ns = busy > vcpu_ns ? busy - vcpu_ns : 0.0;
	/* of the CPUs' time between these two readings, which may be longer than the
	 * guest's interval (libvirt reads around it): a share of that never passes 1 */
	r->foreign_capacity_ns = (double)(s->load_after.total_ns - s->load_before.total_ns);
}

void interval_snapshots_delta(const struct interval_snapshots *s, struct variant_result *r)
{
	for (unsigned g = 0; g < r->nr_records; g++) {
		const struct counter_snapshot *b = &s->before[g], *a = &s->after[g];
		schedstat_delta(&b->sched, &a->sched, &r->records[g].sched);
		kvm_stats_delta(&b->kvm, &a->kvm, &r->records[g].kvm);
		ple_counts_delta(&b->ple, &a->ple, &r->records[g].ple);
	}
	foreign_load(s, r);
}

void interval_snapshots_free(struct interval_snapshots *s)
{
	free(s->before);
	free(s->after);
	s->before = s->after = NULL;
}

void run_note_ple(struct variant_result *r, const struct ple_probe *p)
{
	const struct variant *v = &r->variant;
	const char *note = ple_variant_note(p, v->ring, v->ple == PLE_OFF);
	if (note)
		snprintf(r->ple_note, sizeof(r->ple_note), "%s", note);
}

void run_open_ple_counters(struct variant_result *r, struct ple_counters *c,
			   const struct ple_probe *p, pid_t tid)
{
	ple_counters_open(c, p, tid);
	run_note_ple_why(r, c);
}

void run_note_ple_why(struct variant_result *r, const struct ple_counters *c)
{
	if (c->pause_exits_why[0] && !r->ple_why[0])
		snprintf(r->ple_why, sizeof(r->ple_why), "%s", c->pause_exits_why);
	if (c->window_updates_why[0] && !r->ple_window_why[0])
		snprintf(r->ple_window_why, sizeof(r->ple_window_why), "%s", c->window_updates_why);
}

void run_check_exit_times(struct variant_result *r, const char *module)
{
	uint64_t stat = 0, seen = 0, timed = 0, cut = 0, lost = 0;
	for (unsigned g = 0; g < r->nr_records; g++) {
		const struct vcpu_record *rec = &r->records[g];
		if (rec->kvm.valid[KVM_STAT_EXITS])
			stat += rec->kvm.value[KVM_STAT_EXITS];
		seen += rec->exit_times.seen;
		timed += rec->exit_times.exits;
		cut += rec->exit_times.cut;
		lost += rec->exit_times.lost;
	}
	if (!r->exit_times_why[0] && stat > 0 && seen == 0)
		snprintf(r->exit_times_why, sizeof(r->exit_times_why),
			 "%s does not fire kvm:kvm_exit: the exits stat counted %llu exits in the "
			 "interval, none was traced",
			 module, (unsigned long long)stat);
	else if (!r->exit_times_why[0] && seen > 0 && timed == 0 && cut < seen && !lost)
		snprintf(r->exit_times_why, sizeof(r->exit_times_why),
			 "%s fires kvm:kvm_exit but no kvm:kvm_entry followed any of its %llu "
			 "traced exits",
			 module, (unsigned long long)seen);
	if (!r->exit_times_why[0])
		return;
	/* one reason for the whole run: no vCPU keeps figures the others lack */
	for (unsigned g = 0; g < r->nr_records; g++)
		r->records[g].exit_times.valid = false;
}
