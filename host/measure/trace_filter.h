/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one kind of tracepoint filter plerig uses, "FIELD == NUMBER": given
 * to the kernel as is (PERF_EVENT_IOC_SET_FILTER), and evaluated here on
 * recorded samples, so the two can be checked against each other.
 */
#ifndef PLERIG_TRACE_FILTER_H
#define PLERIG_TRACE_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "measure/tracefs.h"

struct trace_filter {
	struct trace_field field;
	uint64_t value;
};

/*
 * Parse @text against the event's format: the field must exist there, and
 * be a 1, 2, 4 or 8-byte integer (no array, no __data_loc). 0, or -1 with
 * @err.
 */
int trace_filter_parse(const char *text, const struct trace_format *fmt, struct trace_filter *f,
		       char *err, size_t errlen);
/* Does a raw record match? A record too short for the field does not. */
bool trace_filter_match(const struct trace_filter *f, const void *raw, size_t size);

#endif
