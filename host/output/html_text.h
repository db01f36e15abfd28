/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one way the HTML report (its pages and their SVG charts) writes
 * anything: a results file is untrusted, so every string that is not
 * plerig's own markup is text. html_printf's format is the markup, a
 * literal; each %s and %c argument is written by the printable rule
 * (util/printable.h) with & < > " ' as entities, so that no argument can
 * open a tag, close an attribute or start a CDATA section, whichever
 * element or attribute it lands in, and a URI in it shows no credentials
 * (util/uri_redact.h). scripts/lint-writers refuses any
 * other write in the report's files (fprintf, fputs of a variable, ...).
 */
#ifndef PLERIG_HTML_TEXT_H
#define PLERIG_HTML_TEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * & < > " ' as the entities HTML and XML both read (a printable_special,
 * util/printable.h): what JUnit's XML shares with the report.
 */
bool markup_entity(FILE *f, uint32_t cp);

/* @s as text (NULL: nothing). */
void html_escape(FILE *out, const char *s);

int html_fprintf_(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define html_printf(out, fmt, ...) html_fprintf_(out, "" fmt "", ##__VA_ARGS__)

#endif
