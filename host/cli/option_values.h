/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Option values, strictly: every error names the option, the bad value and
 * what would have been accepted, so a typo never silently becomes a
 * different experiment. Each returns 0, or -1 with the message in @err.
 */
#ifndef PLERIG_OPTION_VALUES_H
#define PLERIG_OPTION_VALUES_H

#include <stdbool.h>
#include <stddef.h>

#include "model/names.h"

struct real_range {
	double min;
	bool min_open; /* min itself is not allowed */
	double max;
};

int opt_parse_u64(const char *opt, const char *s, unsigned long long min, unsigned long long max,
		  unsigned long long *out, char *err, size_t errlen);
int opt_parse_unsigned(const char *opt, const char *s, unsigned min, unsigned max, unsigned *out,
		       char *err, size_t errlen);
int opt_parse_real(const char *opt, const char *s, const struct real_range *r, double *out,
		   char *err, size_t errlen);
/* "> 0, at most 3600": the same words in --help and in the errors. */
const char *opt_real_range_text(const struct real_range *r, char *buf, size_t len);
int opt_parse_path(const char *opt, const char *s, const char **out, char *err, size_t errlen);
int opt_parse_name(const char *opt, const struct name_table *t, const char *s, unsigned *out,
		   char *err, size_t errlen);
/* Each name at most once, kept in the order given: the order variants run in. */
int opt_parse_name_list(const char *opt, const struct name_table *t, const char *s, unsigned *out,
			unsigned max, unsigned *nr, char *err, size_t errlen);

#endif
