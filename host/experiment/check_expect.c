// SPDX-License-Identifier: GPL-2.0
/*
 * A case per expectation of a scenario: the ones judged run by run here
 * (no-stalls, PAUSE-loop exits or none, directed yields, ftrace-counts),
 * progress and stalls in check_progress.c, the halt path's in
 * check_halts.c; what passed said in figures.
 */
#include "experiment/check_expect.h"
#include "experiment/check_judging.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model/exit_time_figures.h"
#include "model/halt_path.h"
#include "output/units.h"
#include "util/strfmt.h"

static uint64_t directed_yields(const struct variant_result *r, bool *valid)
{
	uint64_t n = 0;
	*valid = r->nr_records > 0;
	for (unsigned i = 0; i < r->nr_records; i++) {
		const struct kvm_stats_snapshot *s = &r->records[i].kvm;
		*valid &= s->valid[KVM_STAT_DIRECTED_YIELD_ATTEMPTED];
		n += s->value[KVM_STAT_DIRECTED_YIELD_ATTEMPTED];
	}
	return n;
}

/*
 * --exit-times against the counters of the same interval: nothing lost,
 * exits timed and at most the exits stat; PAUSE-loop exits timed and at
 * most the counted ones, with time in them (none with NOP: timed or
 * counted). 0 held (@why its figures), 1 failed (@why says how), -1 not
 * judged (@why says why).
 */
static int exit_times_hold(const struct variant_result *r, const struct figures *f, char *text,
			   size_t len)
{
	struct exit_time_figures et;
	bool valid;
	exit_time_figures_for_variant(r, &et);
	if (!et.valid) {
		const char *w = exit_time_figures_why(r, &et);
		snprintf(text, len, "no exit times: %s",
			 w ? w : "not asked for (the scenario's options need --exit-times)");
		return -1;
	}
	uint64_t stat = 0;
	valid = r->nr_records > 0;
	for (unsigned i = 0; i < r->nr_records; i++) {
		valid &= r->records[i].kvm.valid[KVM_STAT_EXITS];
		stat += r->records[i].kvm.value[KVM_STAT_EXITS];
	}
	if (et.lost) {
		snprintf(text, len,
			 "incomplete: %" PRIu64 " records lost (%" PRIu64 " unpaired, %" PRIu64
			 " cut)",
			 et.lost, et.unpaired, et.cut);
		return 1;
	}
	if (!et.exits || !(et.ns > 0) || (valid && et.exits > stat)) {
		snprintf(text, len, "%" PRIu64 " exits timed (%.0f ns), the exits stat %s%" PRIu64,
			 et.exits, et.ns, valid ? "" : "(not read) ", stat);
		return 1;
	}
	const uint64_t ple = f->pause_loop_exits_valid ? (uint64_t)f->pause_loop_exits : 0;
	if (r->variant.relax == PLERIG_RELAX_NOP) {
		if (et.ple_exits || ple) {
			snprintf(text, len,
				 "NOP: %" PRIu64 " PAUSE-loop exits timed, %" PRIu64 " counted",
				 et.ple_exits, ple);
			return 1;
		}
	} else if (!et.ple_valid || !f->pause_loop_exits_valid || !et.ple_exits ||
		   et.ple_exits > ple || !(et.ple_ns > 0) || !(et.ple_share > 0) ||
		   et.ple_share > 1) {
		snprintf(text, len,
			 "%" PRIu64 " PAUSE-loop exits timed of %" PRIu64
			 " counted%s, %.0f ns in all, %.4g of the vCPUs' time",
			 et.ple_exits, ple, f->pause_loop_exits_valid ? "" : " (not countable)",
			 et.ple_ns, et.ple_share);
		return 1;
	}
	snprintf(text, len,
		 "e.g. %" PRIu64 " exits timed (%.0f ns) of %" PRIu64
		 " in the exits stat, nothing lost; %" PRIu64 " PAUSE-loop exits timed of %" PRIu64
		 " counted",
		 et.exits, et.ns, stat, et.ple_exits, ple);
	return 0;
}

/* A verdict of a trace expectation (ftrace-counts, yield-trace, kick-trace) into @j. */
static void judge_traced(enum trace_verdict v, const char *why, unsigned run, const char *label,
			 struct judging *j)
{
	switch (v) {
	case TRACE_UNJUDGED:
		(void)pathf(j->skip_why, sizeof(j->skip_why), "%s", why);
		return;
	case TRACE_DIFFERS:
		j->judged++;
		note_failure(j, label, run, why);
		return;
	case TRACE_AGREES:
		j->judged++;
		if (!j->figures[0])
			(void)pathf(j->figures, sizeof(j->figures), "%s", why);
		return;
	}
}

/* One ok run against expectation @e: counted in @j, or a reason not to judge it. */
static void judge_run(const struct check_ctx *k, enum expectation e, const struct series *se,
		      const struct variant_result *r, unsigned run, const char *label,
		      struct judging *j)
{
	struct figures f;
	char why[512], a[32], b[32];
	bool valid;
	figures_for_variant(r, &f);
	switch (e) {
	case EXPECT_PROGRESS:
	case EXPECT_STALLS:
		return; /* over the runs together: expect_progress, expect_stalls */
	case EXPECT_NO_STALLS:
		if (!strcmp(k->out->host.kvm_module, "kvm_pvm")) {
			snprintf(j->skip_why, sizeof(j->skip_why),
				 "on kvm_pvm every host interrupt is a ~45 us exit, so a host "
				 "tick inside a critical section preempts the holder without "
				 "over-commit (%" PRIu64 " stalls here)",
				 (uint64_t)f.stalls);
			return;
		}
		if (se->variant.vms * se->variant.vcpus > se->variant.nr_pcpus) {
			snprintf(j->skip_why, sizeof(j->skip_why),
				 "over-committed (%u vCPUs on %u CPUs): stalls are expected",
				 se->variant.vms * se->variant.vcpus, se->variant.nr_pcpus);
			return;
		}
		if (f.run_delay_share > 0.001) {
			snprintf(j->skip_why, sizeof(j->skip_why),
				 "the vCPUs waited for a CPU %s of the time (run delay: other "
				 "work on their CPUs), whose preemptions make stalls",
				 units_percent(f.run_delay_share, a, sizeof(a)));
			return;
		}
		j->judged++;
		if (f.stalls) {
			snprintf(why, sizeof(why), "%" PRIu64 " stalls (%s stalled), run delay %s",
				 (uint64_t)f.stalls, units_percent(f.stalled_share, a, sizeof(a)),
				 units_percent(f.run_delay_share, b, sizeof(b)));
			note_failure(j, label, run, why);
		}
		return;
	case EXPECT_PLE_EXITS:
	case EXPECT_NO_PLE_EXITS:
		if (!f.pause_loop_exits_valid) {
			(void)pathf(j->skip_why, sizeof(j->skip_why),
				    "PAUSE-loop exits not countable: %s",
				    r->ple_why[0] ? r->ple_why : "not counted for every vCPU");
			return;
		}
		j->judged++;
		if ((e == EXPECT_PLE_EXITS) != (f.pause_loop_exits > 0)) {
			snprintf(why, sizeof(why), "%" PRIu64 " PAUSE-loop exits",
				 (uint64_t)f.pause_loop_exits);
			note_failure(j, label, run, why);
		}
		return;
	case EXPECT_DIRECTED_YIELDS: {
		uint64_t n = directed_yields(r, &valid);
		if (!valid) {
			snprintf(j->skip_why, sizeof(j->skip_why),
				 "no directed_yield_attempted stat on this kernel");
			return;
		}
		j->judged++;
		if (!n)
			note_failure(j, label, run, "0 directed yields attempted");
		return;
	}
	case EXPECT_HALTS:
		expect_halts(r, run, label, j);
		return;
	case EXPECT_FTRACE_COUNTS:
		judge_traced(check_trace_judge_run(&k->trace, r, why, sizeof(why)), why, run, label,
			     j);
		return;
	case EXPECT_YIELD_TRACE:
		judge_traced(check_calls_judge_yields(&k->yields, r, why, sizeof(why)), why, run,
			     label, j);
		return;
	case EXPECT_KICK_TRACE:
		judge_traced(check_calls_judge_kicks(&k->kicks, r, why, sizeof(why)), why, run,
			     label, j);
		return;
	case EXPECT_EXIT_TIMES:
		switch (exit_times_hold(r, &f, why, sizeof(why))) {
		case -1:
			(void)pathf(j->skip_why, sizeof(j->skip_why), "%s", why);
			return;
		case 1:
			j->judged++;
			note_failure(j, label, run, why);
			return;
		default:
			j->judged++;
			if (!j->figures[0])
				(void)pathf(j->figures, sizeof(j->figures), "%s", why);
			return;
		}
	case EXPECT_HALT_STATS:
		expect_halt_stats(r, run, label, j);
		return;
	case EXPECT_PV_FEWER_PLE_EXITS: /* over the variants together: expect_pv_fewer_ple_exits */
	case EXPECT_MODULE_PARAMS:	/* around the runs: check_params.c */
	case EXPECT_COUNT:
		break;
	}
}

/* What passed, in figures: the first variant's first ok run. */
static void describe_pass(enum expectation e, const struct outcome *rep, char *buf, size_t len)
{
	struct figures f;
	char a[32], b[32];
	buf[0] = '\0';
	for (unsigned i = 0; i < rep->nr_series; i++)
		for (unsigned r = 0; r < rep->series[i].nr_runs; r++) {
			const struct variant_result *res = &rep->series[i].runs[r];
			if (!res->ok)
				continue;
			figures_for_variant(res, &f);
			switch (e) {
			case EXPECT_STALLS:
				snprintf(buf, len,
					 "e.g. %" PRIu64 " stalls, %s stalled, run delay %s",
					 (uint64_t)f.stalls, units_percent(f.stalled_share, a, 32),
					 units_percent(f.run_delay_share, b, 32));
				return;
			case EXPECT_PLE_EXITS:
				snprintf(buf, len, "e.g. %" PRIu64 " PAUSE-loop exits",
					 (uint64_t)f.pause_loop_exits);
				return;
			case EXPECT_HALTS: {
				struct halt_path h;
				halt_path_for_variant(res, &h);
				if (!h.valid) /* a ticket run beside pvqspin: no halt path */
					continue;
				snprintf(
				    buf, len,
				    "e.g. %" PRIu64 " halts, %" PRIu64 " kicks sent, %" PRIu64
				    " received, kick to running p50 %s p99 %s",
				    h.halts, h.kicks_sent, h.kicks_received,
				    h.kicks_timed ? units_duration_ns_2sig(h.kick_p50_ns, a, 32)
						  : "n/a (no kick)",
				    h.kicks_timed ? units_duration_ns_2sig(h.kick_p99_ns, b, 32)
						  : "n/a (no kick)");
				return;
			}
			case EXPECT_HALT_STATS: {
				struct halt_path h;
				halt_path_for_variant(res, &h);
				if (!h.valid)
					continue;
				snprintf(buf, len,
					 "e.g. %" PRIu64 " halts, KVM %" PRIu64
					 " halt_exits; %" PRIu64 " kicks received, KVM %" PRIu64
					 " halt_wakeup + %" PRIu64 " successful polls",
					 h.halts, h.kvm[HALT_STAT_EXITS], h.kicks_received,
					 h.kvm[HALT_STAT_WAKEUP], h.kvm[HALT_STAT_SUCCESSFUL_POLL]);
				return;
			}
			default:
				snprintf(buf, len, "e.g. %s acq/s, %" PRIu64 " stalls",
					 units_count(f.acq_per_s, a, 32), (uint64_t)f.stalls);
				return;
			}
		}
}

/*
 * A spinning lock run beside pvqspin (--lock ticket,pvqspin) has no halt
 * path by design: the halt expectations leave it out instead of calling it
 * "not judged". Without a pvqspin variant they say why they cannot judge.
 */
static bool beside_pvqspin(enum expectation e, const struct outcome *rep, const struct series *se)
{
	if ((e != EXPECT_HALTS && e != EXPECT_HALT_STATS) ||
	    se->variant.lock == PLERIG_LOCK_PVQSPIN)
		return false;
	for (unsigned i = 0; i < rep->nr_series; i++)
		if (rep->series[i].variant.lock == PLERIG_LOCK_PVQSPIN)
			return true;
	return false;
}

int check_judge_expectations(struct check_ctx *k, const struct scenario *s,
			     const struct outcome *rep)
{
	char label[160], pass[512];
	for (unsigned e = 0; e < EXPECT_COUNT; e++) {
		/* module-params: around the runs, not on them (check_params.c) */
		if (!(s->expects & (1u << e)) || e == EXPECT_MODULE_PARAMS)
			continue;
		struct judging j = {0};
		if (e == EXPECT_PV_FEWER_PLE_EXITS)
			expect_pv_fewer_ple_exits(rep, &j);
		for (unsigned i = 0; e != EXPECT_PV_FEWER_PLE_EXITS && i < rep->nr_series; i++) {
			const struct series *se = &rep->series[i];
			if (beside_pvqspin(e, rep, se))
				continue;
			check_variant_label(&se->variant, label, sizeof(label));
			if (e == EXPECT_PROGRESS)
				expect_progress(se, label, &j);
			else if (e == EXPECT_STALLS)
				expect_stalls(se, label, &j);
			else
				for (unsigned r = 0; r < se->nr_runs; r++)
					if (se->runs[r].ok)
						judge_run(k, e, se, &se->runs[r], r, label, &j);
		}
		const char *name = expectation_name(e);
		int rc;
		if (j.failed)
			rc = check_result_add(k->out, s->name, name, CHECK_FAIL,
					      "failed %u time(s) over %u runs; first: %s", j.failed,
					      j.judged, j.first_failure);
		else if (!j.judged)
			rc = check_result_add(k->out, s->name, name, CHECK_SKIP, "%s",
					      j.skip_why[0] ? j.skip_why : "no ok run to judge");
		else {
			if (j.figures[0])
				(void)pathf(pass, sizeof(pass), "%s", j.figures);
			else
				describe_pass(e, rep, pass, sizeof(pass));
			rc = check_result_add(
			    k->out, s->name, name, CHECK_PASS, "held in %u runs; %s%s%s", j.judged,
			    pass, j.skip_why[0] ? "; not judged in some: " : "", j.skip_why);
			/* what could not be judged is said in the summary too, not only in TAP */
			if (!rc && j.skip_why[0])
				check_result_brief(k->out, "held; not judged in some: %s",
						   j.skip_why);
		}
		if (rc)
			return -1;
	}
	return 0;
}

int check_note_failed_runs(struct check_ctx *k, const struct scenario *s, const struct outcome *rep)
{
	char label[160];
	for (unsigned i = 0; i < rep->nr_series; i++)
		for (unsigned r = 0; r < rep->series[i].nr_runs; r++) {
			const struct variant_result *res = &rep->series[i].runs[r];
			if (res->ok)
				continue;
			check_variant_label(&rep->series[i].variant, label, sizeof(label));
			return check_result_add(k->out, s->name, "runs", CHECK_FAIL,
						"%s, run %u failed: %s", label, r, res->error);
		}
	return 0;
}
