/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `plerig check` found: one case per scenario x expectation and per
 * scenario x variant x metric judged against a baseline, each passed,
 * failed, skipped (with the reason) or too noisy to judge. The summary,
 * TAP and JUnit writers (output/tap_junit) read it; the exit status comes from it.
 */
#ifndef PLERIG_CHECK_RESULT_H
#define PLERIG_CHECK_RESULT_H

#include <stdbool.h>

#include "measure/host_info.h"

/* Exit statuses of `plerig check`: 77 as meson and automake read a skip. */
#define CHECK_EXIT_OK	   0
#define CHECK_EXIT_FAILED  1
#define CHECK_EXIT_USAGE   2
#define CHECK_EXIT_SKIPPED 77

enum check_outcome {
	CHECK_PASS,
	CHECK_FAIL,
	CHECK_SKIP,  /* the host cannot show it, or no baseline: with the reason */
	CHECK_NOISY, /* the confidence interval is wider than the threshold: neither */
};

struct check_case {
	char host[64]; /* check --connect: the host's label; "" on this machine alone */
	char scenario[64];
	char name[160]; /* "progress", or "acq_per_cpu_s vs baseline: kvm ticket ..." */
	enum check_outcome outcome;
	char text[1024]; /* the figures, or the reason */
	char brief[200]; /* the same in a few words, for the one-screen summary; "" none */
	double seconds;	 /* the scenario's time, on its first case */
};

struct check_result {
	struct check_case *cases;
	unsigned nr_cases, cap;
	struct host_info host;
	char suite[512];
	char baseline_key[256]; /* this machine's key in the store; "" without one */
	/* which baseline, and what differs from it: lines split at '\n', their
	 * fields made printable (util/printable) when the note was composed */
	char baseline_note[2048];
	char mode[64]; /* "expectations", "+ baseline", "+ A/A", "recording" */
	unsigned scenarios_run, scenarios_skipped;
	double seconds;
	bool interrupted;
};

/* Append a case; the text is printf'ed. 0, or -1 out of memory. */
int check_result_add(struct check_result *r, const char *scenario, const char *name,
		     enum check_outcome outcome, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The last case's few words for the summary. */
void check_result_brief(struct check_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
unsigned check_result_count(const struct check_result *r, enum check_outcome outcome);
/* 1 on any failure, else 77 when no scenario ran, else 0. */
int check_result_status(const struct check_result *r);
/* The worse of two statuses of check_result_status: 1, then 77, then 0. */
int check_status_worst(int a, int b);
/* Append @from's cases to @to, each naming @host. 0, or -1 out of memory. */
int check_result_append(struct check_result *to, const struct check_result *from, const char *host);
const char *check_outcome_name(enum check_outcome o); /* "pass", "fail", "skip", "too noisy" */
void check_result_free(struct check_result *r);

#endif
