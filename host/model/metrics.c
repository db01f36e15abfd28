// SPDX-License-Identifier: GPL-2.0
#include "model/metrics.h"

#include <math.h>
#include <string.h>

static double acq_per_s(const struct figures *f)
{
	return f->acq_per_s;
}

static double acq_per_cpu_s(const struct figures *f)
{
	return f->acq_per_cpu_s;
}

static double wait_p50_ns(const struct figures *f)
{
	return f->wait_p50_ns;
}

static double wait_p99_ns(const struct figures *f)
{
	return f->wait_p99_ns;
}

static double wait_max_ns(const struct figures *f)
{
	return f->wait_max_ns;
}

static double stalls(const struct figures *f)
{
	return (double)f->stalls;
}

static double stalled_share(const struct figures *f)
{
	return f->stalled_share;
}

static double holder_preemptions(const struct figures *f)
{
	return (double)f->holder_preemptions;
}

static double run_delay_share(const struct figures *f)
{
	return f->run_delay_share;
}

static double foreign_cpu_share(const struct figures *f)
{
	return f->foreign_cpu_share;
}

static double exits(const struct figures *f)
{
	return f->exits_valid ? (double)f->exits : NAN;
}

double metric_ratio(double num, bool num_valid, double den, const char **why)
{
	if (why)
		*why = NULL;
	if (!num_valid || isnan(num) || isnan(den))
		return NAN;
	if (den == 0.0) {
		if (why)
			*why = "no acquisition in the measured interval: nothing to divide by";
		return NAN;
	}
	return num / den;
}

/*
 * What the hypervisor did per acquisition of the lock: behaviour, not
 * speed. A PLE change may move them either way on purpose, so neither
 * direction is better: a change beyond the threshold is flagged both ways.
 */
static double per_acquisition(uint64_t n, bool valid, const struct figures *f)
{
	return metric_ratio((double)n, valid, (double)f->acquisitions, NULL);
}

static double ple_exits_per_acq(const struct figures *f)
{
	return per_acquisition(f->pause_loop_exits, f->pause_loop_exits_valid, f);
}

/*
 * PAUSE-loop exits per second of the measured interval: how often KVM took
 * one, whatever each hand-off of the lock cost. Behaviour too (either way).
 */
static double ple_exits_per_s(const struct figures *f)
{
	return f->ple_exits_per_s;
}

static double ple_window_updates_per_acq(const struct figures *f)
{
	return per_acquisition(f->ple_window_updates, f->ple_window_updates_valid, f);
}

/*
 * Lock pvqspin's halt path: how long a kicked waiter's vCPU took to run
 * again (lower is better), and how often the guest halted and KVM took a
 * halt exit, woke a halted vCPU or found its wake-up while polling
 * (halt_successful_poll) per acquisition (behaviour: either way).
 * n/a where the lock did not halt, or where KVM's stats lack the count.
 */
static double kick_latency_p50_ns(const struct figures *f)
{
	return f->kick_p50_ns;
}

static double kick_latency_p99_ns(const struct figures *f)
{
	return f->kick_p99_ns;
}

static double halts_per_acq(const struct figures *f)
{
	return per_acquisition(f->halts, f->halts_valid, f);
}

static double halt_exits_per_acq(const struct figures *f)
{
	return per_acquisition(f->halt_exits, f->halt_exits_valid, f);
}

static double halt_wakeups_per_acq(const struct figures *f)
{
	return per_acquisition(f->halt_wakeups, f->halt_wakeups_valid, f);
}

static double halt_polls_per_acq(const struct figures *f)
{
	return per_acquisition(f->halt_polls, f->halt_polls_valid, f);
}

/*
 * The why_key of each: the reason output/json_writer.c writes beside a
 * null. why_key, num and den may name a member of an object inside the
 * summary, as a dotted path ("halt_path.kvm.halt_exits").
 */
static const char *cpu_why(const struct figures *f)
{
	return f->cpu_why;
}

static const char *exits_why(const struct figures *f)
{
	return f->exits_why;
}

static const char *halt_stats_why(const struct figures *f)
{
	return f->halt_stats_why;
}

static const char *halts_why(const struct figures *f)
{
	return f->halts_why;
}

static const char *kick_why(const struct figures *f)
{
	return f->kick_why;
}

static const char *ple_why(const struct figures *f)
{
	return f->ple_why;
}

static const char *ple_rate_why(const struct figures *f)
{
	return f->ple_rate_why;
}

static const char *ple_window_why(const struct figures *f)
{
	return f->ple_window_why;
}

static const char *rate_why(const struct figures *f)
{
	return f->rate_why;
}

static const char *share_why(const struct figures *f)
{
	return f->share_why;
}

static const char *wait_why(const struct figures *f)
{
	return f->wait_why;
}

const struct metric metrics[] = {
    {"acq_per_s", "acq/s", +1, 1, acq_per_s, rate_why, "rate_unavailable", NULL, NULL},
    {"acq_per_cpu_s", "acq/cpu-s", +1, 0, acq_per_cpu_s, cpu_why, "acq_per_cpu_s_unavailable", NULL,
     NULL},
    {"wait_p50_ns", "wait-p50", -1, 0, wait_p50_ns, wait_why, "wait_unavailable", NULL, NULL},
    {"wait_p99_ns", "wait-p99", -1, 1, wait_p99_ns, wait_why, "wait_unavailable", NULL, NULL},
    {"wait_max_ns", "wait-max", -1, 0, wait_max_ns, wait_why, "wait_unavailable", NULL, NULL},
    {"stalls", "stalls", -1, 0, stalls, NULL, NULL, NULL, NULL},
    {"stalled_share", "stalled", -1, 1, stalled_share, rate_why, "rate_unavailable", NULL, NULL},
    {"holder_preemptions", "lhp", -1, 1, holder_preemptions, NULL, NULL, NULL, NULL},
    {"run_delay_share", "run-delay", -1, 1, run_delay_share, share_why,
     "run_delay_share_unavailable", NULL, NULL},
    {"exits", "exits", -1, 0, exits, exits_why, "exits_unavailable", NULL, NULL},
    {"ple_exits_per_acq", "ple/acq", 0, 0, ple_exits_per_acq, ple_why,
     "pause_loop_exits_unavailable", "pause_loop_exits", "acquisitions"},
    {"ple_exits_per_s", "ple/s", 0, 0, ple_exits_per_s, ple_rate_why, "ple_exits_per_s_unavailable",
     NULL, NULL},
    {"ple_window_updates_per_acq", "win/acq", 0, 0, ple_window_updates_per_acq, ple_window_why,
     "ple_window_updates_unavailable", "ple_window_updates", "acquisitions"},
    {"kick_latency_p50_ns", "kick-p50", -1, 0, kick_latency_p50_ns, kick_why,
     "halt_path.kick_latency_unavailable", "halt_path.kick_latency_p50_ns", NULL},
    {"kick_latency_p99_ns", "kick-p99", -1, 0, kick_latency_p99_ns, kick_why,
     "halt_path.kick_latency_unavailable", "halt_path.kick_latency_p99_ns", NULL},
    {"halts_per_acq", "halt/acq", 0, 0, halts_per_acq, halts_why, "halt_path.unavailable",
     "halt_path.halts", "acquisitions"},
    {"halt_exits_per_acq", "hltx/acq", 0, 0, halt_exits_per_acq, halt_stats_why,
     "halt_path.kvm_unavailable", "halt_path.kvm.halt_exits", "acquisitions"},
    {"halt_wakeups_per_acq", "wake/acq", 0, 0, halt_wakeups_per_acq, halt_stats_why,
     "halt_path.kvm_unavailable", "halt_path.kvm.halt_wakeup", "acquisitions"},
    {"halt_polls_per_acq", "poll/acq", 0, 0, halt_polls_per_acq, halt_stats_why,
     "halt_path.kvm_unavailable", "halt_path.kvm.halt_successful_poll", "acquisitions"},
};

const unsigned nr_metrics = sizeof(metrics) / sizeof(metrics[0]);

const struct metric foreign_load_metric = {
    "foreign_cpu_share",       "foreign", -1,  0, foreign_cpu_share, NULL,
    "foreign_cpu_unavailable", NULL,	  NULL};

const struct metric *metric_by_name(const char *name)
{
	for (unsigned i = 0; i < nr_metrics; i++)
		if (!strcmp(metrics[i].name, name))
			return &metrics[i];
	return NULL;
}

const char *metric_why(const struct metric *m, const struct figures *f)
{
	const char *why = m->why ? m->why(f) : NULL;
	return why ? why : "not measured";
}

const char *metric_better_name(const struct metric *m)
{
	return m->better > 0 ? "higher" : m->better < 0 ? "lower" : "either";
}
