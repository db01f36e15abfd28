// SPDX-License-Identifier: GPL-2.0
#include "doctor/doctor.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void doctor_add(struct doctor_report *r, const char *key, const char *title,
		enum doctor_verdict verdict, const char *fmt, ...)
{
	if (r->n == DOCTOR_MAX_CHECKS)
		return;
	struct doctor_check *c = &r->checks[r->n++];
	memset(c, 0, sizeof(*c));
	snprintf(c->key, sizeof(c->key), "%s", key);
	snprintf(c->title, sizeof(c->title), "%s", title);
	c->verdict = verdict;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
}

void doctor_fix(struct doctor_report *r, const char *fmt, ...)
{
	if (!r->n)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->checks[r->n - 1].fix, sizeof(r->checks[r->n - 1].fix), fmt, ap);
	va_end(ap);
}

const char *doctor_verdict_name(enum doctor_verdict v)
{
	switch (v) {
	case DOCTOR_OK:
		return "ok";
	case DOCTOR_INFO:
		return "info";
	case DOCTOR_WARN:
		return "warn";
	case DOCTOR_NO:
		return "no";
	}
	return "?";
}

void doctor_collect(struct doctor_report *r)
{
	memset(r, 0, sizeof(*r));
	/* KVM first: the PLE checks read the module it found */
	doctor_check_kvm(r);
	doctor_check_ple(r);
	doctor_check_tracing(r);
	doctor_check_tools(r);
	doctor_check_cpus(r);
}
