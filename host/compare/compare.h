/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `plerig compare BASE.json NEW.json`: did NEW get worse than BASE?
 *
 * Variants are matched by what defines the experiment (backend, lock,
 * relax, ring, vms, vcpus, pcpus, pin, cs_cycles, think_cycles); for each
 * match and metric, Welch's t-test on the per-run values of the ok runs
 * gives the difference of the means with its p-value and 95% confidence
 * interval. The verdict is model/verdict.h's rule, with p Holm-adjusted
 * across every variant x metric that has a p-value: worse when
 * significant and the whole 95 % CI of the change at least --threshold
 * percent in the metric's bad direction.
 *
 * Exit status: 0 nothing got worse; 1 something did (or NEW has more
 * failed runs than BASE), unless the two ran on different hardware (two
 * KVM modules: kvm_intel and kvm_amd, as emulated and emulated:amd have):
 * then the verdicts say how two PLE designs differ, and are no
 * regression; 2 bad input: unreadable or malformed files,
 * wrong schema, bad options, no variant in common, or nothing testable
 * (every match has fewer than 2 ok runs on a side).
 */
#ifndef PLERIG_COMPARE_H
#define PLERIG_COMPARE_H

#include <stdbool.h>

#include "compare/results_file.h"
#include "model/verdict.h"
#include "stats/sample_stats.h"

#define COMPARE_EXIT_OK	       0
#define COMPARE_EXIT_REGRESSED 1
#define COMPARE_EXIT_BAD_INPUT 2

struct metric_comparison {
	const struct metric *metric;
	struct sample_stats base, cand;
	struct welch_result welch;
	double p_holm; /* welch.p, Holm-adjusted across every row of the set; NaN untested */
	struct judgement judgement;
	/* why an ok run of the side had no value (the file's reason), NULL where each had */
	const char *base_why, *cand_why;
};

/*
 * Why @r has no verdict because a side has no value at all (n/a in its
 * file, with the file's reason), NULL where both sides have values.
 */
const char *metric_comparison_na(const struct metric_comparison *r);

/* One variant present in both files. */
struct variant_match {
	const struct loaded_variant *base, *cand;
	struct metric_comparison *rows; /* one per compared metric */
	bool more_failures;		/* NEW has more failed runs than BASE */
	char differences[256];		/* non-identity settings that differ, or "" */
};

struct comparison_set {
	const struct results_file *base, *cand;
	double threshold_pct;
	/* match variants of different hosts where a file has several (compare --any-host) */
	bool any_host;
	const struct metric **metrics;
	unsigned nr_metrics;
	struct variant_match *matches;
	unsigned nr_matches;
	const struct loaded_variant **only_base, **only_cand;
	unsigned nr_only_base, nr_only_cand;
	unsigned verdicts[VERDICT_WORSE + 1]; /* rows per verdict */
	unsigned nr_tested;	/* rows with a p-value: the family Holm corrects over */
	unsigned more_failures; /* matches where NEW failed more */
};

/*
 * The KVM modules of two files that ran on different hardware ("kvm_intel",
 * "kvm_amd") into @base and @cand: true; false where either is not known
 * (unknown, none) or they are the same module.
 */
bool comparison_set_other_hardware(const struct comparison_set *c, const char **base,
				   const char **cand);

/* The process exit status for a finished comparison. */
int comparison_set_status(const struct comparison_set *c);

/*
 * Match the variants of c->base and c->cand and judge every metric
 * (c->threshold_pct, c->metrics set by the caller). 0, or -1 out of memory.
 */
int comparison_set_build(struct comparison_set *c);
void comparison_set_free(struct comparison_set *c);

#endif
