/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The frame of the HTML report: one self-contained page (inline CSS and
 * SVG, nothing fetched, no script), its sections, and the description of
 * the host a results file was measured on.
 */
#ifndef PLERIG_HTML_PAGE_H
#define PLERIG_HTML_PAGE_H

#include <json-c/json.h>
#include <stdio.h>

void html_page_open(FILE *out, const char *title);
void html_page_close(FILE *out);
/* <section id="@id"><h2>@title</h2> ... html_section_close */
void html_section_open(FILE *out, const char *id, const char *title);
void html_section_close(FILE *out);
/* A paragraph of plain text (escaped). */
void html_note(FILE *out, const char *text);
/* A row of a table class="host": @name, and @value as code ("not recorded in this file": none). */
void html_row(FILE *out, const char *name, const char *value);
/* Kernel, KVM module, CPU, PLE parameters, plerig version, command line of a results document. */
void html_host_table(FILE *out, json_object *root, const char *file);
/* "ple_gap=128 ple_window=4096" of a host object into @params, "" when none is readable. */
void html_ple_params(json_object *host, char *params, size_t len);
/* "kvm_intel", or with how it was inferred where libvirt named no module (in @buf). */
const char *html_module_text(json_object *host, char *buf, size_t len);

/* Members of plerig's JSON, NULL or NaN when absent or of another type. */
json_object *jget(json_object *o, const char *key);
double jnum(json_object *o, const char *key);
/*
 * A count or an index of plerig's JSON: the member when it is a whole
 * number in [0, UINT_MAX - 1], else UINT_MAX (absent, NaN, negative, too
 * large: a results file is untrusted, and such a double cast is undefined).
 */
unsigned jindex(json_object *o, const char *key);
/*
 * A comparison's reference variant (its index): "reference", or
 * "baseline" in files of a plerig before the word was "reference".
 */
unsigned jreference(json_object *comparison);
const char *jstr(json_object *o, const char *key);

#endif
