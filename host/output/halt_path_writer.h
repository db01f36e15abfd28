/* SPDX-License-Identifier: GPL-2.0 */
/* Lock pvqspin's halt path in the JSON results and after the table. */
#ifndef PLERIG_HALT_PATH_WRITER_H
#define PLERIG_HALT_PATH_WRITER_H

#include <json-c/json.h>
#include <stdio.h>

#include "model/halt_path.h"
#include "model/outcome.h"

/* The "halt_path" object of a run's summary or of one vCPU: counts, or null with the reason. */
json_object *halt_path_json(const struct variant_result *r, const struct halt_path *h);

/*
 * "halt-path (kvm pvqspin pause 1x3/1): 120 halts, 118 kicks sent, ..."
 * once per pvqspin variant (its first run), summed over its vCPUs; the
 * per-vCPU figures are in the JSON.
 */
void halt_path_print(FILE *f, const struct outcome *rep);

#endif
