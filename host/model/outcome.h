/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything one `plerig run` measured: the runs of every variant, their
 * statistics, the comparisons against a reference, and the conditions
 * (host, order, seed) needed to judge them.
 */
#ifndef PLERIG_OUTCOME_H
#define PLERIG_OUTCOME_H

#include <stdbool.h>

#include "measure/host_info.h"
#include "model/plan.h"
#include "model/results.h"
#include "model/metrics.h"
#include "stats/sample_stats.h"

/* Every measured run of one variant (discarded warm-up rounds are not kept). */
struct series {
	struct variant variant;
	unsigned nr_runs; /* runs done, ok or not, in time order */
	struct variant_result *runs;
	/* per metric, over the ok runs that have a value (nr_metrics entries) */
	struct sample_stats *stats;
};

struct comparison {
	unsigned reference; /* series index */
	unsigned candidate; /* series index */
	const struct metric *metric;
	struct sample_stats base, cand;
	struct welch_result welch; /* cand - base; .valid needs >= 2 runs each */
	/*
	 * Interleaved or shuffled runs only: the two runs of each round ran
	 * next to each other, so their difference cancels drift that moves
	 * both. A t-test on the per-round differences (cand - base, in the
	 * metric's unit; every round, 0s included); diff is then the
	 * difference of the means. paired_n = 0 where runs are not paired,
	 * some value has no partner, or fewer than two rounds pair.
	 */
	struct welch_result paired;
	unsigned paired_n;
	/*
	 * The p-value the verdict rests on (paired where there is one, else
	 * Welch's), Holm-adjusted across every comparison of the report, so
	 * that many comparisons at p < 0.05 do not find changes by chance.
	 * Meaningful when holm is set; NaN where there is no test.
	 */
	bool holm;
	double p_holm;
};

/* One host of the experiment (--connect LIST), in the order given. */
struct run_host {
	struct host_info info;
	char label[64];	  /* what tables and charts call it: its name, made unique */
	char error[1024]; /* why it ran nothing (unreachable, refused), "" when it ran */
};

struct outcome {
	const char *command_line;
	struct host_info host; /* the first of @hosts: what a one-host document calls its host */
	struct run_host *hosts;
	unsigned nr_hosts;
	unsigned repeat;
	unsigned discard_rounds;
	enum run_order order;
	unsigned long long seed; /* meaningful for ORDER_SHUFFLE */
	const char *reference;	 /* "relax=pause", or NULL when nothing is compared */
	double threshold_pct;	 /* the comparisons' verdicts: model/verdict.h's rule with it */
	char reference_text[48]; /* what reference points to */
	unsigned planned_runs;	 /* variants x repeat: what an uninterrupted run does */
	struct series *series;
	unsigned nr_series;
	struct comparison *comparisons;
	unsigned nr_comparisons;
	bool interrupted;
};

/* Values of @m over the ok runs of @s that have one; returns how many. */
unsigned series_values(const struct series *s, const struct metric *m, double *out);
/*
 * Why an ok run of @s has no value of @m (the first such run's reason: it
 * may point into that run), or NULL where every ok run has one.
 */
const char *series_metric_why(const struct series *s, const struct metric *m);
/* Fill s->stats for every metric (allocates). */
int series_compute_stats(struct series *s);
void series_free(struct series *s);
/*
 * Every host's label: its name, or where two hosts share a name (two
 * daemons of one machine) "name(N)" with N its place in --connect, from 1.
 */
void run_hosts_label(struct run_host *hosts, unsigned n);
void outcome_label_hosts(struct outcome *r);
/* The label of the host @v ran on, "" in a one-host outcome (nothing to tell apart). */
const char *outcome_host_label(const struct outcome *r, const struct variant *v);
/* The name of the host @v ran on, in every outcome (one host or many). */
const char *outcome_host_name(const struct outcome *r, const struct variant *v);
void outcome_free(struct outcome *r);

#endif
