/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `plerig doctor`: can this host run PLE experiments, and what is missing?
 * Every check ends in one verdict line, with the fix where something is
 * missing; --json gives the same as data.
 */
#ifndef PLERIG_DOCTOR_H
#define PLERIG_DOCTOR_H

#include <stdarg.h>
#include <stdio.h>

#include "ple/host_params.h"

enum doctor_verdict {
	DOCTOR_OK,   /* works */
	DOCTOR_INFO, /* a fact, neither good nor bad */
	DOCTOR_WARN, /* works, with a limit the user should know */
	DOCTOR_NO,   /* missing or broken: see the fix */
};

#define DOCTOR_MAX_CHECKS 48

struct doctor_check {
	char key[32];	/* stable identifier, for JSON readers */
	char title[40]; /* what was checked, for people */
	enum doctor_verdict verdict;
	char detail[640];
	char fix[400]; /* "" when nothing to do */
};

struct doctor_report {
	unsigned n;
	struct doctor_check checks[DOCTOR_MAX_CHECKS];
	struct ple_host host; /* the KVM module and its PLE parameters */
	int cpus_online;
	int cpus_allowed;
	int smt_threads_per_core; /* 1: no SMT siblings */
};

/* Append a check (its fix, if any, follows with doctor_fix). */
__attribute__((format(printf, 5, 6))) void doctor_add(struct doctor_report *r, const char *key,
						      const char *title,
						      enum doctor_verdict verdict, const char *fmt,
						      ...);
/* Set the fix of the last check added. */
__attribute__((format(printf, 2, 3))) void doctor_fix(struct doctor_report *r, const char *fmt,
						      ...);

/* The groups of checks, each in its own file. */
void doctor_check_kvm(struct doctor_report *r);
void doctor_check_ple(struct doctor_report *r);
void doctor_check_tracing(struct doctor_report *r);
void doctor_check_tools(struct doctor_report *r);
void doctor_check_cpus(struct doctor_report *r);

void doctor_collect(struct doctor_report *r);
const char *doctor_verdict_name(enum doctor_verdict v);
void doctor_print_text(FILE *out, const struct doctor_report *r);
/* 0, or -1 with @err. */
int doctor_print_json(FILE *out, const struct doctor_report *r, char *err, size_t errlen);

#endif
