/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files `plerig report` draws: `plerig run --json` results (checked as
 * `plerig compare` checks them) and `plerig sweep --json` curves. Each is
 * checked whole before anything is written, so that a broken or truncated
 * file is one clear line and no report.
 */
#ifndef PLERIG_HTML_INPUTS_H
#define PLERIG_HTML_INPUTS_H

#include <stddef.h>

#include "output/html_writer.h"

/*
 * Load @path into @out (out->doc owned by the caller: json_object_put).
 * Returns 0, or -1 with "PATH: where: what" in @err.
 */
int html_input_load(const char *path, struct html_input *out, char *err, size_t errlen);

#endif
