/* SPDX-License-Identifier: GPL-2.0 */
/* The experiment matrix: `plerig run` options -> the list of variants to run. */
#ifndef PLERIG_MATRIX_H
#define PLERIG_MATRIX_H

#include "model/backend_limits.h"
#include "model/plan.h"
#include "model/variant.h"

/*
 * Cartesian product of the axes, in the order backend, vcpus, lock, ple, relax
 * (relax innermost, so variants that differ only in the relax instruction
 * are adjacent in the table). --ring auto becomes @ring_auto[backend], which
 * the caller picks for each backend. On success *out is a calloc'ed array of
 * *nr variants for the caller to free(). Returns 0, or -1 if out of memory.
 */
int plan_expand(const struct run_plan *o, const enum plerig_ring ring_auto[BACKEND_COUNT],
		struct variant **out, unsigned *nr);

/* A backend x setting of the plan that plan_expand leaves out (model/backend_limits.h). */
struct left_out {
	enum backend_kind backend;
	enum backend_setting setting;
	char what[40]; /* "--ple off", "--halt-poll 50000" */
	const char *why;
};

/*
 * The settings of @o each backend of it cannot take, once per backend and
 * value, at most @max into @out: what plan_expand leaves out. Returns how many.
 */
unsigned plan_left_out(const struct run_plan *o, struct left_out *out, unsigned max);

#endif
