// SPDX-License-Identifier: GPL-2.0
/*
 * A baseline file's text read into a struct baseline: the JSON, its
 * header and host (which must be the file's key's machine) and every
 * entry, checked value by value and escaped for the terminal.
 */
#include <ctype.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/baseline_store.h"
#include "model/metrics.h"
#include "output/host_json.h"
#include "util/errbuf.h"
#include "util/printable.h"

/* Every message: "FILE: json.path: what". */
struct reader {
	const char *file;
	char *err;
	size_t errlen;
};

static int bad(const struct reader *r, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad(const struct reader *r, const char *at, const char *fmt, ...)
{
	char what[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return errbuf_printf(r->err, r->errlen, "%s: %s%s%s", r->file, at ? at : "", at ? ": " : "",
			     what);
}

/* @o.@key as a string of fewer than @max bytes; NULL after the message. */
static const char *string_member(const struct reader *r, const char *at, json_object *o,
				 const char *key, size_t max)
{
	json_object *v;
	char where[96];
	snprintf(where, sizeof(where), "%s%s%s", at ? at : "", at ? "." : "", key);
	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string)) {
		bad(r, where, "missing, or not a string");
		return NULL;
	}
	if ((size_t)json_object_get_string_len(v) >= max) {
		bad(r, where, "longer than %zu bytes", max - 1);
		return NULL;
	}
	return json_object_get_string(v);
}

/* An optional string member into @dst, escaped: the check prints these. */
static int text_member(const struct reader *r, json_object *o, const char *key, char *dst,
		       size_t len)
{
	dst[0] = '\0';
	if (!json_object_object_get_ex(o, key, NULL))
		return 0;
	const char *v = string_member(r, NULL, o, key, len);
	if (!v)
		return -1;
	printable_copy(dst, len, v);
	return 0;
}

/* Escaped in place: what the check prints of the host. */
static void make_printable(char *s, size_t len)
{
	char *copy = strdup(s);
	if (copy)
		printable_copy(s, len, copy);
	free(copy);
}

/*
 * The host, through the reader results files share (the shape before it
 * still reads), then what a baseline's host must be: an object whose
 * identity makes the file's key.
 */
static int host_of_baseline(const struct reader *r, json_object *o, const char *key,
			    struct host_info *h)
{
	char host_key[256];
	if (!json_object_is_type(o, json_type_object))
		return bad(r, "host", "not an object");
	host_from_json(o, h);
	/* the key is made of these: control characters would have made another machine's */
	if (!printable_plain(h->cpu_model) || !printable_plain(h->kvm_module))
		return bad(r, "host", "a control character in cpu_model or kvm_module");
	/* the host it claims must be the machine of the key, or its figures are another's;
	 * a file of the key plerig gave it before names were kept apart is still its own */
	baseline_key(h, host_key, sizeof(host_key));
	if (strcmp(host_key, key))
		baseline_legacy_key(h, host_key, sizeof(host_key));
	if (strcmp(host_key, key)) {
		baseline_key(h, host_key, sizeof(host_key));
		char model[64];
		printable_copy(model, sizeof(model), h->cpu_model);
		return bad(r, "host",
			   "cpu_model '%s', %ld CPUs online, kvm_module '%.31s' make the key %s, "
			   "not %s",
			   model, h->cpus_online, h->kvm_module, host_key, key);
	}
	make_printable(h->kernel, sizeof(h->kernel));
	make_printable(h->cpu_model, sizeof(h->cpu_model));
	make_printable(h->kvm_module_source, sizeof(h->kvm_module_source));
	make_printable(h->ple_params, sizeof(h->ple_params));
	make_printable(h->module_params, sizeof(h->module_params));
	return 0;
}

/* What a metric's values may be: all are rates, times or counts; shares are fractions. */
static double metric_max(const char *metric)
{
	size_t n = strlen(metric);
	return n > 6 && !strcmp(metric + n - 6, "_share") ? 1.0 : BASELINE_VALUE_MAX;
}

static int entry_from_json(const struct reader *r, json_object *e, unsigned i, struct baseline *b)
{
	char at[48], vat[80];
	json_object *vals;
	snprintf(at, sizeof(at), "entries[%u]", i);
	if (!json_object_is_type(e, json_type_object))
		return bad(r, at, "not an object");
	const char *sc = string_member(r, at, e, "scenario", sizeof(b->entries->scenario));
	const char *va =
	    sc ? string_member(r, at, e, "variant", sizeof(b->entries->variant)) : NULL;
	const char *me = va ? string_member(r, at, e, "metric", sizeof(b->entries->metric)) : NULL;
	if (!me)
		return -1;
	/* a metric of the check's, or the host's load that check keeps with each entry */
	if (!metric_by_name(me) && strcmp(me, foreign_load_metric.name))
		return bad(r, at, "metric: unknown '%.31s'", me);
	if (!json_object_object_get_ex(e, "values", &vals) ||
	    !json_object_is_type(vals, json_type_array))
		return bad(r, at, "values: missing, or not an array");
	size_t n = json_object_array_length(vals);
	if (n > BASELINE_MAX_VALUES)
		return bad(r, at, "values: %zu, more than %u", n, BASELINE_MAX_VALUES);
	if (baseline_grow(b))
		return bad(r, NULL, "out of memory");
	struct baseline_entry *out = &b->entries[b->nr_entries];
	memset(out, 0, sizeof(*out));
	out->values = malloc((n ? n : 1) * sizeof(*out->values));
	if (!out->values)
		return bad(r, NULL, "out of memory");
	b->nr_entries++; /* freed with @b from here on */
	snprintf(out->scenario, sizeof(out->scenario), "%s", sc);
	snprintf(out->variant, sizeof(out->variant), "%s", va);
	snprintf(out->metric, sizeof(out->metric), "%s", me);
	const double max = metric_max(me);
	for (size_t k = 0; k < n; k++) {
		json_object *x = json_object_array_get_idx(vals, k);
		snprintf(vat, sizeof(vat), "%s.values[%zu]", at, k);
		if (!json_object_is_type(x, json_type_double) &&
		    !json_object_is_type(x, json_type_int))
			return bad(r, vat, "not a number");
		double v = json_object_get_double(x);
		/* NaN and Infinity are not JSON (json-c takes them); 1e308 is no measurement */
		if (!isfinite(v) || v < 0.0 || v > max)
			return bad(r, vat, "%.40s out of range (0 to %g for %s)",
				   json_object_get_string(x), max, me);
		out->values[k] = v;
	}
	out->n = (unsigned)n;
	return 0;
}

/* Sorted once, n log n; a pair that compares equal is the same entry twice. */
static int sort_entries(const struct reader *r, struct baseline *b)
{
	if (b->nr_entries > 1)
		qsort(b->entries, b->nr_entries, sizeof(*b->entries), baseline_entry_cmp);
	for (unsigned i = 1; i < b->nr_entries; i++)
		if (!baseline_entry_cmp(&b->entries[i - 1], &b->entries[i]))
			return bad(r, "entries", "%s / %s / %s twice", b->entries[i].scenario,
				   b->entries[i].variant, b->entries[i].metric);
	return 0;
}

static int check_header(const struct reader *r, json_object *root, const char *key,
			struct baseline *b)
{
	json_object *v;
	char file_key[256];
	if (!json_object_is_type(root, json_type_object))
		return bad(r, NULL, "not a %s file: the document is not an object",
			   BASELINE_SCHEMA);
	if (!json_object_object_get_ex(root, "schema", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    strcmp(json_object_get_string(v), BASELINE_SCHEMA))
		return bad(r, NULL, "not a %s file (no \"schema\": \"%s\")", BASELINE_SCHEMA,
			   BASELINE_SCHEMA);
	if (!json_object_object_get_ex(root, "schema_version", &v) ||
	    !json_object_is_type(v, json_type_int) || json_object_get_int64(v) != BASELINE_VERSION)
		return bad(r, "schema_version",
			   "not %d (the integer): not a file this plerig reads", BASELINE_VERSION);
	const char *k = NULL;
	if (json_object_object_get_ex(root, "key", NULL) &&
	    !(k = string_member(r, NULL, root, "key", sizeof(file_key))))
		return -1;
	if (text_member(r, root, "recorded_at", b->recorded_at, sizeof(b->recorded_at)) ||
	    text_member(r, root, "plerig_version", b->plerig_version, sizeof(b->plerig_version)) ||
	    text_member(r, root, "suite", b->suite, sizeof(b->suite)))
		return -1;
	if (!json_object_object_get_ex(root, "host", &v))
		return bad(r, "host", "missing");
	if (host_of_baseline(r, v, key, &b->host))
		return -1;
	/* the key it was recorded under: its file's, or its host's old one (a file moved
	 * to the new key by hand, as the refusal of another host's file says to) */
	char old[256];
	baseline_legacy_key(&b->host, old, sizeof(old));
	if (k && strcmp(k, key) && strcmp(k, old)) {
		printable_copy(file_key, sizeof(file_key), k);
		return bad(r, "key", "'%s' is not this file's, %s", file_key, key);
	}
	return 0;
}

static json_object *parse_json(const struct reader *r, const char *text, size_t len)
{
	if (!len) {
		bad(r, NULL, "empty file, not JSON");
		return NULL;
	}
	if (memchr(text, '\0', len)) {
		bad(r, NULL, "not JSON: a NUL byte");
		return NULL;
	}
	json_tokener *tok = json_tokener_new();
	if (!tok) {
		bad(r, NULL, "out of memory");
		return NULL;
	}
	json_object *root = json_tokener_parse_ex(tok, text, (int)len);
	enum json_tokener_error e = json_tokener_get_error(tok);
	size_t end = json_tokener_get_parse_end(tok);
	while (e == json_tokener_success && end < len && isspace((unsigned char)text[end]))
		end++;
	if (e != json_tokener_success || !root || end < len) {
		unsigned line = 1;
		for (size_t i = 0; i < end && i < len; i++)
			line += text[i] == '\n';
		bad(r, NULL, "not JSON: %s at line %u",
		    e == json_tokener_continue	? "the text ends in the middle of a value"
		    : e != json_tokener_success ? json_tokener_error_desc(e)
						: "text after the end of the document",
		    line);
		json_object_put(root);
		root = NULL;
	}
	json_tokener_free(tok);
	return root;
}

int baseline_parse(const char *name, const char *key, const char *text, size_t len,
		   struct baseline *b, char *err, size_t errlen)
{
	const struct reader r = {.file = name, .err = err, .errlen = errlen};
	json_object *entries;
	int rc = -1;

	memset(b, 0, sizeof(*b));
	snprintf(b->key, sizeof(b->key), "%s", key);
	if (len > BASELINE_FILE_MAX)
		return bad(&r, NULL, "larger than %u MiB", BASELINE_FILE_MAX >> 20);
	json_object *root = parse_json(&r, text, len);
	if (!root)
		return -1;
	if (check_header(&r, root, key, b))
		goto out;
	if (!json_object_object_get_ex(root, "entries", &entries) ||
	    !json_object_is_type(entries, json_type_array)) {
		bad(&r, "entries", "missing, or not an array");
		goto out;
	}
	size_t n = json_object_array_length(entries);
	if (n > BASELINE_MAX_ENTRIES) {
		bad(&r, "entries", "%zu, more than the %u a baseline may have", n,
		    BASELINE_MAX_ENTRIES);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (entry_from_json(&r, json_object_array_get_idx(entries, i), (unsigned)i, b))
			goto out;
	rc = sort_entries(&r, b);
out:
	json_object_put(root);
	if (rc)
		baseline_free(b);
	return rc;
}
