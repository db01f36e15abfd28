/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One expectation judged over a scenario's runs, shared by the files that
 * judge them: check_expect.c (the cases, and what is judged run by run),
 * check_progress.c (progress and stalls, over a variant's runs together)
 * and check_halts.c (the guests that halt: halts, halt-stats,
 * pv-fewer-ple-exits). What was judged, the first failure, why a part was
 * not judged, the figures a pass shows.
 */
#ifndef PLERIG_CHECK_JUDGING_H
#define PLERIG_CHECK_JUDGING_H

#include "model/outcome.h"
#include "util/strfmt.h"

struct judging {
	unsigned judged, failed;
	char first_failure[512];
	char skip_why[512];
	char figures[512];
};

static inline void note_failure(struct judging *j, const char *label, unsigned run, const char *why)
{
	if (!j->failed++)
		(void)pathf(j->first_failure, sizeof(j->first_failure), "%s, run %u: %s", label,
			    run, why);
}

static inline void note_failure_text(struct judging *j, const char *label, const char *why)
{
	if (!j->failed++)
		(void)pathf(j->first_failure, sizeof(j->first_failure), "%s: %s", label, why);
}

/* Why a part of an expectation was not judged: kept with the result, never dropped. */
static inline void note_unjudged(struct judging *j, const char *label, const char *why)
{
	if (!j->skip_why[0])
		(void)pathf(j->skip_why, sizeof(j->skip_why), "%s: %s", label, why);
}

/* check_progress.c: over @se's ok runs together. */
void expect_progress(const struct series *se, const char *label, struct judging *j);
void expect_stalls(const struct series *se, const char *label, struct judging *j);

/* check_halts.c: run @run, or (pv-fewer-ple-exits) the scenario's variants together. */
void expect_halts(const struct variant_result *r, unsigned run, const char *label,
		  struct judging *j);
void expect_halt_stats(const struct variant_result *r, unsigned run, const char *label,
		       struct judging *j);
void expect_pv_fewer_ple_exits(const struct outcome *rep, struct judging *j);

#endif
