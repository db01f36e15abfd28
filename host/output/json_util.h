/* SPDX-License-Identifier: GPL-2.0 */
/* json-c in plerig's style: members added by name, absent values as null. */
#ifndef PLERIG_JSON_UTIL_H
#define PLERIG_JSON_UTIL_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Shortest text that reads back as the same double (0.2, not
 * 0.20000000000000001), always with a '.' or an exponent so that readers
 * see a float; NaN and infinities are not JSON: NULL (null).
 */
json_object *json_double(double v);

/* @root as plerig writes JSON (pretty, '/' as it is) and a newline; 0, or -1 when it failed. */
int json_print(FILE *out, json_object *root);

/*
 * The flags plerig's JSON documents are written with: pretty, '/' as it
 * is; plain (one line) where PLERIG_JSON_COMPACT is set, as L1's
 * l1-serve sets it: what L1 writes crosses its serial line (a third of the
 * bytes), and json_text_pretty makes it what plerig writes on the host.
 */
int json_text_flags(void);

/*
 * @len bytes of JSON text as plerig writes it (json_text_flags, without
 * PLERIG_JSON_COMPACT), a newline at the end where @text had one:
 * malloc'ed into @out. 0, or -1 with @err where it is not one whole JSON
 * document (what L1 wrote is held to that before it is written here).
 */
int json_text_pretty(const char *text, size_t len, char **out, size_t *out_len, char *err,
		     size_t errlen);

static inline void json_add(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

static inline void json_add_u64(json_object *o, const char *key, uint64_t v)
{
	json_add(o, key, json_object_new_uint64(v));
}

/* A count, or null where it could not be had: never a 0 that was not measured. */
static inline void json_add_count(json_object *o, const char *key, bool valid, uint64_t v)
{
	json_add(o, key, valid ? json_object_new_uint64(v) : NULL);
}

static inline void json_add_str(json_object *o, const char *key, const char *v)
{
	json_add(o, key, v ? json_object_new_string(v) : NULL);
}

static inline void json_add_double(json_object *o, const char *key, double v)
{
	json_add(o, key, json_double(v));
}

/*
 * @root as pretty JSON with a final newline to @path ("-": stdout), whole
 * or not at all (util/atomic_file.h); @root is put either way. 0, or -1
 * with @err ("out of memory for the @what JSON" when @root is NULL).
 */
int json_document_write(json_object *root, const char *path, const char *what, char *err,
			size_t errlen);

#endif
