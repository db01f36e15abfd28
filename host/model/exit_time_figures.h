/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Time in KVM exits (--exit-times), per vCPU or summed over a run: all
 * exits, the PAUSE-loop exits among them, and the reasons that took the
 * most time, as `perf kvm stat` shows them. Where a figure cannot be had
 * exit_time_figures_why() says why, never a 0.
 */
#ifndef PLERIG_EXIT_TIME_FIGURES_H
#define PLERIG_EXIT_TIME_FIGURES_H

#include <stdbool.h>
#include <stdint.h>

#include "model/results.h"

#define EXIT_FIGURES_TOP 5 /* reasons shown, by time */

struct exit_time_figures {
	bool valid;	   /* exit times were measured (for every vCPU of a run) */
	uint64_t exits;	   /* timed exits, all reasons */
	double ns;	   /* their time */
	double share;	   /* ns / (vCPUs * interval) */
	double mean_ns;	   /* ns / exits; NaN with none */
	uint64_t seen;	   /* kvm_exit records in the interval, timed or not */
	uint64_t cut;	   /* exits across an edge of the interval: not timed */
	uint64_t unpaired; /* exits without entries and entries without exits */
	uint64_t lost;	   /* records dropped by the kernel: > 0, the figures are incomplete */
	bool ple_valid;	   /* valid, and this host has a PAUSE exit reason */
	uint64_t ple_exits;
	double ple_ns;
	double ple_mean_ns; /* NaN with no timed PAUSE-loop exit */
	double ple_share;   /* ple_ns / (vCPUs * interval): the vCPUs' time in PLE exits */
	unsigned nr_top;
	struct exit_reason_time top[EXIT_FIGURES_TOP]; /* longest total time first */
};

void exit_time_figures_for_vcpu(const struct variant_result *r, const struct vcpu_record *rec,
				struct exit_time_figures *out);
void exit_time_figures_for_variant(const struct variant_result *r, struct exit_time_figures *out);
/* Why f->valid is false, or NULL when it is not. */
const char *exit_time_figures_why(const struct variant_result *r,
				  const struct exit_time_figures *f);
/* Why f->ple_valid is false while f->valid is true, or NULL. */
const char *exit_time_figures_ple_why(const struct variant_result *r,
				      const struct exit_time_figures *f);

/*
 * kvm_exit's name for @reason as the tracepoint prints it ("PAUSE_INSTRUCTION"
 * on VMX, "pause" on SVM), for the common reasons; NULL when unknown or
 * where this host has no VMX/SVM reasons (told by r->ple_exit_reason).
 */
const char *exit_reason_name(const struct variant_result *r, uint32_t reason);

#endif
