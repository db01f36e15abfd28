// SPDX-License-Identifier: GPL-2.0
#include "measure/trace_filter.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/errbuf.h"

int trace_filter_parse(const char *text, const struct trace_format *fmt, struct trace_filter *f,
		       char *err, size_t errlen)
{
	char name[48];
	const char *p = text;
	size_t n = 0;
	while (isspace((unsigned char)*p))
		p++;
	while ((isalnum((unsigned char)*p) || *p == '_') && n < sizeof(name) - 1)
		name[n++] = *p++;
	name[n] = '\0';
	while (isspace((unsigned char)*p))
		p++;
	if (!n || strncmp(p, "==", 2))
		return errbuf_printf(err, errlen, "filter \"%s\": expected FIELD == NUMBER", text);
	p += 2;
	while (isspace((unsigned char)*p))
		p++;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(p, &end, 0);
	while (isspace((unsigned char)*end))
		end++;
	if (end == p || *end || errno || *p == '-')
		return errbuf_printf(err, errlen, "filter \"%s\": \"%s\" is not a number", text, p);
	char why[ERRBUF_SIZE];
	const struct trace_field *field = trace_format_integer_field(fmt, name, why, sizeof(why));
	if (!field)
		return errbuf_printf(err, errlen, "filter \"%s\": %s", text, why);
	f->field = *field;
	f->value = v;
	return 0;
}

bool trace_filter_match(const struct trace_filter *f, const void *raw, size_t size)
{
	uint64_t v;
	if (trace_field_value(&f->field, raw, size, &v))
		return false;
	/* the kernel compares at the field's width */
	if (f->field.size < 8)
		v &= (1ull << (f->field.size * 8)) - 1;
	uint64_t want =
	    f->field.size < 8 ? f->value & ((1ull << (f->field.size * 8)) - 1) : f->value;
	return v == want;
}
