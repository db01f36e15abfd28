// SPDX-License-Identifier: GPL-2.0
#include "output/csv_cell.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/printable.h"

/* A decimal number as C reads it, the whole text, finite: -3.5, +2, -1e-9. */
static bool number(const char *s)
{
	char *end;
	if (!*s || strchr(s, 'x') || strchr(s, 'X') || strpbrk(s, " \t\r\n"))
		return false;
	const double v = strtod(s, &end);
	return *end == '\0' && end != s && isfinite(v);
}

bool csv_cell_formula(const char *s)
{
	return s && s[0] && strchr("=+-@\t\r", s[0]) && !number(s);
}

/* A quote inside a quoted field, doubled (RFC 4180). */
static bool csv_special(FILE *f, uint32_t cp)
{
	if (cp != '"')
		return false;
	fputs("\"\"", f);
	return true;
}

void csv_cell_write(FILE *f, const char *s, bool always_quote)
{
	if (!s)
		s = "";
	const bool formula = csv_cell_formula(s);
	/*
	 * A line break is written as \x0a by the printable rule (never a new
	 * row), but a field that holds one is quoted all the same.
	 */
	const bool quote = always_quote || formula || strpbrk(s, ",\"\n\r");

	if (quote)
		fputc('"', f);
	if (formula)
		fputc('\'', f);
	printable_write(f, s, csv_special);
	if (quote)
		fputc('"', f);
}
