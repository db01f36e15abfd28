// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: what `plerig report` reads (compare/html_inputs.c:
 * `plerig sweep --json` curves and `plerig run --json` results), on any
 * bytes, then the whole page of an accepted document drawn as report draws
 * it (html_document_print: hosts side by side, host tables, charts), so
 * that the drawing code sees every value the reader lets through; and the
 * page checked: a results file is untrusted, so every '<' must open one of
 * plerig's own elements with its own attributes, and no byte may be a
 * control character or outside UTF-8. Anything else aborts.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compare/html_inputs.h"
#include "output/html_writer.h"
#include "util/utf8.h"

/* Every element and attribute the report's writers emit (output/html_*.c, svg_chart.c). */
static const char *const elements[] = {
    "html", "head", "meta", "title", "style",  "body",	  "svg",   "defs",   "pattern", "rect",
    "line", "h1",   "h2",   "h3",    "p",      "section", "table", "tr",     "td",	"th",
    "code", "b",    "i",    "br",    "figure", "text",	  "path",  "circle", "div",	NULL};
static const char *const attributes[] = {"lang",
					 "charset",
					 "id",
					 "class",
					 "width",
					 "height",
					 "style",
					 "patternUnits",
					 "patternTransform",
					 "fill",
					 "x1",
					 "y1",
					 "x2",
					 "y2",
					 "stroke",
					 "stroke-width",
					 "xmlns",
					 "viewBox",
					 "role",
					 "x",
					 "y",
					 "text-anchor",
					 "transform",
					 "d",
					 "cx",
					 "cy",
					 "r",
					 "fill-opacity",
					 "stroke-dasharray",
					 "colspan",
					 NULL};

static _Noreturn void injected(const char *page, size_t at, const char *what)
{
	fprintf(stderr, "report markup from the input (%s) at byte %zu: %.120s\n", what, at,
		page + at);
	abort();
}

/* Is @s (@n bytes) one of @names? */
static bool one_of(const char *const *names, const char *s, size_t n)
{
	for (; *names; names++)
		if (strlen(*names) == n && !memcmp(*names, s, n))
			return true;
	return false;
}

static size_t name_len(const char *s)
{
	size_t n = 0;
	while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
	       (s[n] >= '0' && s[n] <= '9') || s[n] == '-')
		n++;
	return n;
}

/* The tag at @page[@at] ('<'), plerig's own or abort; where it ends. */
static size_t check_tag(const char *page, size_t at)
{
	const char *p = page + at + 1;
	if (!strncmp(p, "!DOCTYPE html>", 14))
		return at + 15;
	if (*p == '/')
		p++;
	size_t n = name_len(p);
	if (!one_of(elements, p, n))
		injected(page, at, "an element");
	for (p += n;;) {
		while (*p == ' ')
			p++;
		if (*p == '>')
			return (size_t)(p - page) + 1;
		if (p[0] == '/' && p[1] == '>')
			return (size_t)(p - page) + 2;
		n = name_len(p);
		if (!one_of(attributes, p, n) || p[n] != '=' || p[n + 1] != '"')
			injected(page, at, "an attribute");
		const char *end = strchr(p + n + 2, '"');
		if (!end || memchr(p + n + 2, '<', (size_t)(end - (p + n + 2))))
			injected(page, at, "an attribute's value");
		p = end + 1;
	}
}

static void check_page(const char *page, size_t len)
{
	if (strlen(page) != len)
		injected(page, strlen(page), "a NUL byte");
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = utf8_decode(page + i, &cp);
		if (!n)
			injected(page, i, "a byte outside UTF-8");
		if (cp < 0x20 && cp != '\n')
			injected(page, i, "a control character");
		if (cp >= 0x7f && cp < 0xa0)
			injected(page, i, "a C1 control");
		i = cp == '<' ? check_tag(page, i) : i + n;
	}
	if (strstr(page, "]]>") || strstr(page, "<!["))
		injected(page, 0, "a CDATA section");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	if (fd < 0) {
		fd = memfd_create("plerig-fuzz-report", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	struct html_input in;
	char err[1024];
	if (html_input_load(path, &in, err, sizeof(err)) == 0) {
		char *page = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&page, &len);
		if (!out)
			abort();
		html_document_print(out, &in, 1);
		if (fclose(out) || !page)
			abort();
		check_page(page, len);
		free(page);
		json_object_put(in.doc);
	}
	return 0;
}
