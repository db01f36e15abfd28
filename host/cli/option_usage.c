// SPDX-License-Identifier: GPL-2.0
/* --help from an option table: the label, then the help and its default wrapped beside it. */
#include "cli/option_table.h"

#include <inttypes.h>
#include <string.h>

#define HELP_COLUMN 22
#define LINE_WIDTH  80
/* joins words that must stay on one line, such as "(default: 3)"; printed as a space */
#define NO_BREAK "\x1f"

/* Appends to a string that never overflows @len; too long a text is cut, not corrupted. */
static void append(char *buf, size_t len, const char *s, size_t n)
{
	size_t used = strlen(buf);

	if (used + 1 >= len)
		return;
	if (n > len - used - 1)
		n = len - used - 1;
	memcpy(buf + used, s, n);
	buf[used + n] = '\0';
}

static void append_str(char *buf, size_t len, const char *s)
{
	append(buf, len, s, strlen(s));
}

/* The values an option accepts, as {range} and {names} stand for them. */
static void range_text(const struct opt_entry *e, char *buf, size_t len)
{
	if (e->real)
		opt_real_range_text(e->real, buf, len);
	else
		snprintf(buf, len, "%llu..%llu", e->min, e->max);
}

static void expand(const struct opt_entry *e, char *buf, size_t len)
{
	const char *p = e->help;
	char value[256];

	buf[0] = '\0';
	while (*p) {
		const char *brace = strchr(p, '{');
		if (!brace) {
			append_str(buf, len, p);
			break;
		}
		append(buf, len, p, (size_t)(brace - p));
		if (!strncmp(brace, "{range}", 7)) {
			range_text(e, value, sizeof(value));
			p = brace + 7;
		} else if (!strncmp(brace, "{names}", 7) && e->names) {
			name_list(e->names, value, sizeof(value));
			p = brace + 7;
		} else {
			snprintf(value, sizeof(value), "{");
			p = brace + 1;
		}
		append_str(buf, len, value);
	}
}

/* The default as the field holds it after the defaults were applied. */
static bool default_text(const struct opt_entry *e, const void *defaults, char *buf, size_t len)
{
	const char *field = (const char *)defaults + e->off;

	if (e->def) {
		snprintf(buf, len, "%s", e->def);
		return true;
	}
	if (!defaults)
		return false;
	switch (e->kind) {
	case OPT_UNSIGNED:
		snprintf(buf, len, "%u", *(const unsigned *)field);
		return true;
	case OPT_U64:
		snprintf(buf, len, "%" PRIu64, *(const uint64_t *)field);
		return true;
	case OPT_REAL:
		snprintf(buf, len, "%.15g", *(const double *)field);
		return true;
	case OPT_PATH: {
		const char *path = *(const char *const *)field;
		snprintf(buf, len, "%s", path ? path : "none");
		return true;
	}
	case OPT_NAME:
		snprintf(buf, len, "%s", name_of(e->names, *(const unsigned *)field));
		return true;
	case OPT_NAME_LIST: {
		const unsigned *v = (const unsigned *)field;
		unsigned nr = *(const unsigned *)((const char *)defaults + e->nr_off);
		buf[0] = '\0';
		for (unsigned i = 0; i < nr; i++) {
			if (i)
				append_str(buf, len, ",");
			append_str(buf, len, name_of(e->names, v[i]));
		}
		return true;
	}
	case OPT_END:
	case OPT_HEADING:
	case OPT_FLAG:
	case OPT_CUSTOM:
	case OPT_HELP:
		break;
	}
	return false;
}

/* Greedy word wrap of @text into the help column; @col is where the cursor is now. */
static void print_wrapped(FILE *out, const char *text, int col)
{
	const char *p = text;

	while (*p) {
		size_t word = strcspn(p, " ");
		if (col > HELP_COLUMN && col + 1 + (int)word > LINE_WIDTH) {
			fprintf(out, "\n%*s", HELP_COLUMN, "");
			col = HELP_COLUMN;
		} else if (col > HELP_COLUMN) {
			fputc(' ', out);
			col++;
		}
		for (size_t i = 0; i < word; i++)
			fputc(p[i] == NO_BREAK[0] ? ' ' : p[i], out);
		col += (int)word;
		p += word;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

static void print_entry(const struct opt_entry *e, const void *defaults, FILE *out)
{
	char label[128], text[1024], def[256];
	int col;

	snprintf(label, sizeof(label), "%s%s%s--%s%s%s", e->letter ? "-" : "",
		 e->letter ? (char[]){e->letter, '\0'} : "", e->letter ? ", " : "", e->name,
		 e->metavar ? " " : "", e->metavar ? e->metavar : "");
	col = fprintf(out, "  %s", label);
	/* a label too wide for one space before the column gets a line of its own */
	if (col + 1 > HELP_COLUMN) {
		fputc('\n', out);
		col = 0;
	}
	fprintf(out, "%*s", HELP_COLUMN - col, "");
	expand(e, text, sizeof(text));
	if (e->alias) {
		append_str(text, sizeof(text), " (--");
		append_str(text, sizeof(text), e->alias);
		append_str(text, sizeof(text), ", its old name, is still accepted)");
	}
	if (default_text(e, defaults, def, sizeof(def))) {
		append_str(text, sizeof(text), " (default:" NO_BREAK);
		append_str(text, sizeof(text), def);
		append_str(text, sizeof(text), ")");
	}
	print_wrapped(out, text, HELP_COLUMN);
}

void option_table_usage(const struct opt_entry *t, const void *defaults, FILE *out)
{
	for (; t->kind != OPT_END; t++) {
		if (t->kind == OPT_HEADING)
			fprintf(out, "\n%s\n", t->help);
		else
			print_entry(t, defaults, out);
	}
}
