// SPDX-License-Identifier: GPL-2.0
#include "output/html_text.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/printable.h"
#include "util/uri_redact.h"

bool markup_entity(FILE *f, uint32_t cp)
{
	switch (cp) {
	case '&':
		fputs("&amp;", f);
		return true;
	case '<':
		fputs("&lt;", f);
		return true;
	case '>':
		fputs("&gt;", f);
		return true;
	case '"':
		fputs("&quot;", f);
		return true;
	case '\'':
		fputs("&#39;", f);
		return true;
	}
	return false;
}

/*
 * A results file of an older plerig, or a hand-made one, may hold a URI's
 * credentials: hidden (util/uri_redact.h), after the printable rule, so
 * that a control character cannot end the URI early and leave the rest
 * to be shown.
 */
static const char *redacted(const char *s, char **owned)
{
	*owned = NULL;
	if (!strstr(s, "://") && !strchr(s, '?'))
		return s;
	char *shown = printable_dup(s);
	*owned = shown ? uri_redact_dup(shown) : NULL;
	free(shown);
	return *owned ? *owned : "(not shown: out of memory)";
}

static const struct printable_style html = {.special = markup_entity, .rewrite = redacted};

void html_escape(FILE *out, const char *s)
{
	if (s)
		html_printf(out, "%s", s);
}

int html_fprintf_(FILE *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int rc = printable_vfprintf(out, &html, fmt, ap);
	va_end(ap);
	return rc;
}
