// SPDX-License-Identifier: GPL-2.0
#include "output/json_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomic_file.h"
#include "util/errbuf.h"

/* plerig's JSON as people read it: indented, '/' as it is */
#define PRETTY (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)

json_object *json_double(double v)
{
	char buf[40];

	if (!isfinite(v))
		return NULL;
	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof(buf), "%.17g", v);
	if (!strpbrk(buf, ".eE"))
		strcat(buf, ".0");
	return json_object_new_double_s(v, buf);
}

int json_document_write(json_object *root, const char *path, const char *what, char *err,
			size_t errlen)
{
	if (!root)
		return errbuf_printf(err, errlen, "out of memory for the %s JSON", what);
	const char *text = json_object_to_json_string_ext(root, json_text_flags());
	char *copy = text ? malloc(strlen(text) + 2) : NULL;
	int rc = -1;
	if (copy) {
		sprintf(copy, "%s\n", text);
		rc = atomic_file_write(path, "JSON", copy, strlen(copy), err, errlen);
	} else {
		errbuf_printf(err, errlen, "out of memory for the %s JSON", what);
	}
	free(copy);
	json_object_put(root);
	return rc;
}

int json_print(FILE *out, json_object *root)
{
	/* what a command prints is read as it is, on the host too: pretty everywhere */
	const char *text = json_object_to_json_string_ext(root, PRETTY);

	return text && fprintf(out, "%s\n", text) >= 0 ? 0 : -1;
}

int json_text_flags(void)
{
	const char *compact = getenv("PLERIG_JSON_COMPACT");
	return compact && *compact ? JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE
				   : PRETTY;
}

int json_text_pretty(const char *text, size_t len, char **out, size_t *out_len, char *err,
		     size_t errlen)
{
	json_tokener *tok = json_tokener_new();
	if (!tok || len > INT32_MAX) {
		json_tokener_free(tok);
		return errbuf_printf(err, errlen,
				     tok ? "JSON of %zu bytes: too long" : "out of memory", len);
	}
	json_object *root = json_tokener_parse_ex(tok, text, (int)len);
	const enum json_tokener_error e = json_tokener_get_error(tok);
	size_t used = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	while (used < len && strchr(" \t\r\n", text[used]))
		used++;
	if (!root || e != json_tokener_success || used != len) {
		json_object_put(root);
		return errbuf_printf(
		    err, errlen, "not one JSON document: %s at byte %zu",
		    e != json_tokener_success ? json_tokener_error_desc(e) : "text after it", used);
	}
	const char *pretty = json_object_to_json_string_ext(root, PRETTY);
	const bool newline = len && text[len - 1] == '\n';
	*out_len = pretty ? strlen(pretty) + newline : 0;
	*out = pretty ? malloc(*out_len + 1) : NULL;
	if (*out) {
		memcpy(*out, pretty, *out_len - newline);
		if (newline)
			(*out)[*out_len - 1] = '\n';
		(*out)[*out_len] = '\0';
	}
	json_object_put(root);
	return *out ? 0 : errbuf_printf(err, errlen, "out of memory");
}
