// SPDX-License-Identifier: GPL-2.0
#include "cli/option_values.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/comma_list.h"
#include "util/errbuf.h"
#include "util/strfmt.h"

int opt_parse_u64(const char *opt, const char *s, unsigned long long min, unsigned long long max,
		  unsigned long long *out, char *err, size_t errlen)
{
	if (!*s)
		return errbuf_printf(err, errlen, "%s: empty value (allowed: %llu..%llu)", opt, min,
				     max);
	/* a negative number is a number, just not an allowed one */
	if (s[0] == '-' && str_all_digits(s + 1))
		return errbuf_printf(err, errlen, "%s: '%s' out of range (%llu..%llu)", opt, s, min,
				     max);
	if (!str_all_digits(s))
		return errbuf_printf(err, errlen,
				     "%s: '%s' is not a whole number (allowed: %llu..%llu)", opt, s,
				     min, max);
	errno = 0;
	unsigned long long v = strtoull(s, NULL, 10);
	if (errno == ERANGE || v < min || v > max)
		return errbuf_printf(err, errlen, "%s: '%s' out of range (%llu..%llu)", opt, s, min,
				     max);
	*out = v;
	return 0;
}

int opt_parse_unsigned(const char *opt, const char *s, unsigned min, unsigned max, unsigned *out,
		       char *err, size_t errlen)
{
	unsigned long long v;

	if (opt_parse_u64(opt, s, min, max, &v, err, errlen))
		return -1;
	*out = (unsigned)v;
	return 0;
}

/*
 * Plain decimal only ("2", "0.5", "1e-3"): strtod would also take "inf",
 * "nan" and hex floats, none of which is a sane duration.
 */
static bool decimal_chars(const char *s)
{
	if (!isdigit((unsigned char)s[0]) && s[0] != '.' && s[0] != '-')
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s) && !strchr(".eE+-", *s))
			return false;
	return true;
}

const char *opt_real_range_text(const struct real_range *r, char *buf, size_t len)
{
	/* %.15g: whole numbers without a fraction or an exponent, 1e9 included */
	snprintf(buf, len, "%s %.15g, at most %.15g", r->min_open ? ">" : ">=", r->min, r->max);
	return buf;
}

int opt_parse_real(const char *opt, const char *s, const struct real_range *r, double *out,
		   char *err, size_t errlen)
{
	char text[96];
	char *end;

	opt_real_range_text(r, text, sizeof(text));
	if (!*s)
		return errbuf_printf(err, errlen, "%s: empty value (allowed: %s)", opt, text);
	errno = 0;
	double v = decimal_chars(s) ? strtod(s, &end) : NAN;
	if (isnan(v) || *end)
		return errbuf_printf(err, errlen, "%s: '%s' is not a number (allowed: %s)", opt, s,
				     text);
	if (errno == ERANGE || !isfinite(v) || v < r->min || (r->min_open && v == r->min) ||
	    v > r->max)
		return errbuf_printf(err, errlen, "%s: '%s' out of range (%s)", opt, s, text);
	*out = v;
	return 0;
}

int opt_parse_path(const char *opt, const char *s, const char **out, char *err, size_t errlen)
{
	if (!*s)
		return errbuf_printf(err, errlen, "%s: empty file name", opt);
	*out = s;
	return 0;
}

int opt_parse_name(const char *opt, const struct name_table *t, const char *s, unsigned *out,
		   char *err, size_t errlen)
{
	char allowed[256];
	int v = name_lookup(t, s);

	if (v < 0)
		return errbuf_printf(err, errlen, "%s: unknown %s '%s' (allowed: %s)", opt, t->what,
				     s, name_list(t, allowed, sizeof(allowed)));
	*out = (unsigned)v;
	return 0;
}

int opt_parse_name_list(const char *opt, const struct name_table *t, const char *s, unsigned *out,
			unsigned max, unsigned *nr, char *err, size_t errlen)
{
	char allowed[256], item[LIST_ITEM_MAX];
	const char *p = s;
	unsigned n = 0;
	int rc;

	name_list(t, allowed, sizeof(allowed));
	while ((rc = list_next(&p, item, sizeof(item))) > 0) {
		unsigned v;
		if (opt_parse_name(opt, t, item, &v, err, errlen))
			return -1;
		for (unsigned i = 0; i < n; i++)
			if (out[i] == v)
				return errbuf_printf(err, errlen, "%s: '%s' listed twice in '%s'",
						     opt, item, s);
		/* distinct names of the table: n reaches max only if max < t->count */
		if (n == max)
			return errbuf_printf(err, errlen, "%s: more than %u values in '%s'", opt,
					     max, s);
		out[n++] = v;
	}
	if (rc < 0)
		return list_item_error(opt, s, rc, allowed, err, errlen);
	*nr = n;
	return 0;
}
