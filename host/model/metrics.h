/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-variant figures that repeats are summarised and compared on,
 * each with the direction that counts as better.
 */
#ifndef PLERIG_METRICS_H
#define PLERIG_METRICS_H

#include "model/results.h"

struct metric {
	const char *name;  /* as in the JSON summary: "acq_per_s", ... */
	const char *label; /* short column title */
	/* +1: higher is better; -1: lower is better; 0: neither, any change counts */
	int better;
	int headline; /* shown in the comparison table (all of them go to JSON) */
	/* the value for one run; NaN where the run has none (e.g. exits on native) */
	double (*get)(const struct figures *f);
	/* why get gave NaN (static text; NULL where it never does): metric_why */
	const char *(*why)(const struct figures *f);
	/* in a results file's run summary, the member that says why it is null */
	const char *why_key;
	/*
	 * Where a run summary holds the figure: @num, a member or a dotted
	 * path into an object inside the summary ("halt_path.kick_latency_p50_ns");
	 * NULL: the member @name. With @den, a ratio: the summary holds its two
	 * counts, not the ratio, and a results file's reader derives it from
	 * them with metric_ratio, as get does from a run's figures.
	 */
	const char *num, *den;
};

extern const struct metric metrics[];
extern const unsigned nr_metrics;

/* "higher", "lower", or "either" (no better direction: any change counts) */
const char *metric_better_name(const struct metric *m);

/*
 * The foreign load (results.h): a condition of the host the runs met, kept
 * with a baseline to tell whether a later check compares like with like.
 * Not a figure to judge, so not in metrics[]: no comparison, no --metric.
 */
extern const struct metric foreign_load_metric;

/* Why @m is n/a in @f, where its get gave NaN: the figures' reason, never NULL. */
const char *metric_why(const struct metric *m, const struct figures *f);

/* NULL if unknown. */
const struct metric *metric_by_name(const char *name);

/*
 * A ratio metric's value from its counts, @num / @den: the one place a
 * ratio is derived, from a run's figures and from a results file alike.
 * NaN where @num was not counted (!@num_valid: the count's own reason
 * says why) or @den is 0 (*why, where @why is not NULL: static text).
 */
double metric_ratio(double num, bool num_valid, double den, const char **why);

#endif
