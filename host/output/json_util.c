// SPDX-License-Identifier: GPL-2.0
#include "output/json_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomic_file.h"
#include "util/errbuf.h"

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
	const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
								    JSON_C_TO_STRING_NOSLASHESCAPE);
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
	const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
								    JSON_C_TO_STRING_NOSLASHESCAPE);

	return text && fprintf(out, "%s\n", text) >= 0 ? 0 : -1;
}
