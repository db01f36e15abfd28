/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A suite of scenarios for `plerig check`: each one a run plan, the host
 * conditions without which it is skipped (with the reason), and the
 * expectations that hold on every correct host. cli/suite_file reads them
 * from a suite file; experiment/check runs them.
 */
#ifndef PLERIG_SUITE_H
#define PLERIG_SUITE_H

#include <stdbool.h>

#include "model/metrics.h"
#include "model/plan.h"
#include "ple/host_params.h"

#define SCENARIO_NAME_LEN    64
#define SCENARIO_MAX_METRICS 8
#define SCENARIO_OPTIONS_LEN 1024

/* Invariants a scenario can state: true on every correct host, or skipped with the reason. */
enum expectation {
	EXPECT_PROGRESS,	/* every vCPU acquires (fair locks); the lock as a whole (tas) */
	EXPECT_NO_STALLS,	/* no stall where nothing took the vCPUs' CPUs */
	EXPECT_STALLS,		/* stalls and run-queue delay: over-commit shows */
	EXPECT_PLE_EXITS,	/* PAUSE-loop exits > 0, where the host has PLE */
	EXPECT_NO_PLE_EXITS,	/* 0 PAUSE-loop exits, where countable */
	EXPECT_DIRECTED_YIELDS, /* directed_yield_attempted > 0 */
	EXPECT_HALTS,		/* lock pvqspin halted and was kicked: halts, kicks > 0 */
	EXPECT_FTRACE_COUNTS,	/* each vCPU's exits, PAUSE-loop exits, window updates = ftrace's */
	EXPECT_HALT_STATS,	/* KVM's halt_exits, halt_wakeup agree with the guest's */
	EXPECT_PV_FEWER_PLE_EXITS, /* pvqspin's PLE exits/acq well below ticket's */
	EXPECT_MODULE_PARAMS, /* params = read back as asked, the originals back, kvm.ko kept */
	EXPECT_EXIT_TIMES,  /* --exit-times: whole, within the exits stat; PLE exits timed (not nop)
			     */
	EXPECT_YIELD_TRACE, /* pv-yield's hypercalls traced, none to the caller, yields succeed */
	EXPECT_KICK_TRACE,  /* pvqspin's kicks reach the APIC named, halt exits end in wake-ups */
	EXPECT_COUNT
};

/* Host conditions: a scenario whose condition fails is skipped, with the reason. */
enum requirement {
	REQUIRE_PLE,	   /* hardware PAUSE interception: kvm_intel or kvm_amd */
	REQUIRE_HW_VIRT,   /* VMX/SVM: guest ring 0 native (not PVM) */
	REQUIRE_PV_YIELD,  /* KVM offers KVM_FEATURE_PV_SCHED_YIELD and the hypercall reaches it */
	REQUIRE_PV_UNHALT, /* KVM offers KVM_FEATURE_PV_UNHALT and the hypercall reaches it */
	REQUIRE_HALT_POLL, /* KVM sets halt polling per VM (KVM_CAP_HALT_POLL): --halt-poll N */
	REQUIRE_COUNT
};

struct scenario {
	char name[SCENARIO_NAME_LEN];
	unsigned line; /* of its [section] in the suite file */
	/* `plerig run` options, the defaults' first, as shown: by util/uri_redact.h's rule */
	char options[SCENARIO_OPTIONS_LEN];
	char *argbuf;	   /* the same, split, malloc'ed: the plan's paths point into it */
	char groups[256];  /* comma-separated; "" none */
	unsigned min_cpus; /* host CPUs plerig may use; 0: any */
	unsigned requires; /* bits of enum requirement */
	unsigned expects;  /* bits of enum expectation */
	const struct metric *metrics[SCENARIO_MAX_METRICS]; /* judged against the baseline */
	unsigned nr_metrics;
	bool metrics_given; /* else the check's --metric */
	/* host PLE parameters set for this scenario's runs (a sweep point), the originals back
	 * after */
	struct ple_setting params[PLE_MAX_PARAMS];
	unsigned nr_params;
	/*
	 * other_regime = PCT: a round whose judged figure lies further than PCT %
	 * from the median of its variant's rounds, while most lie within, is in
	 * another regime: left out of the judging and the recording, and run
	 * again (at most --repeat more rounds). 0: every round counts.
	 */
	double other_regime_pct;
	struct run_plan *plan;
};

struct suite {
	char path[512];
	struct scenario *scenarios;
	unsigned nr_scenarios;
	/*
	 * [suite] host_runs_nothing_else = yes: the suite's host is a machine
	 * of its own (make ple-test's L1 under Bochs), so a foreign load it
	 * reads cannot be other work's and never makes a drop "not comparable".
	 */
	bool host_runs_nothing_else;
};

const char *expectation_name(enum expectation e);
int expectation_by_name(const char *name); /* -1 if unknown */
const char *requirement_name(enum requirement r);
int requirement_by_name(const char *name); /* -1 if unknown */
/* Is @group one of the scenario's groups (or its name)? */
bool scenario_in_group(const struct scenario *s, const char *group);
void suite_free(struct suite *s);

#endif
