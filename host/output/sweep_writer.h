/* SPDX-License-Identifier: GPL-2.0 */
/* A sweep's curve as a table, JSON (schema plerig-sweep) or CSV. */
#ifndef PLERIG_OUTPUT_SWEEP_REPORT_H
#define PLERIG_OUTPUT_SWEEP_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "model/sweep_curve.h"

#include <json-c/json.h>

/* The curve as the plerig-sweep document (the caller puts it). */
json_object *sweep_curve_json(const struct sweep_curve *c);
void sweep_curve_print(FILE *out, const struct sweep_curve *c);
/* "-" is stdout. 0, or -1 with @err. */
int sweep_curve_write_json(const struct sweep_curve *c, const char *path, char *err, size_t errlen);
int sweep_curve_write_csv(const struct sweep_curve *c, const char *path, char *err, size_t errlen);

#endif
