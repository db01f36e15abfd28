// SPDX-License-Identifier: GPL-2.0
#include "compare/results_file.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomic_file.h"
#include "output/host_json.h"
#include "util/printable.h"
#include "util/strfmt.h"
#include "output/json_writer.h"

/* No figure plerig writes comes near this; past it the variance would overflow. */
#define RESULTS_VALUE_MAX 1e15

/* Where in which file: every message starts "PATH: json.path: ". */
struct where {
	const char *file;
	char *err;
	size_t errlen;
};

static int bad(const struct where *w, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad(const struct where *w, const char *at, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (at && *at)
		return errbuf_printf(w->err, w->errlen, "%s: %s: %s", w->file, at, what);
	return errbuf_printf(w->err, w->errlen, "%s: %s", w->file, what);
}

/* "a string", "a number": how the JSON reader would name a type. */
static const char *kind(json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "a boolean";
	case json_type_int:
	case json_type_double:
		return "a number";
	case json_type_string:
		return "a string";
	case json_type_object:
		return "an object";
	case json_type_array:
		return "an array";
	}
	return "?";
}

static bool is_number(json_object *o)
{
	return json_object_is_type(o, json_type_int) || json_object_is_type(o, json_type_double);
}

enum want { WANT_STRING, WANT_INT, WANT_NUMBER, WANT_BOOL, WANT_OBJECT, WANT_ARRAY };

static const char *const want_names[] = {
    [WANT_STRING] = "a string", [WANT_INT] = "an integer",   [WANT_NUMBER] = "a number",
    [WANT_BOOL] = "a boolean",	[WANT_OBJECT] = "an object", [WANT_ARRAY] = "an array",
};

static bool is(json_object *o, enum want want)
{
	switch (want) {
	case WANT_STRING:
		return json_object_is_type(o, json_type_string);
	case WANT_INT:
		return json_object_is_type(o, json_type_int);
	case WANT_NUMBER:
		return is_number(o);
	case WANT_BOOL:
		return json_object_is_type(o, json_type_boolean);
	case WANT_OBJECT:
		return json_object_is_type(o, json_type_object);
	case WANT_ARRAY:
		return json_object_is_type(o, json_type_array);
	}
	return false;
}

/* @o.@key, which must exist and be of kind @want; NULL after an error message. */
static json_object *member(const struct where *w, const char *at, json_object *o, const char *key,
			   enum want want)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v)) {
		bad(w, at, "missing %s", key);
		return NULL;
	}
	if (!is(v, want)) {
		bad(w, at, "%s is %s, not %s", key, kind(v), want_names[want]);
		return NULL;
	}
	return v;
}

/* An optional string member, for the header; NULL when absent or not a string. */
static const char *opt_string(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* ---- the file --------------------------------------------------------- */

/*
 * Wait for a writer's next bytes, or for it to close: a FIFO or a pipe with
 * a writer (`plerig compare <(ssh host cat r.json) b.json`). 0, or -1 with errno.
 */
static int wait_readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

/* Past RESULTS_FILE_MAX (@size bytes; 0: a pipe, whose size is not known): the way out. */
static void too_big(const struct where *w, unsigned long long size)
{
	char n[32] = "";
	if (size)
		snprintf(n, sizeof(n), "%llu bytes, ", size);
	bad(w, NULL,
	    "%smore than the %u MiB a results file may have here (reading one takes 5 to 14 "
	    "times its size in memory): write the experiment into several files, fewer "
	    "variants or --repeat each, and compare or report those",
	    n, RESULTS_FILE_MAX >> 20);
}

/*
 * Whole file, so that a syntax error can be placed by line. Refused above
 * RESULTS_FILE_MAX before parsing, so every length fits json-c's int.
 * Opened with O_NONBLOCK: a FIFO nobody writes to reads as empty at once
 * instead of blocking the open for ever; one with a writer is read to its end.
 */
static char *read_all(const struct where *w, size_t *len)
{
	int fd = open(w->file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	char *text = NULL;
	size_t cap = 0;
	struct stat st;

	*len = 0;
	if (fd < 0) {
		bad(w, NULL, "cannot open: %s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0) {
		bad(w, NULL, "cannot stat: %s", strerror(errno));
		goto fail;
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > RESULTS_FILE_MAX) {
		too_big(w, (unsigned long long)st.st_size);
		goto fail;
	}
	for (;;) {
		if (*len > RESULTS_FILE_MAX) { /* a pipe says no size beforehand */
			too_big(w, 0);
			goto fail;
		}
		if (*len + 65536 + 1 > cap) {
			char *grown = realloc(text, cap = cap * 2 + 65536 + 1);
			if (!grown) {
				bad(w, NULL, "out of memory");
				goto fail;
			}
			text = grown;
		}
		ssize_t n = read(fd, text + *len, cap - *len - 1);
		if (n < 0 && (errno == EINTR || (errno == EAGAIN && !wait_readable(fd))))
			continue;
		if (n < 0) {
			bad(w, NULL, "cannot read: %s", strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		*len += (size_t)n;
	}
	if (*len == 0 && S_ISFIFO(st.st_mode)) {
		bad(w, NULL,
		    "a FIFO with no writer (or one that wrote nothing): nothing to read; "
		    "start the writer first, or pass a file");
		goto fail;
	}
	close(fd);
	text[*len] = '\0';
	return text;
fail:
	free(text);
	close(fd);
	return NULL;
}

static json_object *parse(const struct where *w)
{
	size_t len;
	char *text = read_all(w, &len);
	json_tokener *tok;
	json_object *root;

	if (!text)
		return NULL;
	if (len == 0) {
		bad(w, NULL, "empty file, not JSON");
		free(text);
		return NULL;
	}
	tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	if (!tok) {
		bad(w, NULL, "out of memory");
		free(text);
		return NULL;
	}
	root = json_tokener_parse_ex(tok, text, (int)len);
	enum json_tokener_error e = json_tokener_get_error(tok);
	size_t end = json_tokener_get_parse_end(tok);
	if (e == json_tokener_continue) {
		bad(w, NULL, "not JSON: the text ends in the middle of a value (truncated?)");
	} else if (e != json_tokener_success || !root) {
		unsigned line = 1;
		for (size_t i = 0; i < end && i < len; i++)
			line += text[i] == '\n';
		bad(w, NULL, "not JSON: %s at line %u", json_tokener_error_desc(e), line);
	} else {
		/* trailing garbage after the document is damage too */
		while (end < len && strchr(" \t\r\n", text[end]))
			end++;
		if (end < len)
			bad(w, NULL, "not JSON: text after the end of the document");
	}
	if ((e != json_tokener_success || end < len) && root) {
		json_object_put(root);
		root = NULL;
	}
	json_tokener_free(tok);
	free(text);
	return root;
}

/* ---- control characters ------------------------------------------------ */

/* Every string in the document by the printable rule, in place: compare prints them. */
static void escape_strings(json_object *o)
{
	if (json_object_is_type(o, json_type_string)) {
		char *e = printable_dup(json_object_get_string(o));
		if (e)
			json_object_set_string(o, e);
		free(e);
	} else if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++)
			escape_strings(json_object_array_get_idx(o, i));
	} else if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, key, val)
		{
			(void)key;
			escape_strings(val);
		}
	}
}

/* ---- checks ----------------------------------------------------------- */

static int check_schema(const struct where *w, json_object *root)
{
	json_object *schema, *version;

	if (!json_object_is_type(root, json_type_object))
		return bad(w, NULL, "not a plerig results file: the document is %s, not an object",
			   kind(root));
	if (!json_object_object_get_ex(root, "schema", &schema) ||
	    !json_object_is_type(schema, json_type_string) ||
	    strcmp(json_object_get_string(schema), JSON_REPORT_SCHEMA))
		return bad(w, NULL, "not a plerig results file (no \"schema\": \"%s\")",
			   JSON_REPORT_SCHEMA);
	if (!(version = member(w, NULL, root, "schema_version", WANT_INT)))
		return -1;
	int64_t v = json_object_get_int64(version);
	if (v < JSON_REPORT_SCHEMA_VERSION)
		return bad(w, NULL,
			   "schema_version %lld is from an older plerig, without repeats; "
			   "compare reads version %d: rerun it with this plerig and --repeat >= 2",
			   (long long)v, JSON_REPORT_SCHEMA_VERSION);
	if (v > JSON_REPORT_SCHEMA_VERSION)
		return bad(w, NULL,
			   "schema_version %lld is newer than this plerig reads (%d): "
			   "compare it with the plerig that wrote it",
			   (long long)v, JSON_REPORT_SCHEMA_VERSION);
	return 0;
}

/*
 * @path in @o: a member, or a dotted path through nested objects
 * ("halt_path.kvm.halt_exits"), as metrics name them (model/metrics.h).
 * Whether it is there; *@v its value (NULL for a JSON null).
 */
static bool path_get(json_object *o, const char *path, json_object **v)
{
	char key[96];
	const char *dot;
	*v = NULL;
	while ((dot = strchr(path, '.'))) {
		size_t n = (size_t)(dot - path);
		if (n >= sizeof(key) || !json_object_is_type(o, json_type_object))
			return false;
		memcpy(key, path, n);
		key[n] = '\0';
		if (!json_object_object_get_ex(o, key, &o))
			return false;
		path = dot + 1;
	}
	return json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, path, v);
}

static int check_run(const struct where *w, const char *at, json_object *run,
		     const struct metric *const *metrics, unsigned nr_metrics, bool *ok)
{
	json_object *okv, *summary;

	if (!json_object_is_type(run, json_type_object))
		return bad(w, at, "is %s, not an object", kind(run));
	if (!(okv = member(w, at, run, "ok", WANT_BOOL)))
		return -1;
	*ok = json_object_get_boolean(okv);
	if (!json_object_object_get_ex(run, "summary", &summary))
		return bad(w, at, "missing summary");
	if (!*ok)
		return 0; /* a failed run has no figures to check */
	if (!json_object_is_type(summary, json_type_object))
		return bad(w, at, "summary is %s although ok is true", kind(summary));

	char sat[128];
	snprintf(sat, sizeof(sat), "%s.summary", at);
	for (unsigned m = 0; m < nr_metrics; m++) {
		/* a ratio is read from its two counts (model/metrics.h), any other from itself */
		const char *keys[2] = {metrics[m]->num ? metrics[m]->num : metrics[m]->name,
				       metrics[m]->den};
		for (unsigned k = 0; k < 2 && keys[k]; k++) {
			json_object *v;
			if (!path_get(summary, keys[k], &v))
				return bad(w, sat, "missing %s", keys[k]);
			if (v && !is_number(v))
				return bad(w, sat, "%s is %s, not a number or null", keys[k],
					   kind(v));
			/* NaN and Infinity are not JSON, and 1e308 is no measurement */
			double x = v ? json_object_get_double(v) : 0.0;
			if (v && (!isfinite(x) || fabs(x) > RESULTS_VALUE_MAX))
				return bad(w, NULL, "%s.%s: %s out of range", sat, keys[k],
					   json_object_get_string(v));
		}
	}
	return 0;
}

/* Identity fields into key (for matching) and label (for people). */
static int load_identity(const struct where *w, const char *at, struct loaded_variant *lv)
{
	static const char *const names[] = {RESULTS_FILE_IDENTITY};
	static const enum want wants[] = {WANT_STRING, WANT_STRING, WANT_STRING, WANT_STRING,
					  WANT_INT,    WANT_INT,    WANT_STRING, WANT_STRING,
					  WANT_INT,    WANT_INT};
	const char *text[sizeof(names) / sizeof(names[0])];
	size_t used = 0;

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		json_object *v = member(w, at, lv->obj, names[i], wants[i]);
		if (!v)
			return -1;
		/* json-c keeps the text of a number until the document is freed */
		text[i] = json_object_get_string(v);
		int n = snprintf(lv->key + used, sizeof(lv->key) - used, "%s%s=%s", used ? " " : "",
				 names[i], text[i]);
		if (n < 0 || (size_t)n >= sizeof(lv->key) - used)
			return bad(w, at, "identity fields are too long");
		used += (size_t)n;
	}
	/* "ple" came after the first files were written: absent means the host default */
	const char *ple = opt_string(lv->obj, "ple");
	if (!ple)
		ple = "on";
	int n = snprintf(lv->key + used, sizeof(lv->key) - used, " ple=%s", ple);
	if (n < 0 || (size_t)n >= sizeof(lv->key) - used)
		return bad(w, at, "identity fields are too long");
	/* "halt_poll_ns" likewise: absent or null is the host's setting */
	json_object *poll = NULL;
	char poll_text[48] = "";
	if (json_object_object_get_ex(lv->obj, "halt_poll_ns", &poll) && poll)
		snprintf(poll_text, sizeof(poll_text), " halt-poll=%sns",
			 json_object_get_string(poll));
	used += (size_t)n;
	n = snprintf(lv->key + used, sizeof(lv->key) - used, "%s", poll_text);
	if (n < 0 || (size_t)n >= sizeof(lv->key) - used)
		return bad(w, at, "identity fields are too long");
	snprintf(lv->label, sizeof(lv->label), "%s %s %s %s %sx%s on %s pin=%s cs=%s think=%s%s%s",
		 text[0], text[1], text[2], text[3], text[4], text[5], text[6], text[7], text[8],
		 text[9], strcmp(ple, "off") ? "" : " ple=off", poll_text);
	return 0;
}

static int load_variant(const struct where *w, json_object *obj, unsigned index,
			const struct metric *const *metrics, unsigned nr_metrics,
			struct loaded_variant *lv)
{
	char at[64];

	snprintf(at, sizeof(at), "variants[%u]", index);
	memset(lv, 0, sizeof(*lv));
	lv->index = index;
	lv->obj = obj;
	if (!json_object_is_type(obj, json_type_object))
		return bad(w, at, "is %s, not an object", kind(obj));
	if (load_identity(w, at, lv))
		return -1;
	if (!(lv->runs = member(w, at, obj, "runs", WANT_ARRAY)))
		return -1;
	lv->nr_runs = (unsigned)json_object_array_length(lv->runs);
	for (unsigned r = 0; r < lv->nr_runs; r++) {
		json_object *run = json_object_array_get_idx(lv->runs, r);
		char rat[96];
		bool ok = false;

		snprintf(rat, sizeof(rat), "%s.runs[%u]", at, r);
		if (check_run(w, rat, run, metrics, nr_metrics, &ok))
			return -1;
		lv->nr_ok += ok;
		if (!ok && !lv->first_error)
			lv->first_error = opt_string(run, "error");
	}
	return 0;
}

/* "ple_gap=128 ple_window=4096", to show and to compare as text (keys escaped too). */
static void ple_params_text(json_object *host, char *buf, size_t len)
{
	struct host_info h;
	host_from_json(host, &h);
	char *e = printable_dup(h.ple_params);
	snprintf(buf, len, "%s", e ? e : h.ple_params);
	free(e);
}

int results_file_load(const char *path, const struct metric *const *metrics, unsigned nr_metrics,
		      struct results_file *out, char *err, size_t errlen)
{
	json_object *root = results_file_parse(path, err, errlen);

	if (!root) {
		memset(out, 0, sizeof(*out));
		return -1;
	}
	return results_file_check(path, root, metrics, nr_metrics, out, err, errlen);
}

int results_file_check(const char *path, json_object *root, const struct metric *const *metrics,
		       unsigned nr_metrics, struct results_file *out, char *err, size_t errlen)
{
	const struct where w = {.file = path, .err = err, .errlen = errlen};
	json_object *variants, *host = NULL, *v;

	memset(out, 0, sizeof(*out));
	out->path = path;
	out->root = root;
	escape_strings(root);
	if (check_schema(&w, root) || !(variants = member(&w, NULL, root, "variants", WANT_ARRAY)))
		goto fail;
	if (json_object_object_get_ex(root, "host", &host) &&
	    !json_object_is_type(host, json_type_object)) {
		bad(&w, NULL, "host is %s, not an object", kind(host));
		goto fail;
	}
	if (json_object_object_get_ex(root, "interrupted", &v))
		out->interrupted = json_object_get_boolean(v);
	out->plerig_version = opt_string(root, "plerig_version");
	out->command_line = opt_string(root, "command_line");
	out->kernel = opt_string(host, "kernel");
	out->kvm_module = opt_string(host, "kvm_module");
	out->kvm_module_source = opt_string(host, "kvm_module_source");
	out->cpu_model = opt_string(host, "cpu_model");
	ple_params_text(host, out->ple_params_text, sizeof(out->ple_params_text));
	out->ple_params = out->ple_params_text;

	out->nr_variants = (unsigned)json_object_array_length(variants);
	out->variants = calloc(out->nr_variants ? out->nr_variants : 1, sizeof(*out->variants));
	if (!out->variants) {
		bad(&w, NULL, "out of memory");
		goto fail;
	}
	json_object *hosts = NULL;
	out->nr_hosts = json_object_object_get_ex(root, "hosts", &hosts) &&
				json_object_is_type(hosts, json_type_array) &&
				json_object_array_length(hosts) > 1
			    ? (unsigned)json_object_array_length(hosts)
			    : 1;
	const char *host_name = opt_string(host, "name");
	for (unsigned i = 0; i < out->nr_variants; i++) {
		struct loaded_variant *lv = &out->variants[i];
		if (load_variant(&w, json_object_array_get_idx(variants, i), i, metrics, nr_metrics,
				 lv))
			goto fail;
		lv->host = opt_string(lv->obj, "host");
		if (!lv->host)
			lv->host = host_name ? host_name : "";
		/* the same variant is there once per host: say which */
		if (out->nr_hosts > 1) {
			char label[sizeof(lv->label)];
			snprintf(label, sizeof(label), "%s", lv->label);
			(void)pathf(lv->label, sizeof(lv->label), "%.*s: %s",
				    (int)printable_cut(lv->host, 60), lv->host, label);
		}
	}
	return 0;
fail:
	results_file_free(out);
	return -1;
}

void results_file_free(struct results_file *f)
{
	free(f->variants);
	json_object_put(f->root);
	memset(f, 0, sizeof(*f));
}

/* @summary.@key as a number; NaN for null or anything else (checked on loading). */
static double summary_number(json_object *summary, const char *key)
{
	json_object *v = NULL;
	return path_get(summary, key, &v) && is_number(v) ? json_object_get_double(v) : NAN;
}

double results_file_summary_value(json_object *summary, const struct metric *m, const char **why)
{
	const char *own = NULL;
	double v;
	const char *at = m->num ? m->num : m->name;
	if (m->den) {
		const double num = summary_number(summary, at);
		v = metric_ratio(num, !isnan(num), summary_number(summary, m->den), &own);
	} else {
		v = summary_number(summary, at);
	}
	if (isnan(v) && why) {
		/* the reason plerig wrote beside the null (its numerator's, for a ratio) */
		json_object *reason = NULL;
		if (!own && m->why_key && path_get(summary, m->why_key, &reason) &&
		    json_object_is_type(reason, json_type_string))
			own = json_object_get_string(reason);
		*why = own ? own : "null in the file, with no reason beside it";
	}
	return v;
}

unsigned results_file_values(const struct loaded_variant *v, const struct metric *m, double *out,
			     const char **why)
{
	unsigned n = 0;

	if (why)
		*why = NULL;
	for (unsigned r = 0; r < v->nr_runs; r++) {
		json_object *run = json_object_array_get_idx(v->runs, r);
		json_object *ok, *summary;
		const char *run_why = NULL;

		if (!json_object_object_get_ex(run, "ok", &ok) || !json_object_get_boolean(ok) ||
		    !json_object_object_get_ex(run, "summary", &summary))
			continue;
		const double x = results_file_summary_value(summary, m, &run_why);
		if (!isnan(x))
			out[n++] = x;
		else if (why && !*why)
			*why = run_why;
	}
	return n;
}

json_object *results_file_member(const struct loaded_variant *v, const char *key)
{
	json_object *o = NULL;

	return json_object_object_get_ex(v->obj, key, &o) ? o : NULL;
}

json_object *results_file_parse(const char *path, char *err, size_t errlen)
{
	const struct where w = {.file = path, .err = err, .errlen = errlen};

	return parse(&w);
}
