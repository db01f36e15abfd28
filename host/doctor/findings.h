/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `plerig doctor` found: one finding per thing looked at, each with a
 * status and, where something is missing, the fix. The probes append to
 * it, doctor_collect() runs them, the writers read it: all three depend on
 * this list and it on none of them.
 */
#ifndef PLERIG_DOCTOR_FINDINGS_H
#define PLERIG_DOCTOR_FINDINGS_H

#include <stdbool.h>

#include "ple/host_params.h"

enum doctor_status {
	DOCTOR_OK,   /* works */
	DOCTOR_INFO, /* a fact, neither good nor bad */
	DOCTOR_WARN, /* works, with a limit the user should know */
	DOCTOR_NO,   /* missing or broken: see the fix */
};

#define DOCTOR_MAX_FINDINGS 48

struct doctor_finding {
	char key[32];	/* stable identifier, for JSON readers */
	char title[40]; /* what was looked at, for people */
	enum doctor_status status;
	char detail[640];
	char fix[400]; /* "" when nothing to do */
};

struct doctor_findings {
	unsigned n;
	struct doctor_finding list[DOCTOR_MAX_FINDINGS];
	struct ple_host host; /* the KVM module and its PLE parameters */
	bool kvm_device_ok;   /* /dev/kvm opened and answered the API version */
	int cpus_online;
	int cpus_allowed;
	int smt_threads_per_core; /* 1: no SMT siblings */
};

/* Append a finding (its fix, if any, follows with doctor_fix). */
__attribute__((format(printf, 5, 6))) void doctor_add(struct doctor_findings *f, const char *key,
						      const char *title,
						      enum doctor_status status, const char *fmt,
						      ...);
/* Set the fix of the last finding added. */
__attribute__((format(printf, 2, 3))) void doctor_fix(struct doctor_findings *f, const char *fmt,
						      ...);
const char *doctor_status_name(enum doctor_status v);

#endif
