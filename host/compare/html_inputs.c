// SPDX-License-Identifier: GPL-2.0
#include "compare/html_inputs.h"

#include <stdint.h>
#include <string.h>

#include "compare/results_file.h"
#include "output/html_page.h"
#include "output/json_writer.h"
#include "util/errbuf.h"

#define SWEEP_SCHEMA	     "plerig-sweep"
#define SWEEP_SCHEMA_VERSION 1

static bool is_type(json_object *o, json_type t)
{
	return o && json_object_is_type(o, t);
}

/* A point's parameter values: what plerig sweep sets, a whole number 0..2^32-1 each. */
static int check_values(const char *path, size_t k, json_object *params, json_object *values,
			char *err, size_t errlen)
{
	for (size_t i = 0; i < json_object_array_length(params); i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(params, i));
		json_object *v = jget(values, name);
		if (!is_type(v, json_type_int) || json_object_get_int64(v) < 0 ||
		    json_object_get_int64(v) > (int64_t)UINT32_MAX)
			return errbuf_printf(err, errlen,
					     "%s: points[%zu].values: %s is not a parameter value "
					     "(a whole number from 0 to %u)",
					     path, k, name, UINT32_MAX);
	}
	return 0;
}

static int check_sweep(const char *path, json_object *root, char *err, size_t errlen)
{
	json_object *params = jget(root, "params"), *points = jget(root, "points");
	json_object *version = jget(root, "schema_version");

	if (!is_type(version, json_type_int) ||
	    json_object_get_int64(version) != SWEEP_SCHEMA_VERSION)
		return errbuf_printf(err, errlen, "%s: schema_version is not %d", path,
				     SWEEP_SCHEMA_VERSION);
	if (!is_type(params, json_type_array) || !json_object_array_length(params))
		return errbuf_printf(err, errlen, "%s: params is not a non-empty array", path);
	for (size_t i = 0; i < json_object_array_length(params); i++)
		if (!is_type(json_object_array_get_idx(params, i), json_type_string))
			return errbuf_printf(err, errlen, "%s: params[%zu] is not a string", path,
					     i);
	if (!is_type(points, json_type_array))
		return errbuf_printf(err, errlen, "%s: points is not an array", path);
	for (size_t k = 0; k < json_object_array_length(points); k++) {
		json_object *p = json_object_array_get_idx(points, k);
		if (!is_type(p, json_type_object))
			return errbuf_printf(err, errlen, "%s: points[%zu] is not an object", path,
					     k);
		if (!is_type(jget(p, "values"), json_type_object))
			return errbuf_printf(err, errlen, "%s: points[%zu]: missing values", path,
					     k);
		if (check_values(path, k, params, jget(p, "values"), err, errlen))
			return -1;
		if (!jstr(p, "variant"))
			return errbuf_printf(err, errlen, "%s: points[%zu]: missing variant", path,
					     k);
		if (!is_type(jget(p, "ok"), json_type_boolean))
			return errbuf_printf(err, errlen, "%s: points[%zu]: missing ok", path, k);
	}
	return 0;
}

#define TUNE_SCHEMA	    "plerig-tune"
#define TUNE_SCHEMA_VERSION 1

/* A value of the parameter tuned at @where: a whole number 0..2^32-1, or null where @nullable. */
static int check_tune_value(const char *path, const char *where, json_object *v, bool nullable,
			    char *err, size_t errlen)
{
	if (nullable && !v)
		return 0;
	if (!is_type(v, json_type_int) || json_object_get_int64(v) < 0 ||
	    json_object_get_int64(v) > (int64_t)UINT32_MAX)
		return errbuf_printf(err, errlen,
				     "%s: %s is not a parameter value (a whole number from 0 to "
				     "%u%s)",
				     path, where, UINT32_MAX, nullable ? ", or null" : "");
	return 0;
}

/* What the report draws of a tune document: the values on the log axis and the arrays. */
static int check_tune(const char *path, json_object *root, char *err, size_t errlen)
{
	json_object *version = jget(root, "schema_version"), *shapes = jget(root, "shapes");
	char where[96];

	if (!is_type(version, json_type_int) ||
	    json_object_get_int64(version) != TUNE_SCHEMA_VERSION)
		return errbuf_printf(err, errlen, "%s: schema_version is not %d", path,
				     TUNE_SCHEMA_VERSION);
	if (!is_type(jget(root, "param"), json_type_object) || !jstr(jget(root, "param"), "name"))
		return errbuf_printf(err, errlen, "%s: param is not an object with a name", path);
	if (!is_type(shapes, json_type_array))
		return errbuf_printf(err, errlen, "%s: shapes is not an array", path);
	for (size_t k = 0; k < json_object_array_length(shapes); k++) {
		json_object *s = json_object_array_get_idx(shapes, k), *curve = jget(s, "curve"),
			    *flat = jget(s, "flat");
		if (!is_type(s, json_type_object) || !is_type(curve, json_type_array) ||
		    (flat && !is_type(flat, json_type_array)))
			return errbuf_printf(err, errlen,
					     "%s: shapes[%zu] is not an object with a curve array",
					     path, k);
		snprintf(where, sizeof(where), "shapes[%zu].best", k);
		if (check_tune_value(path, where, jget(s, "best"), true, err, errlen))
			return -1;
		for (size_t i = 0; i < json_object_array_length(curve); i++) {
			json_object *p = json_object_array_get_idx(curve, i);
			if (!is_type(p, json_type_object))
				return errbuf_printf(err, errlen,
						     "%s: shapes[%zu].curve[%zu] is not an object",
						     path, k, i);
			snprintf(where, sizeof(where), "shapes[%zu].curve[%zu].value", k, i);
			if (check_tune_value(path, where, jget(p, "value"), true, err, errlen))
				return -1;
		}
		for (size_t i = 0; flat && i < json_object_array_length(flat); i++) {
			json_object *f = json_object_array_get_idx(flat, i);
			snprintf(where, sizeof(where), "shapes[%zu].flat[%zu].low", k, i);
			if (check_tune_value(path, where, jget(f, "low"), false, err, errlen))
				return -1;
			snprintf(where, sizeof(where), "shapes[%zu].flat[%zu].high", k, i);
			if (check_tune_value(path, where, jget(f, "high"), false, err, errlen))
				return -1;
		}
	}
	return 0;
}

int html_input_load(const char *path, struct html_input *out, char *err, size_t errlen)
{
	/* what the charts read of every ok run */
	const struct metric *need[] = {metric_by_name("acq_per_s"), metric_by_name("stalled_share"),
				       metric_by_name("run_delay_share")};
	json_object *root = results_file_parse(path, err, errlen);

	out->name = path;
	out->doc = NULL;
	out->host = NULL;
	if (!root)
		return -1;
	const char *schema = jstr(root, "schema");
	int (*check)(const char *, json_object *, char *, size_t) =
	    !schema			    ? NULL
	    : !strcmp(schema, SWEEP_SCHEMA) ? check_sweep
	    : !strcmp(schema, TUNE_SCHEMA)  ? check_tune
					    : NULL;
	if (check) {
		if (check(path, root, err, errlen)) {
			json_object_put(root);
			return -1;
		}
		out->doc = root;
		return 0;
	}
	if (schema && strcmp(schema, JSON_REPORT_SCHEMA)) {
		errbuf_printf(err, errlen,
			      "%s: schema \"%s\" is not drawn: plerig report reads `plerig run "
			      "--json` (%s), `plerig sweep --json` (%s) and `plerig tune --json` "
			      "(%s) files",
			      path, schema, JSON_REPORT_SCHEMA, SWEEP_SCHEMA, TUNE_SCHEMA);
		json_object_put(root);
		return -1;
	}
	/* a results file, or nothing plerig reads: compare's checks say which */
	struct results_file f;
	if (results_file_check(path, root, need, sizeof(need) / sizeof(need[0]), &f, err, errlen))
		return -1;
	out->doc = json_object_get(f.root);
	results_file_free(&f);
	return 0;
}
