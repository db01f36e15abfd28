// SPDX-License-Identifier: GPL-2.0
#include "util/errbuf.h"

#include <stdarg.h>
#include <stdio.h>

static void format(char *err, size_t errlen, const char *fmt, va_list ap)
{
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
}

int errbuf_printf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	format(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

int errbuf_errno(char *err, size_t errlen, int neg_errno, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	format(err, errlen, fmt, ap);
	va_end(ap);
	return neg_errno;
}
