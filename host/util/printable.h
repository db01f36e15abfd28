/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one rule for text from outside (results files, host names, URIs,
 * libvirt's answers, a guest's messages) that plerig shows to people: a
 * character is written as itself only when every reader shows it as
 * itself; anything else is written as \xHH per byte, so that a planted
 * string cannot move the cursor, recolour or retitle a terminal (C0, DEL,
 * C1 such as U+009B, CSI), forge a line or a column of output (line
 * breaks, tabs, U+2028, U+2029), reorder what is shown (bidirectional
 * controls) or smuggle bytes that are no UTF-8. The backslash stays as it
 * is, so applying the rule twice changes nothing.
 *
 * Every human-readable writer goes through it: the terminal's tables,
 * CSV, TAP, JUnit, the HTML report (output/html_text.h adds its
 * entities), compare, doctor and every error message (util/errbuf.h).
 * scripts/lint-writers refuses a writer that prints a string any other way.
 */
#ifndef PLERIG_PRINTABLE_H
#define PLERIG_PRINTABLE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Is code point @cp shown as itself (the rule above)? */
bool printable_char(uint32_t cp);

/*
 * A format's own characters: called for each character of the text that
 * the rule lets through or that is a line break, tab or other control;
 * it writes what the format makes of @cp and returns true, or returns
 * false to leave it to the rule (e.g. HTML's & < > " ', TAP's #).
 */
typedef bool (*printable_special)(FILE *f, uint32_t cp);

/* @s (NULL: nothing) by the rule, @special (may be NULL) first. */
void printable_write(FILE *f, const char *s, printable_special special);
void printable_fputs(FILE *f, const char *s);

/* How a format writes its arguments on top of the rule. */
struct printable_style {
	printable_special special; /* its own characters, or NULL */
	/*
	 * Each argument's text before the rule, or NULL: returns what to write
	 * instead of @s (@s itself, or memory it puts in *@owned, freed after).
	 */
	const char *(*rewrite)(const char *s, char **owned);
};

/*
 * fprintf, with every %s and %c argument written by the rule (and
 * @style, which may be NULL), the format's own text as it is: the format
 * is plerig's, the arguments are not. Width pads the written text;
 * precision cuts the argument at a character boundary. Supports the
 * conversions of C's printf but %n and %p. Returns 0, or -1 when the
 * stream has failed.
 */
int printable_vfprintf(FILE *f, const struct printable_style *style, const char *fmt, va_list ap);
int printable_fprintf_(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The format must be a literal: a format from data would be text too. */
#define printable_printf(f, fmt, ...) printable_fprintf_(f, "" fmt "", ##__VA_ARGS__)

/*
 * How many bytes of @s, at most @max, make a cut that ends on a character
 * boundary and, where @s is a text the rule made already, not inside one
 * of its \xHH escapes: a label cut to a field's width never ends in "\x1".
 * Precision (%.Ns) in printable_printf cuts there too.
 */
size_t printable_cut(const char *s, size_t max);

/* Has @s nothing the rule would escape? */
bool printable_plain(const char *s);
/* @src into @dst (@len bytes, NUL-terminated), by the rule; false when it had to be cut. */
bool printable_copy(char *dst, size_t len, const char *src);
/* @s by the rule in a new string (free it); NULL when out of memory. */
char *printable_dup(const char *s);
/*
 * vsnprintf into @dst, then the whole text by the rule: for messages
 * (util/errbuf.h) whose formats have no control character of their own.
 * Out of memory, a byte the rule would escape is '?'.
 */
void printable_vformat(char *dst, size_t len, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

#endif
