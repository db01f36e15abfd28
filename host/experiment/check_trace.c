// SPDX-License-Identifier: GPL-2.0
#include "experiment/check_trace.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "measure/ple_counters.h"
#include "measure/tracefs.h"
#include "model/halt_path.h"
#include "util/errbuf.h"
#include "util/printable.h"

enum { HIST_EXITS, HIST_WINDOWS };

#define INSTANCE_PREFIX "plerig-check-"

static const char *const traced[] = {"kvm/kvm_exit", "kvm/kvm_ple_window_update",
				     "kvm/kvm_hypercall", "kvm/kvm_apic_accept_irq",
				     "kvm/kvm_vcpu_wakeup"};

/* The kprobe events of yield-trace and kick-trace: group plerig_PID_N, N the begin's. */
struct probe {
	char kind; /* 'p' at entry, 'r' at return */
	const char *event, *probe, *keys;
};
static const struct probe probes[] = {
    {'p', "vcpu_yield_to", "kvm_vcpu_yield_to", "common_pid"},
    {'r', "vcpu_yield_to_ret", "kvm_vcpu_yield_to ret=$retval:s32", "ret"},
    {'r', "yield_to_ret", "yield_to ret=$retval:s32", "ret"},
    {'r', "deliver_ret", "kvm_irq_delivery_to_apic ret=$retval:s32", "ret"},
};
#define NR_PROBES (sizeof(probes) / sizeof(probes[0]))

/* Remove what the killed plerig @pid left for its begin @n: triggers, instance, kprobe events. */
static int remove_left(const char *tracefs, const char *instance, int pid, unsigned n)
{
	char names[NR_PROBES][128], group[48];
	const char *events[sizeof(traced) / sizeof(traced[0]) + NR_PROBES];
	unsigned nr = 0;
	snprintf(group, sizeof(group), "plerig_%d_%u", pid, n);
	for (unsigned i = 0; i < sizeof(traced) / sizeof(traced[0]); i++)
		events[nr++] = traced[i];
	for (unsigned i = 0; i < NR_PROBES; i++) {
		snprintf(names[i], sizeof(names[i]), "%s/%s", group, probes[i].event);
		events[nr++] = names[i];
	}
	const int rc = trace_hist_remove_left(tracefs, instance, events, nr);
	for (unsigned i = 0; !rc && i < NR_PROBES; i++)
		(void)trace_hist_kprobe_remove(tracefs, names[i]);
	return rc;
}

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
		unsigned n = 0;
		if (sscanf(e->d_name, INSTANCE_PREFIX "%d-%u-%n", &pid, &n, &end) != 2 || !end ||
		    pid <= 0 || pid == getpid() || !kill(pid, 0) || errno != ESRCH)
			continue;
		const int rc = remove_left(tracefs, e->d_name, pid, n);
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

/*
 * The instance of one begin: tracefs found, a killed check's leftovers swept,
 * a name of its own per scenario and begin: one left behind does not stop
 * the next, nor does the same scenario of another --connect host of this
 * machine, counting at the same time. 0, or -1 with @err. @n: the begin's
 * number (the kprobe events' group).
 */
static int begin_instance(struct trace_hist *h, const char *what, const char *scenario, unsigned *n,
			  char *err, size_t errlen)
{
	char tracefs[PATH_MAX], name[128];
	static unsigned begun;
	*n = __atomic_add_fetch(&begun, 1, __ATOMIC_RELAXED);
	snprintf(name, sizeof(name), INSTANCE_PREFIX "%d-%u-%s%s", (int)getpid(), *n, what,
		 scenario);
	if (tracefs_locate(tracefs, sizeof(tracefs), NULL, 0, err, errlen))
		return -1;
	check_trace_sweep(tracefs, stderr);
	return trace_hist_begin(h, tracefs, name, err, errlen) ? -1 : 0;
}

void check_trace_begin(struct check_trace *t, bool elsewhere)
{
	char err[ERRBUF_SIZE];
	unsigned n;
	check_trace_free(t);
	t->why[0] = '\0';
	if (elsewhere) {
		check_trace_end(t);
		errbuf_printf(t->why, sizeof(t->why),
			      "it runs on another host: ftrace here counts this host's vCPUs only");
		return;
	}
	/* the scenario before's histograms, zeroed: no instance made and removed again */
	if (t->hist.dir[0] && !trace_hist_clear(&t->hist, err, sizeof(err))) {
		t->active = true;
		return;
	}
	check_trace_end(t);
	if (begin_instance(&t->hist, "", "counts", &n, err, sizeof(err)) ||
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
	/* the histograms stay on until check_trace_free: see check_calls_collect */
	t->active = false;
}

void check_trace_free(struct check_trace *t)
{
	trace_hist_table_free(&t->exits);
	trace_hist_table_free(&t->windows);
	t->read = t->active = false;
}

void check_trace_end(struct check_trace *t)
{
	check_trace_free(t);
	trace_hist_end(&t->hist);
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

/* ---- yield-trace and kick-trace ---- */

#define HC_KICK_CPU    5     /* KVM_HC_KICK_CPU: a1 the APIC ID kicked */
#define HC_SCHED_YIELD 11    /* KVM_HC_SCHED_YIELD: a0 the target's APIC ID */
#define APIC_DM_REMRD  0x300 /* the delivery mode of a kick */
#define HLT_EXIT_VMX   12    /* EXIT_REASON_HLT */
#define HLT_EXIT_SVM   0x78  /* SVM_EXIT_HLT */

enum { Y_HYPERCALL, Y_YIELD_TO, Y_YIELD_TO_RET, Y_SCHED_YIELD_TO_RET };
enum { K_HYPERCALL, K_ACCEPT, K_DELIVER_RET, K_EXIT, K_WAKEUP };

/* One trigger of a calls trace: on a tracepoint, or on kprobe event probes[probe]. */
struct calls_trigger {
	const char *system, *event, *keys; /* system NULL: the kprobe's group */
	int probe;			   /* index into probes[], or -1 */
};
static const struct calls_trigger yield_triggers[] = {
    {"kvm", "kvm_hypercall", "common_pid,nr,a0", -1},
    {NULL, NULL, NULL, 0},
    {NULL, NULL, NULL, 1},
    {NULL, NULL, NULL, 2},
};
static const struct calls_trigger kick_triggers[] = {
    {"kvm", "kvm_hypercall", "common_pid,nr,a1", -1},
    {"kvm", "kvm_apic_accept_irq", "apicid,dm", -1},
    {NULL, NULL, NULL, 3},
    {"kvm", "kvm_exit", "common_pid,exit_reason", -1},
    {"kvm", "kvm_vcpu_wakeup", "common_pid", -1},
};

void check_calls_begin(struct check_calls *c, enum check_calls_kind kind, const char *scenario,
		       bool elsewhere, const char *kvm_module)
{
	char err[ERRBUF_SIZE], group[48];
	const struct calls_trigger *t = kind == CHECK_CALLS_KICKS ? kick_triggers : yield_triggers;
	const unsigned nr = kind == CHECK_CALLS_KICKS
				? sizeof(kick_triggers) / sizeof(kick_triggers[0])
				: sizeof(yield_triggers) / sizeof(yield_triggers[0]);
	unsigned n;
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->hlt_reason = !strcmp(kvm_module, "kvm_intel") ? HLT_EXIT_VMX
			: !strcmp(kvm_module, "kvm_amd") ? HLT_EXIT_SVM
							 : 0;
	if (elsewhere) {
		errbuf_printf(c->why, sizeof(c->why),
			      "it runs on another host: ftrace here counts this host's vCPUs only");
		return;
	}
	if (begin_instance(&c->hist, kind == CHECK_CALLS_KICKS ? "kicks-" : "yields-", scenario, &n,
			   err, sizeof(err)))
		goto fail;
	snprintf(group, sizeof(group), "plerig_%d_%u", (int)getpid(), n);
	for (unsigned i = 0; i < nr; i++) {
		const struct probe *p = t[i].probe >= 0 ? &probes[t[i].probe] : NULL;
		if (p && trace_hist_kprobe(&c->hist, p->kind, group, p->event, p->probe, err,
					   sizeof(err)))
			goto fail;
		if (trace_hist_add(&c->hist, p ? group : t[i].system, p ? p->event : t[i].event,
				   p ? p->keys : t[i].keys, err, sizeof(err)))
			goto fail;
	}
	c->nr = nr;
	c->active = true;
	return;
fail:
	errbuf_printf(c->why, sizeof(c->why), "no ftrace histograms and kprobe events here: %s",
		      err);
	trace_hist_end(&c->hist);
}

void check_calls_collect(struct check_calls *c)
{
	char err[ERRBUF_SIZE];
	uint64_t dropped = 0;
	if (!c->active)
		return;
	for (unsigned i = 0; i < c->nr; i++) {
		if (trace_hist_read(&c->hist, i, &c->tab[i], err, sizeof(err))) {
			errbuf_printf(c->why, sizeof(c->why), "reading ftrace's histograms: %s",
				      err);
			goto out;
		}
		dropped += c->tab[i].dropped;
	}
	if (dropped)
		errbuf_printf(c->why, sizeof(c->why),
			      "ftrace's histograms were full (%" PRIu64 " hits dropped): no "
			      "complete count to compare",
			      dropped);
	else
		c->read = true;
out:
	/*
	 * The triggers stay on (check_calls_free removes them) after the first
	 * run's counts are read: the rounds run again after it (another
	 * regime's, --budget's) must run as that run's did, each kvm_exit
	 * through the same histograms. Ended here, a rep-pause round run again
	 * measured 4 331-4 341 acq/s against the first run's 3 602-3 615 (23
	 * emulated us more per exit there), so every round run again was
	 * "another regime" itself and left out too (a gate of 2026-12-03: 5
	 * rounds left out, 4 run again, 3 kept).
	 */
	c->active = false;
}

void check_calls_free(struct check_calls *c)
{
	trace_hist_end(&c->hist);
	for (unsigned i = 0; i < CHECK_CALLS_MAX; i++)
		trace_hist_table_free(&c->tab[i]);
	c->read = c->active = false;
}

static bool calls_unread(const struct check_calls *c, char *detail, size_t len)
{
	if (c->read)
		return false;
	snprintf(detail, len, "%s", c->why[0] ? c->why : "ftrace's counts were not read");
	return true;
}

static uint64_t stat_sum(const struct variant_result *r, enum kvm_vcpu_stat s, bool *valid)
{
	uint64_t n = 0;
	*valid = r->nr_records > 0;
	for (unsigned i = 0; i < r->nr_records; i++) {
		*valid &= r->records[i].kvm.valid[s];
		n += r->records[i].kvm.value[s];
	}
	return n;
}

static const struct vcpu_record *record_of(const struct variant_result *r, uint64_t tid)
{
	for (unsigned i = 0; i < r->nr_records; i++)
		if ((uint64_t)r->records[i].tid == tid)
			return &r->records[i];
	return NULL;
}

/* Hits per value of a return kretprobe, "ret=1: 5, ret=-1: 2" (the returns as s32). */
static void returns(const struct trace_hist_table *t, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < t->n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%sret=%d: %" PRIu64, i ? ", " : "",
				       (int32_t)t->entries[i].key[0], t->entries[i].hits);
	if (!t->n)
		snprintf(buf, len, "none");
}

enum trace_verdict check_calls_judge_yields(const struct check_calls *c,
					    const struct variant_result *r, char *detail,
					    size_t len)
{
	char rets[160], srets[160];
	bool valid, svalid;
	if (calls_unread(c, detail, len))
		return TRACE_UNJUDGED;
	const uint64_t attempted = stat_sum(r, KVM_STAT_DIRECTED_YIELD_ATTEMPTED, &valid);
	const uint64_t successful = stat_sum(r, KVM_STAT_DIRECTED_YIELD_SUCCESSFUL, &svalid);
	if (!valid || !svalid) {
		snprintf(detail, len,
			 "no directed_yield_attempted/successful stats on this kernel");
		return TRACE_UNJUDGED;
	}
	uint64_t calls = 0, to_self = 0, reached = 0;
	const struct trace_hist_table *h = &c->tab[Y_HYPERCALL];
	for (unsigned i = 0; i < h->n; i++) {
		const struct trace_hist_entry *e = &h->entries[i];
		if (e->key[1] != HC_SCHED_YIELD)
			continue;
		calls += e->hits;
		const struct vcpu_record *rec = record_of(r, e->key[0]);
		to_self += rec && rec->vcpu == e->key[2] ? e->hits : 0;
	}
	for (unsigned i = 0; i < c->tab[Y_YIELD_TO].n; i++)
		reached += c->tab[Y_YIELD_TO].entries[i].hits;
	returns(&c->tab[Y_YIELD_TO_RET], rets, sizeof(rets));
	returns(&c->tab[Y_SCHED_YIELD_TO_RET], srets, sizeof(srets));
	const bool counted = calls > 0 && calls >= attempted;
	const bool aimed = calls > 0 && to_self == 0 && successful > 0;
	snprintf(detail, len,
		 "%s%" PRIu64 " KVM_HC_SCHED_YIELD traced (kvm:kvm_hypercall, whole runs), "
		 "directed_yield_attempted %" PRIu64 " (measured interval), successful %" PRIu64
		 "; %" PRIu64
		 " of them name the yielding vCPU itself; kvm_vcpu_yield_to ran %" PRIu64
		 " times (PAUSE-loop exits' directed yields included), returned %s; yield_to "
		 "returned %s",
		 !counted ? "fewer yields traced than KVM attempted: "
		 : !aimed ? "a yield to the caller itself, or none succeeded: "
			  : "",
		 calls, attempted, successful, to_self, reached, rets, srets);
	return counted && aimed ? TRACE_AGREES : TRACE_DIFFERS;
}

/* Hits of table @t whose key @k equals @v (key @k2 equal to @v2 unless @k2 < 0), by key @by. */
static uint64_t hits_where(const struct trace_hist_table *t, unsigned by, uint64_t of, int k2,
			   uint64_t v2)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < t->n; i++)
		if (t->entries[i].key[by] == of && (k2 < 0 || t->entries[i].key[k2] == v2))
			n += t->entries[i].hits;
	return n;
}

enum trace_verdict check_calls_judge_kicks(const struct check_calls *c,
					   const struct variant_result *r, char *detail, size_t len)
{
	if (calls_unread(c, detail, len))
		return TRACE_UNJUDGED;
	/* with PLE off a run has no PAUSE reason: the host's module tells */
	const uint32_t hlt = r->ple_exit_reason == PLE_EXIT_REASON_VMX	 ? HLT_EXIT_VMX
			     : r->ple_exit_reason == PLE_EXIT_REASON_SVM ? HLT_EXIT_SVM
									 : c->hlt_reason;
	struct halt_path g;
	halt_path_for_variant(r, &g);
	if (!g.valid) {
		snprintf(detail, len, "%s", g.why ? g.why : "no halt path in this run");
		return TRACE_UNJUDGED;
	}
	if (!hlt) {
		snprintf(detail, len, "no VMX or SVM exit reasons on this host: halt exits untold");
		return TRACE_UNJUDGED;
	}
	const struct trace_hist_table *hc = &c->tab[K_HYPERCALL], *acc = &c->tab[K_ACCEPT],
				      *ret = &c->tab[K_DELIVER_RET], *ex = &c->tab[K_EXIT],
				      *wk = &c->tab[K_WAKEUP];
	uint64_t sent = 0, halts = 0;
	/* every APIC kicked was kicked as often as it accepted a kick, and the other way */
	for (unsigned i = 0; i < hc->n; i++)
		if (hc->entries[i].key[1] == HC_KICK_CPU) {
			const uint64_t apic = hc->entries[i].key[2];
			sent += hc->entries[i].hits;
			const uint64_t kicked = hits_where(hc, 2, apic, 1, HC_KICK_CPU);
			const uint64_t accepted = hits_where(acc, 0, apic, 1, APIC_DM_REMRD);
			if (kicked != accepted) {
				snprintf(detail, len,
					 "APIC ID %" PRIu64 " kicked %" PRIu64
					 " times (KVM_HC_KICK_CPU), accepted %" PRIu64
					 " kicks (kvm:kvm_apic_accept_irq, APIC_DM_REMRD)",
					 apic, kicked, accepted);
				return TRACE_DIFFERS;
			}
		}
	uint64_t accepted = 0;
	for (unsigned i = 0; i < acc->n; i++)
		accepted += acc->entries[i].key[1] == APIC_DM_REMRD ? acc->entries[i].hits : 0;
	const unsigned last = r->variant.vcpus ? r->variant.vcpus - 1 : 0;
	const uint64_t delivered = hits_where(ret, 0, 1, -1, 0);
	char rets[160];
	returns(ret, rets, sizeof(rets));
	if (!sent || accepted != sent || delivered != sent || ret->n != 1 ||
	    !hits_where(acc, 0, last, 1, APIC_DM_REMRD)) {
		snprintf(detail, len,
			 "%" PRIu64 " kicks sent (KVM_HC_KICK_CPU), %" PRIu64
			 " accepted by an APIC, kvm_irq_delivery_to_apic returned %s; the last "
			 "vCPU's APIC (ID %u) accepted %" PRIu64,
			 sent, accepted, rets, last, hits_where(acc, 0, last, 1, APIC_DM_REMRD));
		return TRACE_DIFFERS;
	}
	/* every halt exit of a thread ended in a wake-up of that thread, and the other way */
	for (int pass = 0; pass < 2; pass++) {
		const struct trace_hist_table *t = pass ? wk : ex;
		for (unsigned i = 0; i < t->n; i++) {
			const uint64_t tid = t->entries[i].key[0];
			if (!pass && t->entries[i].key[1] != hlt)
				continue;
			const uint64_t x = hits_where(ex, 0, tid, 1, hlt),
				       w = hits_where(wk, 0, tid, -1, 0);
			if (x != w) {
				snprintf(detail, len,
					 "thread %" PRIu64 ": %" PRIu64
					 " halt exits (kvm:kvm_exit, reason %u), %" PRIu64
					 " wake-ups (kvm:kvm_vcpu_wakeup)",
					 tid, x, hlt, w);
				return TRACE_DIFFERS;
			}
			halts += pass ? 0 : t->entries[i].hits;
		}
	}
	if (!halts || g.halts > halts || g.kicks_sent > sent) {
		snprintf(detail, len,
			 "the guest (measured interval): %" PRIu64 " halts, %" PRIu64
			 " kicks sent; traced (whole runs): %" PRIu64 " halt exits, %" PRIu64
			 " kicks",
			 g.halts, g.kicks_sent, halts, sent);
		return TRACE_DIFFERS;
	}
	snprintf(detail, len,
		 "%" PRIu64 " kicks, each accepted by the APIC it named (the last vCPU's "
		 "too), kvm_irq_delivery_to_apic returned %s; %" PRIu64
		 " halt exits, as many wake-ups per thread; the guest's %" PRIu64
		 " halts and %" PRIu64 " kicks sent (measured interval) within them",
		 sent, rets, halts, g.halts, g.kicks_sent);
	return TRACE_AGREES;
}
