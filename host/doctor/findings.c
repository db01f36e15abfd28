// SPDX-License-Identifier: GPL-2.0
#include "doctor/findings.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void doctor_add(struct doctor_findings *r, const char *key, const char *title,
		enum doctor_status status, const char *fmt, ...)
{
	if (r->n == DOCTOR_MAX_FINDINGS)
		return;
	struct doctor_finding *c = &r->list[r->n++];
	memset(c, 0, sizeof(*c));
	snprintf(c->key, sizeof(c->key), "%s", key);
	snprintf(c->title, sizeof(c->title), "%s", title);
	c->status = status;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
}

void doctor_fix(struct doctor_findings *r, const char *fmt, ...)
{
	if (!r->n)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->list[r->n - 1].fix, sizeof(r->list[r->n - 1].fix), fmt, ap);
	va_end(ap);
}

const char *doctor_status_name(enum doctor_status v)
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
