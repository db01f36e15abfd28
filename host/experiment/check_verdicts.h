/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `plerig check`'s verdict on one tested comparison: a regression, not
 * comparable (the host busier than when the baseline was recorded), too
 * noisy to judge, or a pass; one case each, with its figures.
 */
#ifndef PLERIG_CHECK_VERDICTS_H
#define PLERIG_CHECK_VERDICTS_H

#include "experiment/check_figures.h"

/* @t's case, its p already Holm-adjusted. 0, or -1 out of memory. */
int check_emit_verdict(struct check_ctx *k, const struct check_tested *t);

#endif
