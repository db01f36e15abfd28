/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `plerig doctor`: can this host run PLE experiments, and what is missing?
 * Every probe ends in one finding, with the fix where something is
 * missing; --json gives the same as data.
 */
#ifndef PLERIG_DOCTOR_H
#define PLERIG_DOCTOR_H

#include <stddef.h>
#include <stdio.h>

#include "doctor/findings.h"

/* Run every probe into @f (cleared first). */
void doctor_collect(struct doctor_findings *f);
void doctor_print_text(FILE *out, const struct doctor_findings *f);
/* 0, or -1 with @err. */
int doctor_print_json(FILE *out, const struct doctor_findings *f, char *err, size_t errlen);

#endif
