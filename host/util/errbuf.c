// SPDX-License-Identifier: GPL-2.0
#include "util/errbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/printable.h"
#include "util/uri_redact.h"

static void format(char *err, size_t errlen, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static void format(char *err, size_t errlen, const char *fmt, va_list ap)
{
	if (!err || !errlen)
		return;
	/*
	 * A message names files, hosts and answers from outside: it is written
	 * by the printable rule, and a URI's credentials reach no message,
	 * whichever layer quoted the URI. The rule comes first (a control
	 * character would end the word the redaction reads as a URI, and show
	 * what follows it); the whole message is redacted before it is cut,
	 * since a URI cut short (qemu+ssh://u:12 of u:1234@h) reads as one
	 * without them.
	 */
	char *full, *shown = NULL;
	va_list again;
	va_copy(again, ap);
	if (vasprintf(&full, fmt, again) < 0)
		full = NULL;
	va_end(again);
	if (full)
		shown = printable_dup(full);
	free(full);
	if (shown) {
		uri_redact(shown, err, errlen);
		free(shown);
		return;
	}
	printable_vformat(err, errlen, fmt, ap);
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
