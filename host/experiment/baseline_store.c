// SPDX-License-Identifier: GPL-2.0
#include "experiment/baseline_store.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/metrics.h"
#include "output/host_json.h"
#include "output/json_util.h"
#include "util/errbuf.h"
#include "util/interrupt.h"
#include "util/printable.h"
#include "util/regular_file.h"
#include "util/safe_dir.h"

#define BASELINE_SCHEMA	 "plerig-baseline"
#define BASELINE_VERSION 1

const char *baseline_store_dir(const char *option)
{
	if (option && *option)
		return option;
	const char *env = getenv("PLERIG_BASELINES");
	return env && *env ? env : NULL;
}

void baseline_path(const char *dir, const char *key, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s.json", dir, key);
}

/* ---- entries, sorted ---- */

static int entry_order(const char *scenario, const char *variant, const char *metric,
		       const struct baseline_entry *e)
{
	int c = strcmp(scenario, e->scenario);
	if (!c)
		c = strcmp(variant, e->variant);
	return c ? c : strcmp(metric, e->metric);
}

/* Where @scenario x @variant x @metric is, or would go; *found says which. */
static unsigned entry_slot(const struct baseline *b, const char *scenario, const char *variant,
			   const char *metric, bool *found)
{
	unsigned lo = 0, hi = b->nr_entries;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		int c = entry_order(scenario, variant, metric, &b->entries[mid]);
		if (!c) {
			*found = true;
			return mid;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	*found = false;
	return lo;
}

const struct baseline_entry *baseline_find(const struct baseline *b, const char *scenario,
					   const char *variant, const char *metric)
{
	bool found;
	if (!b)
		return NULL;
	unsigned i = entry_slot(b, scenario, variant, metric, &found);
	return found ? &b->entries[i] : NULL;
}

static int grow_entries(struct baseline *b)
{
	if (b->nr_entries < b->cap_entries)
		return 0;
	unsigned cap = b->cap_entries ? 2 * b->cap_entries : 64;
	struct baseline_entry *grown = realloc(b->entries, cap * sizeof(*grown));
	if (!grown)
		return -1;
	b->entries = grown;
	b->cap_entries = cap;
	return 0;
}

int baseline_put(struct baseline *b, const char *scenario, const char *variant, const char *metric,
		 const double *values, unsigned n)
{
	bool found;
	double *copy = malloc((n ? n : 1) * sizeof(*copy));
	if (!copy)
		return -1;
	if (n)
		memcpy(copy, values, n * sizeof(*copy));
	unsigned i = entry_slot(b, scenario, variant, metric, &found);
	if (!found) {
		if (grow_entries(b)) {
			free(copy);
			return -1;
		}
		memmove(&b->entries[i + 1], &b->entries[i],
			(b->nr_entries - i) * sizeof(*b->entries));
		b->nr_entries++;
		struct baseline_entry *e = &b->entries[i];
		memset(e, 0, sizeof(*e));
		snprintf(e->scenario, sizeof(e->scenario), "%s", scenario);
		snprintf(e->variant, sizeof(e->variant), "%s", variant);
		snprintf(e->metric, sizeof(e->metric), "%s", metric);
	}
	free(b->entries[i].values);
	b->entries[i].values = copy;
	b->entries[i].n = n;
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
	b->cap_entries = 0;
}

/* ---- reading ---- */

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
	if (grow_entries(b))
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

static int entry_cmp(const void *a, const void *b)
{
	const struct baseline_entry *y = b;
	return entry_order(((const struct baseline_entry *)a)->scenario,
			   ((const struct baseline_entry *)a)->variant,
			   ((const struct baseline_entry *)a)->metric, y);
}

/* Sorted once, n log n; a pair that compares equal is the same entry twice. */
static int sort_entries(const struct reader *r, struct baseline *b)
{
	if (b->nr_entries > 1)
		qsort(b->entries, b->nr_entries, sizeof(*b->entries), entry_cmp);
	for (unsigned i = 1; i < b->nr_entries; i++)
		if (!entry_cmp(&b->entries[i - 1], &b->entries[i]))
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

/* KEY.json relative to the store's @dfd, never through a symbolic link. */
static int load_at(int dfd, const char *dir, const char *key, struct baseline *b, char *err,
		   size_t errlen)
{
	char name[300], path[1024], why[256], *text;
	size_t len;
	snprintf(name, sizeof(name), "%s.json", key);
	baseline_path(dir, key, path, sizeof(path));
	memset(b, 0, sizeof(*b));
	snprintf(b->key, sizeof(b->key), "%s", key);
	int rc = regular_file_read(dfd, name, O_NOFOLLOW, BASELINE_FILE_MAX, &text, &len, why,
				   sizeof(why));
	if (rc == -ENOENT)
		return 1;
	if (rc)
		return errbuf_printf(err, errlen, "%s: %s", path, why);
	rc = baseline_parse(path, key, text, len, b, err, errlen);
	free(text);
	return rc;
}

static int open_store(const char *dir)
{
	return open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

int baseline_load(const char *dir, const char *key, struct baseline *b, char *err, size_t errlen)
{
	memset(b, 0, sizeof(*b));
	snprintf(b->key, sizeof(b->key), "%s", key);
	int dfd = open_store(dir);
	if (dfd < 0 && errno == ENOENT)
		return 1;
	if (dfd < 0)
		return errbuf_printf(err, errlen, "baseline store '%s': %s", dir, strerror(errno));
	int rc = load_at(dfd, dir, key, b, err, errlen);
	close(dfd);
	return rc;
}

/*
 * The file at @key is @stored's, not @now's: names that made one key. The
 * fix in the message: where that host's file now goes, or another store.
 */
static int other_host(const char *dir, const char *key, const struct host_info *stored,
		      const struct host_info *now, char *err, size_t errlen)
{
	char theirs[256], path[1024], stored_name[128], now_name[128];
	baseline_key(stored, theirs, sizeof(theirs));
	baseline_path(dir, key, path, sizeof(path));
	printable_copy(stored_name, sizeof(stored_name), stored->name);
	printable_copy(now_name, sizeof(now_name), now->name);
	if (strcmp(theirs, key))
		return errbuf_printf(
		    err, errlen,
		    "%s holds the baseline of host '%s', not of this host '%s': an "
		    "older plerig gave both names the key %s; move it to "
		    "%s/%s.json, where plerig now looks for that host's, and run "
		    "again",
		    path, stored_name, now_name, key, dir, theirs);
	return errbuf_printf(err, errlen,
			     "%s holds the baseline of host '%s', not of this host '%s', whose "
			     "name makes the same key: check this host with --baselines naming "
			     "another store",
			     path, stored_name, now_name);
}

int baseline_load_host(const char *dir, const struct host_info *h, struct baseline *b, char *err,
		       size_t errlen)
{
	char key[256], old[256];
	baseline_key(h, key, sizeof(key));
	baseline_legacy_key(h, old, sizeof(old));
	int rc = baseline_load(dir, key, b, err, errlen);
	if (rc == 1 && strcmp(old, key)) {
		/* recorded before names were kept apart: this host's if it names this host */
		rc = baseline_load(dir, old, b, err, errlen);
		if (rc == 0 && !baseline_same_host(&b->host, h)) {
			baseline_free(b); /* another host's: this one has none yet */
			rc = 1;
		}
		if (rc == 1)
			snprintf(b->key, sizeof(b->key), "%s", key);
		return rc;
	}
	if (rc == 0 && !baseline_same_host(&b->host, h)) {
		other_host(dir, key, &b->host, h, err, errlen);
		baseline_free(b);
		return -2;
	}
	return rc;
}

/* ---- writing ---- */

char *baseline_text(const struct baseline *b)
{
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
	char *copy = text ? strdup(text) : NULL;
	json_object_put(root);
	return copy;
}

static int make_store(const char *dir, char *err, size_t errlen)
{
	if (mkdir(dir, 0777) && errno != EEXIST)
		return errbuf_printf(err, errlen, "cannot create baseline store '%s': %s%s", dir,
				     strerror(errno),
				     errno == ENOENT ? " (its parent directory must exist)" : "");
	return 0;
}

int baseline_store_prepare(const char *dir, char *err, size_t errlen)
{
	char probe[64];
	if (make_store(dir, err, errlen))
		return -1;
	int dfd = open_store(dir);
	if (dfd < 0)
		return errbuf_printf(err, errlen, "baseline store '%s': %s", dir, strerror(errno));
	/* the thread's id: check --connect prepares the store for every host at once */
	snprintf(probe, sizeof(probe), ".plerig-probe.%ld", (long)gettid());
	int fd = openat(dfd, probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int e = errno;
	if (fd >= 0) {
		close(fd);
		unlinkat(dfd, probe, 0);
	}
	close(dfd);
	if (fd < 0)
		return errbuf_printf(err, errlen, "baseline store '%s' is not writable: %s", dir,
				     strerror(e));
	return 0;
}

/* Another recording into the store finishes first; a signal gives up the wait. */
static int lock_store(int dfd, const char *dir, FILE *note, char *err, size_t errlen)
{
	if (!flock(dfd, LOCK_EX | LOCK_NB))
		return 0;
	if (errno != EWOULDBLOCK)
		return errbuf_printf(err, errlen, "cannot lock baseline store '%s': %s", dir,
				     strerror(errno));
	if (note) {
		printable_printf(
		    note, "plerig check: waiting for another recording into %s to finish\n", dir);
		fflush(note);
	}
	while (flock(dfd, LOCK_EX))
		if (errno != EINTR || interrupt_requested())
			return errbuf_printf(err, errlen, "cannot lock baseline store '%s': %s",
					     dir, strerror(errno));
	return 0;
}

/* @b's scenarios replace theirs in @cur; @cur's header becomes @b's. */
static int merge(struct baseline *cur, const struct baseline *b)
{
	for (unsigned i = 0; i < b->nr_entries; i++)
		if (!i || strcmp(b->entries[i].scenario, b->entries[i - 1].scenario))
			baseline_drop_scenario(cur, b->entries[i].scenario);
	for (unsigned i = 0; i < b->nr_entries; i++) {
		const struct baseline_entry *e = &b->entries[i];
		if (baseline_put(cur, e->scenario, e->variant, e->metric, e->values, e->n))
			return -1;
	}
	memcpy(cur->key, b->key, sizeof(cur->key));
	memcpy(cur->recorded_at, b->recorded_at, sizeof(cur->recorded_at));
	memcpy(cur->plerig_version, b->plerig_version, sizeof(cur->plerig_version));
	memcpy(cur->suite, b->suite, sizeof(cur->suite));
	cur->host = b->host;
	return 0;
}

int baseline_save(const char *dir, const struct baseline *b, FILE *note, char *err, size_t errlen)
{
	struct baseline cur;
	char *text = NULL;
	int rc = -1;

	memset(&cur, 0, sizeof(cur));
	if (make_store(dir, err, errlen))
		return -1;
	int dfd = open_store(dir);
	if (dfd < 0)
		return errbuf_printf(err, errlen, "baseline store '%s': %s", dir, strerror(errno));
	if (lock_store(dfd, dir, note, err, errlen))
		goto out;
	/* what is there now: another recording may have landed since this one began */
	int got = load_at(dfd, dir, b->key, &cur, err, errlen);
	if (got < 0)
		goto out;
	if (got == 0 && !baseline_same_host(&cur.host, &b->host)) {
		other_host(dir, b->key, &cur.host, &b->host, err, errlen);
		goto out;
	}
	/* none yet under this key: this host's file under the key plerig gave it before, if
	 * any, is carried over to this one (and removed once this one is written) */
	char old[256];
	bool carried = false;
	baseline_legacy_key(&b->host, old, sizeof(old));
	if (got == 1 && strcmp(old, b->key)) {
		if (load_at(dfd, dir, old, &cur, err, errlen) < 0)
			goto out;
		carried = baseline_same_host(&cur.host, &b->host) && cur.nr_entries;
		if (!carried)
			baseline_free(&cur);
	}
	if (merge(&cur, b) || !(text = baseline_text(&cur))) {
		errbuf_printf(err, errlen, "out of memory");
		goto out;
	}
	/* a new file renamed over KEY.json: a link planted there is replaced, not followed */
	char name[300];
	snprintf(name, sizeof(name), "%s.json", b->key);
	rc = safe_file_replace(dfd, dir, name, text, strlen(text), 0666, err, errlen);
	snprintf(name, sizeof(name), "%s.json", old);
	if (!rc && carried)
		unlinkat(dfd, name, 0);
out:
	free(text);
	baseline_free(&cur);
	close(dfd); /* and with it the lock */
	return rc;
}
