/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vocabulary of every named axis and choice: what the command line
 * accepts, what the table, JSON and CSV print, and what compare reads
 * back. One table per axis, so the words can never drift apart.
 */
#ifndef PLERIG_NAMES_H
#define PLERIG_NAMES_H

#include <stddef.h>

struct name_table {
	const char *what; /* "relax", for messages: "unknown relax 'x'" */
	unsigned count;	  /* values 0..count-1; a NULL name is no value */
	const char *const *names;
};

extern const struct name_table backend_names;
extern const struct name_table lock_names;
extern const struct name_table relax_names;
extern const struct name_table ple_names;
extern const struct name_table ring_choice_names; /* --ring: user, kernel, auto */
extern const struct name_table pin_names;	  /* --pin: each, float */
extern const struct name_table order_names;	  /* --order */
extern const struct name_table inject_names;	  /* --inject */
extern const struct name_table accel_names;	  /* --accel: kvm, tcg */
extern const struct name_table reference_axis_names;

/* "?" for a value out of range, so that a corrupt record still prints. */
const char *name_of(const struct name_table *t, unsigned v);
/* The value named @s, or -1. */
int name_lookup(const struct name_table *t, const char *s);
/* "a, b, c" into @buf: the allowed values, for error messages and --help. */
const char *name_list(const struct name_table *t, char *buf, size_t len);

#endif
