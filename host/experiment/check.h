/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine of `plerig check`: every scenario of a suite through
 * experiment_run (in memory), its expectations judged on the runs, and
 * its figures judged against this machine's baseline and/or against
 * themselves (A/A), with Holm's correction across every comparison of the
 * check. A comparison is a regression only when significant after the
 * correction AND worse than the threshold; one whose 95 % confidence
 * interval is wider than the threshold is "too noisy to judge".
 */
#ifndef PLERIG_CHECK_H
#define PLERIG_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>
#include <stdio.h>

#include "experiment/baseline_store.h"
#include "model/check_result.h"
#include "model/suite.h"

#define CHECK_DEFAULT_THRESHOLD_PCT 5.0
#define CHECK_DEFAULT_METRICS	    "acq_per_cpu_s"

struct check_config {
	const struct suite *suite;
	const char *guest_path;
	/*
	 * check --connect: every scenario runs on this one host through
	 * libvirt (its kvm variants become libvirt ones; native ones, which
	 * would run here, are skipped). on_host false: each scenario as the
	 * suite says, on this machine. @connect_uri NULL: the embedded driver.
	 * A host on this machine (host_is_this_machine) runs a scenario's
	 * params and ftrace-counts as a check without --connect does, unless
	 * @hosts_here says other hosts of the list run here at the same time.
	 */
	bool on_host;
	const char *connect_uri;
	unsigned hosts_here;	/* hosts of --connect on this machine, this one included */
	const char *host_label; /* "hostA", for progress lines; NULL or "" with one host */
	const char *const
	    *groups; /* run only scenarios in one of these; NULL-terminated; NULL all */
	const struct metric *metrics[SCENARIO_MAX_METRICS]; /* where the suite names none */
	unsigned nr_metrics;
	double threshold_pct;
	bool aa;		   /* each scenario against itself: even rounds vs odd rounds */
	struct baseline *baseline; /* loaded (compared), or to record into; NULL: none */
	bool baseline_loaded;	   /* @baseline holds a recorded baseline to compare with */
	bool record; /* put complete scenarios' figures into @baseline (empty: baseline_save merges)
		      */
	const char *no_baseline; /* a store but no baseline of this machine: why, per case */
	double budget_s;	 /* adaptive repeats: more rounds until narrow, up to this */
	FILE *progress;		 /* a line per scenario; NULL: silent */
	/*
	 * NULL, or an array that gets every scenario's first round as
	 * {"scenario": NAME, "results": plerig-results document}: what
	 * `check --report` draws.
	 */
	json_object *results;
};

/*
 * Run the suite into @out, whose host the caller has filled (it keys the
 * baseline) (check_result_free after). 0, or -1 with @err
 * when out of memory; failures of scenarios are cases, not errors.
 */
int check_suite_run(const struct check_config *c, struct check_result *out, char *err,
		    size_t errlen);

#endif
