/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `plerig tune` may search: each host parameter with its kernel
 * default (and where that default came from), the range searched on a
 * log2 scale, the coarse and the finest step, and what 0 means where 0 is
 * a setting of its own. The candidates of a search are made from it.
 */
#ifndef PLERIG_TUNE_SPACE_H
#define PLERIG_TUNE_SPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ple/host_params.h"

struct tune_param_info {
	const char *name;
	const char *module;	 /* kvm_intel, kvm_amd, or kvm (halt polling) */
	uint64_t kernel_default; /* Linux's, as the tuning anchors say */
	const char *default_source;
	double lo, hi;	     /* the range, log2 of the value */
	double coarse, fine; /* steps in log2: the first grid's and the finest refinement's */
	uint64_t max;	     /* the largest value the module takes (ushort for kvm_amd) */
	const char *zero;    /* what 0 means where it is a candidate of its own; NULL: not one */
	const char *unit;    /* "TSC cycles", "PAUSEs", "ns", "factor" */
	bool window;	     /* a PAUSE-loop window: worth expressing in PAUSEs or cycles */
};

/* The parameter @name, or NULL when tune cannot search it. */
const struct tune_param_info *tune_param_info(const char *name);
/* "ple_window, ple_gap, ...": for --help and messages. */
const char *tune_params_known(void);

/* The search of one parameter: its range and the settings it always measures. */
struct tune_space {
	char param[PLE_NAME_LEN];
	const struct tune_param_info *info;
	double lo, hi;	     /* log2 range (--param NAME=LO..HI narrows or widens it) */
	double coarse, fine; /* log2 steps */
	uint64_t max;
	bool zero;	  /* 0 is a candidate */
	bool has_current; /* the host's value when the tune began */
	uint64_t current;
	uint64_t kernel_default;
	bool ple_off; /* per-VM PLE off (KVM_CAP_X86_DISABLE_EXITS) is a candidate */
};

/*
 * @s for @name with its default range; 0, or -1 with @err when tune
 * cannot search it.
 */
int tune_space_init(struct tune_space *s, const char *name, char *err, size_t errlen);

/*
 * --param NAME=LO..HI: the range from LO to HI (values, not exponents,
 * LO >= 1, LO < HI <= the module's maximum). 0, or -1 with @err.
 */
int tune_space_set_range(struct tune_space *s, uint64_t lo, uint64_t hi, char *err, size_t errlen);

/* The value at log2 @e: 2^e rounded, at most s->max. */
uint64_t tune_space_value(const struct tune_space *s, double e);

#endif
