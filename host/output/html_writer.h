/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `plerig report`, `run --report`, `sweep --report`: results documents
 * (schema plerig-results, plerig-sweep or plerig-tune) as one self-contained HTML
 * page of SVG charts. The documents are checked by their readers before
 * they come here; the writer still treats any member as possibly absent.
 */
#ifndef PLERIG_OUTPUT_HTML_REPORT_H
#define PLERIG_OUTPUT_HTML_REPORT_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>

struct html_input {
	const char *name; /* the file it came from, or the check scenario, for the headings */
	json_object *doc;
	const char *host; /* check --connect: the host it ran on; NULL: the document says */
};

/* The charts of one plerig-results document. */
void html_results_section(FILE *out, const struct html_input *in, unsigned index);
/* The curves of one plerig-sweep document. */
void html_sweep_section(FILE *out, const struct html_input *in, unsigned index);
/* The recommendation and cost curves of one plerig-tune document. */
void html_tune_section(FILE *out, const struct html_input *in, unsigned index);

/* The page for @n documents. */
void html_document_print(FILE *out, const struct html_input *in, unsigned n);
/*
 * The page for @n documents, written to @path whole or not at all. Returns
 * 0, or -1 with a message naming the path in @err.
 */
int html_document_write(const char *path, const struct html_input *in, unsigned n, char *err,
			size_t errlen);

#endif
