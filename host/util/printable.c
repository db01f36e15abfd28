// SPDX-License-Identifier: GPL-2.0
#include "util/printable.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "util/utf8.h"

bool printable_char(uint32_t cp)
{
	if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) /* C0 (tab and line breaks too), DEL, C1 */
		return false;
	if (cp == 0x2028 || cp == 0x2029) /* line and paragraph separators */
		return false;
	/* bidirectional embeddings, overrides and isolates reorder what follows them */
	if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
		return false;
	return cp != 0xfffe && cp != 0xffff; /* noncharacters, which XML refuses */
}

/* Bytes of the character at @s (an invalid byte alone: 1, not shown); *@shown by the rule. */
static size_t next_char(const char *s, uint32_t *cp, bool *valid, bool *shown)
{
	size_t n = utf8_decode(s, cp);

	*valid = n != 0;
	*shown = n && printable_char(*cp);
	return n ? n : 1;
}

/* The first @n bytes of @s (a character boundary) by the rule. */
static void write_n(FILE *f, const char *s, size_t n, printable_special special)
{
	const char *end = s + n;

	while (s < end && *s) {
		uint32_t cp;
		bool valid, shown;
		size_t len = next_char(s, &cp, &valid, &shown);
		if (valid && special && special(f, cp)) {
			s += len;
			continue;
		}
		if (shown)
			fwrite(s, 1, len, f);
		else
			for (size_t i = 0; i < len; i++)
				fprintf(f, "\\x%02x", (unsigned char)s[i]);
		s += len;
	}
}

void printable_write(FILE *f, const char *s, printable_special special)
{
	if (s)
		write_n(f, s, strlen(s), special);
}

void printable_fputs(FILE *f, const char *s)
{
	printable_write(f, s, NULL);
}

/* Is @s[@i..] a whole escape of the rule, \xHH? */
static bool escape_at(const char *s, size_t i)
{
	return s[i] == '\\' && s[i + 1] == 'x' && isxdigit((unsigned char)s[i + 2]) &&
	       isxdigit((unsigned char)s[i + 3]);
}

size_t printable_cut(const char *s, size_t max)
{
	size_t used = 0;

	while (s[used]) {
		uint32_t cp;
		bool valid, shown;
		size_t len = next_char(s + used, &cp, &valid, &shown);
		if (used + len > max)
			break;
		used += len;
	}
	/* a text the rule made already: never half of one of its escapes */
	for (size_t back = 1; back < 4 && back <= used; back++)
		if (s[used] && escape_at(s, used - back))
			return used - back;
	return used;
}

static void pad(FILE *f, int n)
{
	for (; n > 0; n--)
		fputc(' ', f);
}

/* An argument of %s or %c: rewritten, cut to @prec (< 0: whole), written, padded to @width. */
static void put_arg(FILE *f, const char *arg, int prec, int width, bool left,
		    const struct printable_style *style)
{
	printable_special special = style ? style->special : NULL;
	char *owned = NULL;
	const char *s = style && style->rewrite ? style->rewrite(arg, &owned) : arg;
	size_t n = prec < 0 ? strlen(s) : printable_cut(s, (size_t)prec);
	char *text = NULL;
	size_t len = 0;
	FILE *m = width > 0 ? open_memstream(&text, &len) : NULL;

	if (m) {
		write_n(m, s, n, special);
		if (fclose(m) || !text) {
			free(text);
			m = NULL;
		}
	}
	if (!m) /* no width, or no memory to measure it: unpadded */
		write_n(f, s, n, special);
	else {
		if (!left && len < (size_t)width)
			pad(f, width - (int)len);
		fwrite(text, 1, len, f);
		if (left && len < (size_t)width)
			pad(f, width - (int)len);
		free(text);
	}
	free(owned);
}

static _Noreturn void unsupported(const char *fmt)
{
	fprintf(stderr, "plerig: internal error: printable_printf cannot format \"%s\"\n", fmt);
	abort();
}

/* One conversion's specification as printf reads it, '*' already taken from the arguments. */
struct conv {
	char spec[48]; /* "%-12.3ll" then the conversion */
	size_t used;
	int width, prec; /* -1: none */
	bool left;
	char length[3];
	char c;
};

static void spec_add(struct conv *cv, const char *fmt, const char *text)
{
	size_t n = strlen(text);
	if (cv->used + n + 4 > sizeof(cv->spec)) /* room for the length and the conversion */
		unsupported(fmt);
	memcpy(cv->spec + cv->used, text, n + 1);
	cv->used += n;
}

/* A number: digits at @p, or '*' from @args; its end. */
static const char *number(const char *p, va_list *args, int *out, bool *star)
{
	*star = *p == '*';
	if (*star) {
		*out = va_arg(*args, int);
		return p + 1;
	}
	*out = 0;
	for (; *p >= '0' && *p <= '9'; p++)
		*out = *out * 10 + (*p - '0');
	return p;
}

/* The specification at @p (after '%') into @cv; its end. */
static const char *parse(const char *fmt, const char *p, va_list *args, struct conv *cv)
{
	char num[16];
	bool star;

	memset(cv, 0, sizeof(*cv));
	cv->spec[cv->used++] = '%';
	for (; *p && strchr("-+ #0", *p); p++) {
		char flag[2] = {*p, '\0'};
		cv->left |= *p == '-';
		spec_add(cv, fmt, flag);
	}
	cv->width = -1;
	if ((*p >= '1' && *p <= '9') || *p == '*') {
		p = number(p, args, &cv->width, &star);
		if (cv->width < 0) { /* a negative '*' width: left-justified */
			cv->left = true;
			cv->width = cv->width == INT_MIN ? INT_MAX : -cv->width;
			spec_add(cv, fmt, "-");
		}
		snprintf(num, sizeof(num), "%d", cv->width);
		spec_add(cv, fmt, num);
	}
	cv->prec = -1;
	if (*p == '.') {
		p = number(p + 1, args, &cv->prec, &star);
		if (cv->prec < 0) /* a negative '*' precision: as if none */
			cv->prec = -1;
		else {
			snprintf(num, sizeof(num), ".%d", cv->prec);
			spec_add(cv, fmt, num);
		}
	}
	for (size_t i = 0; i < 2 && *p && strchr("hlLzjt", *p); p++, i++)
		cv->length[i] = *p;
	spec_add(cv, fmt, cv->length);
	cv->c = *p;
	if (!cv->c)
		unsupported(fmt);
	cv->spec[cv->used++] = *p;
	cv->spec[cv->used] = '\0';
	return p + 1;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void put_signed(FILE *f, const struct conv *cv, va_list *args)
{
	const char *l = cv->length;

	if (!strcmp(l, "l"))
		fprintf(f, cv->spec, va_arg(*args, long));
	else if (!strcmp(l, "ll"))
		fprintf(f, cv->spec, va_arg(*args, long long));
	else if (!strcmp(l, "z"))
		fprintf(f, cv->spec, va_arg(*args, ssize_t));
	else if (!strcmp(l, "j"))
		fprintf(f, cv->spec, va_arg(*args, intmax_t));
	else if (!strcmp(l, "t"))
		fprintf(f, cv->spec, va_arg(*args, ptrdiff_t));
	else /* none, h, hh: promoted to int */
		fprintf(f, cv->spec, va_arg(*args, int));
}

static void put_unsigned(FILE *f, const struct conv *cv, va_list *args)
{
	const char *l = cv->length;

	if (!strcmp(l, "l"))
		fprintf(f, cv->spec, va_arg(*args, unsigned long));
	else if (!strcmp(l, "ll"))
		fprintf(f, cv->spec, va_arg(*args, unsigned long long));
	else if (!strcmp(l, "z"))
		fprintf(f, cv->spec, va_arg(*args, size_t));
	else if (!strcmp(l, "j"))
		fprintf(f, cv->spec, va_arg(*args, uintmax_t));
	else if (!strcmp(l, "t"))
		fprintf(f, cv->spec, va_arg(*args, ptrdiff_t));
	else
		fprintf(f, cv->spec, va_arg(*args, unsigned int));
}

static void put_double(FILE *f, const struct conv *cv, va_list *args)
{
	if (!strcmp(cv->length, "L"))
		fprintf(f, cv->spec, va_arg(*args, long double));
	else
		fprintf(f, cv->spec, va_arg(*args, double));
}
#pragma GCC diagnostic pop

static void put_conversion(FILE *f, const char *fmt, const struct conv *cv, va_list *args,
			   const struct printable_style *style)
{
	switch (cv->c) {
	case 'd':
	case 'i':
		put_signed(f, cv, args);
		return;
	case 'u':
	case 'o':
	case 'x':
	case 'X':
		put_unsigned(f, cv, args);
		return;
	case 'f':
	case 'F':
	case 'e':
	case 'E':
	case 'g':
	case 'G':
	case 'a':
	case 'A':
		put_double(f, cv, args);
		return;
	case 'c':
		if (!cv->length[0]) {
			char s[2] = {(char)va_arg(*args, int), '\0'};
			put_arg(f, s, -1, cv->width, cv->left, style);
			return;
		}
		break;
	case 's':
		if (!cv->length[0]) {
			const char *s = va_arg(*args, const char *);
			put_arg(f, s ? s : "(null)", cv->prec, cv->width, cv->left, style);
			return;
		}
		break;
	}
	unsupported(fmt); /* %n, %p, %ls, ...: no writer needs them */
}

int printable_vfprintf(FILE *f, const struct printable_style *style, const char *fmt, va_list ap)
{
	va_list args;

	va_copy(args, ap);
	for (const char *p = fmt; *p;) {
		if (*p != '%') {
			size_t n = strcspn(p, "%");
			fwrite(p, 1, n, f);
			p += n;
		} else if (p[1] == '%') {
			fputc('%', f);
			p += 2;
		} else {
			struct conv cv;
			p = parse(fmt, p + 1, &args, &cv);
			put_conversion(f, fmt, &cv, &args, style);
		}
	}
	va_end(args);
	return ferror(f) ? -1 : 0;
}

int printable_fprintf_(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int rc = printable_vfprintf(f, NULL, fmt, ap);
	va_end(ap);
	return rc;
}

bool printable_plain(const char *s)
{
	while (*s) {
		uint32_t cp;
		bool valid, shown;
		s += next_char(s, &cp, &valid, &shown);
		if (!shown)
			return false;
	}
	return true;
}

bool printable_copy(char *dst, size_t len, const char *src)
{
	const char *s = src;
	size_t o = 0;

	if (!len)
		return false;
	while (*s) {
		uint32_t cp;
		bool valid, shown;
		size_t n = next_char(s, &cp, &valid, &shown);
		size_t need = shown ? n : 4 * n;
		if (o + need >= len)
			break;
		if (shown)
			memcpy(dst + o, s, n);
		else
			for (size_t i = 0; i < n; i++)
				snprintf(dst + o + 4 * i, 5, "\\x%02x", (unsigned char)s[i]);
		o += need;
		s += n;
	}
	dst[o] = '\0';
	return !*s;
}

char *printable_dup(const char *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return NULL;
	printable_fputs(m, s);
	if (fclose(m)) {
		free(text);
		return NULL;
	}
	return text;
}

void printable_vformat(char *dst, size_t len, const char *fmt, va_list ap)
{
	char *raw;
	va_list again;

	if (!dst || !len)
		return;
	va_copy(again, ap);
	if (vasprintf(&raw, fmt, again) < 0)
		raw = NULL;
	va_end(again);
	if (raw) {
		printable_copy(dst, len, raw);
		free(raw);
		return;
	}
	/* no memory for a copy: in place, each byte the rule would escape as '?' */
	vsnprintf(dst, len, fmt, ap);
	for (char *s = dst; *s;) {
		uint32_t cp;
		bool valid, shown;
		size_t n = next_char(s, &cp, &valid, &shown);
		if (!shown)
			memset(s, '?', n);
		s += n;
	}
}
