/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracefs: where it is (mounting it when nobody has), a tracepoint's id
 * for perf_event_open, and its record layout from the format file (read
 * by libtraceevent), so raw samples are decoded by the offsets, sizes and
 * signedness this kernel uses, and fields that are no number (strings,
 * arrays) are refused rather than misread.
 */
#ifndef PLERIG_TRACEFS_H
#define PLERIG_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRACE_MAX_FIELDS 32

struct trace_field {
	char name[48];
	unsigned offset; /* in the raw record */
	unsigned size;	 /* bytes; of the whole array, or of the descriptor of dynamic data */
	bool is_signed;
	char type[64];	    /* the C type as the format declares it: "u32", "char[16]" */
	bool is_array;	    /* a fixed-size array of array_len elements ("char prev_comm[16]") */
	unsigned array_len; /* 0 unless is_array */
	bool is_dynamic; /* __data_loc/__rel_loc: 4 bytes saying where data of variable length is */
	bool is_relative; /* __rel_loc: that place counted from the end of the field */
	bool is_pointer;  /* a kernel address ("const void *"): a number, of no use outside */
	bool is_string;	  /* char (or u8/s8) array, fixed or dynamic */
};

struct trace_format {
	char name[64];
	char system[64];
	unsigned id; /* from the id file (trace_format_load): perf_event_attr.config */
	unsigned nr_fields;
	struct trace_field fields[TRACE_MAX_FIELDS]; /* common_* first, in the file's order */
};

/*
 * Find tracefs: $PLERIG_TRACEFS_ROOT when set, else /sys/kernel/tracing
 * (mounted there when it is not yet), else /sys/kernel/debug/tracing. On
 * success @path is the directory holding events/, and @note (may be NULL)
 * says how it was found. -errno with @err saying what failed and the fix.
 */
int tracefs_locate(char *path, size_t len, char *note, size_t notelen, char *err, size_t errlen);

/*
 * Parse the text of a format file of an event of @system (its id is the
 * file's ID line). The print fmt is not read: plerig prints no records.
 * 0, or -1 with @err saying why.
 */
int trace_format_parse(const char *system, const char *text, struct trace_format *f, char *err,
		       size_t errlen);

/*
 * Id and layout of @system:@event under @tracefs. -ENOENT (with @err)
 * when this kernel has no such tracepoint.
 */
int trace_format_load(const char *tracefs, const char *system, const char *event,
		      struct trace_format *f, char *err, size_t errlen);

const struct trace_field *trace_format_field(const struct trace_format *f, const char *name);

/*
 * @name of @fmt when trace_field_value can read it; NULL with @err naming
 * the event, the field and why not (absent, an array, dynamic data...).
 */
const struct trace_field *trace_format_integer_field(const struct trace_format *fmt,
						     const char *name, char *err, size_t errlen);

/*
 * A field of a raw record (the PERF_SAMPLE_RAW bytes) as an integer,
 * sign-extended when the format says signed. -1 when the record is too
 * short or the field is no 1, 2, 4 or 8-byte integer (an array, a
 * __data_loc descriptor: trace_format_integer_field says which).
 */
int trace_field_value(const struct trace_field *f, const void *raw, size_t size, uint64_t *out);

#endif
