// SPDX-License-Identifier: GPL-2.0
#include "experiment/baseline_store.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/host_json.h"
#include "output/json_util.h"
#include "util/errbuf.h"
#include "util/interrupt.h"
#include "util/printable.h"
#include "util/regular_file.h"
#include "util/safe_dir.h"

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
