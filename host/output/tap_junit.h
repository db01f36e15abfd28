/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `plerig check` found, three ways: a one-screen summary, TAP
 * version 13 (what prove and kselftest's runners read) and JUnit XML (one
 * testcase per scenario x expectation or metric; what CI systems show).
 */
#ifndef PLERIG_OUTPUT_CHECK_REPORT_H
#define PLERIG_OUTPUT_CHECK_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "model/check_result.h"

/* Failures and too-noisy cases with their figures, then one line of counts. */
void verdicts_summary_print(FILE *out, const struct check_result *r);
/* TAP 13 to @f: a plan, one test point per case, a YAML block with the figures. */
void verdicts_tap_print(FILE *f, const struct check_result *r);
/* JUnit XML to @f: one <testsuite> per scenario. */
void verdicts_junit_print(FILE *f, const struct check_result *r);

/* The same into @path ("-": stdout), atomically. 0, or -1 with @err. */
int verdicts_tap_write(const char *path, const struct check_result *r, char *err, size_t errlen);
int verdicts_junit_write(const char *path, const struct check_result *r, char *err, size_t errlen);

#endif
