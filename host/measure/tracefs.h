/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracefs: where it is (mounting it when nobody has), a tracepoint's id
 * for perf_event_open, and its record layout from the format file, so
 * raw samples are decoded by the offsets this kernel uses.
 */
#ifndef PLERIG_TRACEFS_H
#define PLERIG_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRACE_MAX_FIELDS 32

struct trace_field {
	char name[48];
	unsigned offset;
	unsigned size;
	bool is_signed;
};

struct trace_format {
	char name[64];
	unsigned id; /* from the id file: perf_event_attr.config */
	unsigned nr_fields;
	struct trace_field fields[TRACE_MAX_FIELDS];
};

/*
 * Find tracefs: $PLERIG_TRACEFS_ROOT when set, else /sys/kernel/tracing
 * (mounted there when it is not yet), else /sys/kernel/debug/tracing. On
 * success @path is the directory holding events/, and @note (may be NULL)
 * says how it was found. -errno with @err saying what failed and the fix.
 */
int tracefs_locate(char *path, size_t len, char *note, size_t notelen, char *err, size_t errlen);

/* Parse a format file's text. 0, or -1 with @err. */
int trace_format_parse(const char *text, struct trace_format *f, char *err, size_t errlen);

/*
 * Id and layout of @system:@event under @tracefs. -ENOENT (with @err)
 * when this kernel has no such tracepoint.
 */
int trace_format_load(const char *tracefs, const char *system, const char *event,
		      struct trace_format *f, char *err, size_t errlen);

const struct trace_field *trace_format_field(const struct trace_format *f, const char *name);

/*
 * A field of a raw record (the PERF_SAMPLE_RAW bytes) as an integer,
 * sign-extended when the format says signed. -1 when the record is too
 * short or the field is not 1, 2, 4 or 8 bytes.
 */
int trace_field_value(const struct trace_field *f, const void *raw, size_t size, uint64_t *out);

#endif
