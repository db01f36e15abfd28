/* SPDX-License-Identifier: GPL-2.0 */
/* A tune's answer as the table on stdout, and as JSON (schema plerig-tune 1,
 * docs/tune.schema.json). */
#ifndef PLERIG_OUTPUT_TUNE_WRITER_H
#define PLERIG_OUTPUT_TUNE_WRITER_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>

#include "model/tune_result.h"

void tune_result_print(FILE *out, const struct tune_result *r);
/* The plerig-tune document (the caller puts it); NULL out of memory. */
json_object *tune_result_json(const struct tune_result *r);
/* "-" is stdout. 0, or -1 with @err. */
int tune_result_write_json(const struct tune_result *r, const char *path, char *err, size_t errlen);

#endif
