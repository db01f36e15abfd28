// SPDX-License-Identifier: GPL-2.0
#include "experiment/baseline_store.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output/host_json.h"
#include "output/json_util.h"
#include "util/atomic_file.h"
#include "util/errbuf.h"

#define BASELINE_SCHEMA	 "plerig-baseline"
#define BASELINE_VERSION 1

const char *baseline_store_dir(const char *option)
{
	if (option && *option)
		return option;
	const char *env = getenv("PLERIG_BASELINES");
	return env && *env ? env : NULL;
}

/* Lower-case letters and digits; every other run of characters one '-'. */
static size_t slug(const char *s, char *out, size_t len)
{
	size_t o = 0;
	bool dash = false;
	for (; *s && o + 2 < len; s++) {
		if (isalnum((unsigned char)*s) || *s == '_') {
			if (dash && o)
				out[o++] = '-';
			out[o++] = (char)tolower((unsigned char)*s);
			dash = false;
		} else {
			dash = true;
		}
	}
	out[o] = '\0';
	return o;
}

void baseline_key(const struct host_info *h, char *buf, size_t len)
{
	char model[128], raw[256];
	slug(h->cpu_model, model, sizeof(model));
	snprintf(raw, sizeof(raw), "%s %ldcpu smt%s %s", model, h->cpus_online,
		 h->smt < 0 ? "unknown"
		 : h->smt   ? "1"
			    : "0",
		 h->kvm_module);
	slug(raw, buf, len);
}

void baseline_path(const char *dir, const char *key, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s.json", dir, key);
}

static const char *str_member(json_object *o, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		   ? json_object_get_string(v)
		   : NULL;
}

static void copy_member(json_object *o, const char *key, char *dst, size_t len)
{
	const char *v = str_member(o, key);
	snprintf(dst, len, "%s", v ? v : "");
}

static int entry_from_json(json_object *e, unsigned i, struct baseline *b, const char *path,
			   char *err, size_t errlen)
{
	const char *sc = str_member(e, "scenario"), *va = str_member(e, "variant"),
		   *me = str_member(e, "metric");
	json_object *vals;
	if (!sc || !va || !me || !json_object_object_get_ex(e, "values", &vals) ||
	    !json_object_is_type(vals, json_type_array))
		return errbuf_printf(err, errlen,
				     "%s: entries[%u]: needs scenario, variant, metric (strings) "
				     "and values (an array)",
				     path, i);
	size_t n = json_object_array_length(vals);
	double *v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return errbuf_printf(err, errlen, "out of memory");
	for (size_t k = 0; k < n; k++) {
		json_object *x = json_object_array_get_idx(vals, k);
		if (!json_object_is_type(x, json_type_double) &&
		    !json_object_is_type(x, json_type_int)) {
			free(v);
			return errbuf_printf(
			    err, errlen, "%s: entries[%u].values[%zu]: not a number", path, i, k);
		}
		v[k] = json_object_get_double(x);
	}
	int rc = baseline_put(b, sc, va, me, v, (unsigned)n);
	free(v);
	return rc ? errbuf_printf(err, errlen, "out of memory") : 0;
}

int baseline_load(const char *dir, const char *key, struct baseline *b, char *err, size_t errlen)
{
	char path[1024];
	struct stat st;
	memset(b, 0, sizeof(*b));
	snprintf(b->key, sizeof(b->key), "%s", key);
	baseline_path(dir, key, path, sizeof(path));
	if (stat(path, &st) && errno == ENOENT)
		return 1;
	json_object *root = json_object_from_file(path);
	if (!root)
		return errbuf_printf(err, errlen, "%s: not readable JSON (%s)", path,
				     json_util_get_last_err());
	int rc = -1;
	json_object *v, *entries;
	const char *schema = str_member(root, "schema");
	if (!schema || strcmp(schema, BASELINE_SCHEMA) ||
	    !json_object_object_get_ex(root, "schema_version", &v) ||
	    json_object_get_int(v) != BASELINE_VERSION) {
		errbuf_printf(err, errlen, "%s: not a %s version %d file", path, BASELINE_SCHEMA,
			      BASELINE_VERSION);
		goto out;
	}
	copy_member(root, "recorded_at", b->recorded_at, sizeof(b->recorded_at));
	copy_member(root, "plerig_version", b->plerig_version, sizeof(b->plerig_version));
	copy_member(root, "suite", b->suite, sizeof(b->suite));
	if (json_object_object_get_ex(root, "host", &v))
		host_from_json(v, &b->host);
	if (!json_object_object_get_ex(root, "entries", &entries) ||
	    !json_object_is_type(entries, json_type_array)) {
		errbuf_printf(err, errlen, "%s: missing entries (an array)", path);
		goto out;
	}
	for (size_t i = 0; i < json_object_array_length(entries); i++)
		if (entry_from_json(json_object_array_get_idx(entries, i), (unsigned)i, b, path,
				    err, errlen))
			goto out;
	rc = 0;
out:
	json_object_put(root);
	if (rc)
		baseline_free(b);
	return rc;
}

int baseline_save(const char *dir, const struct baseline *b, char *err, size_t errlen)
{
	char path[1024];
	if (mkdir(dir, 0777) && errno != EEXIST)
		return errbuf_printf(err, errlen, "cannot create baseline store '%s': %s", dir,
				     strerror(errno));
	baseline_path(dir, b->key, path, sizeof(path));
	json_object *root = json_object_new_object();
	json_add_str(root, "schema", BASELINE_SCHEMA);
	json_add(root, "schema_version", json_object_new_int(BASELINE_VERSION));
	json_add_str(root, "plerig_version", b->plerig_version);
	json_add_str(root, "key", b->key);
	json_add_str(root, "recorded_at", b->recorded_at);
	json_add_str(root, "suite", b->suite);
	json_add(root, "host", host_json(&b->host));
	json_object *entries = json_object_new_array();
	for (unsigned i = 0; i < b->nr_entries; i++) {
		const struct baseline_entry *e = &b->entries[i];
		json_object *o = json_object_new_object(), *vals = json_object_new_array();
		json_add_str(o, "scenario", e->scenario);
		json_add_str(o, "variant", e->variant);
		json_add_str(o, "metric", e->metric);
		for (unsigned k = 0; k < e->n; k++)
			json_object_array_add(vals, json_double(e->values[k]));
		json_add(o, "values", vals);
		json_object_array_add(entries, o);
	}
	json_add(root, "entries", entries);
	const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
								    JSON_C_TO_STRING_NOSLASHESCAPE);
	int rc = atomic_file_write(path, "baseline", text, strlen(text), err, errlen);
	json_object_put(root);
	return rc;
}

const struct baseline_entry *baseline_find(const struct baseline *b, const char *scenario,
					   const char *variant, const char *metric)
{
	for (unsigned i = 0; b && i < b->nr_entries; i++) {
		const struct baseline_entry *e = &b->entries[i];
		if (!strcmp(e->scenario, scenario) && !strcmp(e->variant, variant) &&
		    !strcmp(e->metric, metric))
			return e;
	}
	return NULL;
}

int baseline_put(struct baseline *b, const char *scenario, const char *variant, const char *metric,
		 const double *values, unsigned n)
{
	double *copy = malloc((n ? n : 1) * sizeof(*copy));
	if (!copy)
		return -1;
	memcpy(copy, values, n * sizeof(*copy));
	struct baseline_entry *e =
	    (struct baseline_entry *)baseline_find(b, scenario, variant, metric);
	if (!e) {
		struct baseline_entry *grown =
		    realloc(b->entries, (b->nr_entries + 1) * sizeof(*b->entries));
		if (!grown) {
			free(copy);
			return -1;
		}
		b->entries = grown;
		e = &b->entries[b->nr_entries++];
		memset(e, 0, sizeof(*e));
		snprintf(e->scenario, sizeof(e->scenario), "%s", scenario);
		snprintf(e->variant, sizeof(e->variant), "%s", variant);
		snprintf(e->metric, sizeof(e->metric), "%s", metric);
	}
	free(e->values);
	e->values = copy;
	e->n = n;
	return 0;
}

void baseline_drop_scenario(struct baseline *b, const char *scenario)
{
	unsigned o = 0;
	for (unsigned i = 0; i < b->nr_entries; i++) {
		if (!strcmp(b->entries[i].scenario, scenario))
			free(b->entries[i].values);
		else
			b->entries[o++] = b->entries[i];
	}
	b->nr_entries = o;
}

void baseline_free(struct baseline *b)
{
	for (unsigned i = 0; i < b->nr_entries; i++)
		free(b->entries[i].values);
	free(b->entries);
	b->entries = NULL;
	b->nr_entries = 0;
}
