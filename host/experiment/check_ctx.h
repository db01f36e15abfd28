/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of `plerig check` share while a suite runs: the run's
 * context, the figures gathered for the comparisons, and the names of
 * variants and metrics as cases and the baseline store show them. Private
 * to experiment/check_*.c.
 */
#ifndef PLERIG_CHECK_CTX_H
#define PLERIG_CHECK_CTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "experiment/check.h"
#include "experiment/check_trace.h"

/* The per-run values of one scenario x variant x metric, as the check gathers them. */
struct check_sample {
	const struct scenario *scenario;
	char variant[160];
	const struct metric *metric;
	/* foreign: the runs' foreign loads, whether the host was as busy as the baseline's */
	double *values, *foreign;
	unsigned n, nf, cap, capf;
	bool contended; /* more than one vCPU per VM: a lock holder can be preempted */
	char why[192];	/* why an ok run had no value (the first such run's reason), or "" */
};

/* The metric whose per-run values are the host's interference: kept with each baseline. */
#define FOREIGN_LOAD_METRIC "foreign_cpu_share" /* foreign_load_metric's, in the store */

struct check_ctx {
	const struct check_config *c;
	struct check_result *out;
	struct check_sample *samples;
	unsigned nr_samples, cap_samples;
	bool kvm_ok;
	char kvm_why[256];
	bool pv_yield;
	bool pv_unhalt; /* lock pvqspin halts and kicks on the kvm backend here */
	bool halt_poll; /* KVM_CAP_HALT_POLL: --halt-poll other than host runs on kvm here */
	bool moved;	/* check --connect: the scenario being run kept a backend there */
	bool elsewhere; /* check --connect to another machine: its PLE parameters and ftrace
			   are not this one's */
	struct check_trace trace; /* the scenario's ftrace counts (expect = ftrace-counts) */
	struct check_calls yields, kicks; /* expect = yield-trace, kick-trace */
	uint64_t t0;
	/*
	 * Per scenario of the suite: ran to its end, uninterrupted, every run
	 * ok. Only these are recorded: a part of a recording, or the zeros of
	 * failed runs, would replace a good baseline.
	 */
	bool *complete;
};

/*
 * Where a scenario's VMs run, as this machine's parameters, tracepoints and
 * foreign load see it: on check --connect's host, else on the hosts of the
 * scenario's own --connect (none: the embedded driver, kvm or native, all
 * on this machine).
 */
struct check_place {
	bool elsewhere; /* some of its VMs run on another machine */
	/* hosts that run VMs on this machine at once while it runs: its own, and
	   with check --connect the other hosts of the list here; 0 if none */
	unsigned here;
};
void check_scenario_place(const struct check_ctx *k, const struct scenario *s,
			  struct check_place *p);

/*
 * Why the host cannot run @s (its requires =, its CPUs, a usable KVM), in
 * @buf or a fixed text; NULL when it can. With --connect the host's module
 * may be one inferred from libvirt's capabilities: it decides the kind of
 * KVM (hw-virt, pv-unhalt), never what only reading that host would tell
 * (ple). check_requires.c.
 */
const char *check_skip_reason(const struct check_ctx *k, const struct scenario *s, char *buf,
			      size_t len);

/* "kvm ticket pause user 1x4 ple=on pcpus=0": a variant's name in cases and in the store. */
void check_variant_label(const struct variant *v, char *buf, size_t len);

/* The metrics @s is judged on: its own, or the check's where the suite names none. */
const struct metric *const *check_scenario_metrics(const struct check_ctx *k,
						   const struct scenario *s, unsigned *n);

/* Does this check judge figures at all (a baseline, A/A, recording, or why not)? */
bool check_judges_metrics(const struct check_ctx *k);

#endif
