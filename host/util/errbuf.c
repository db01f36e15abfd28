// SPDX-License-Identifier: GPL-2.0
#include "util/errbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/uri_redact.h"

static void format(char *err, size_t errlen, const char *fmt, va_list ap)
{
	if (!err || !errlen)
		return;
	/*
	 * A URI's credentials reach no message, whichever layer quoted the
	 * URI; the whole message is redacted before it is cut, since a URI
	 * cut short (qemu+ssh://u:12 of u:1234@h) reads as one without them
	 */
	char *full;
	va_list again;
	va_copy(again, ap);
	if (vasprintf(&full, fmt, again) < 0)
		full = NULL;
	va_end(again);
	if (full) {
		uri_redact(full, err, errlen);
		free(full);
		return;
	}
	vsnprintf(err, errlen, fmt, ap);
	uri_redact_in_place(err, errlen);
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
