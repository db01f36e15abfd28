/* SPDX-License-Identifier: GPL-2.0 */
/* Bounded string building that says when it did not fit, instead of truncating silently. */
#ifndef PLERIG_STRFMT_H
#define PLERIG_STRFMT_H

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* snprintf into @buf; 0, or -ENAMETOOLONG when it did not fit (a path cut short is a wrong path).
 */
static inline __attribute__((format(printf, 3, 4))) int pathf(char *buf, size_t len,
							      const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Decimal digits only, at least one: strtoull alone would take "-1", " 5" and "0x10". */
static inline bool str_all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* Copy @src into @dst (always terminated, cut to fit). */
static inline void str_copy(char *dst, size_t len, const char *src)
{
	size_t i = 0;
	for (; i + 1 < len && src[i]; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

#endif
