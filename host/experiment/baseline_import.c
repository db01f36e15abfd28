// SPDX-License-Identifier: GPL-2.0
#include "experiment/baseline_import.h"

#include <fcntl.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "util/errbuf.h"
#include "util/printable.h"
#include "util/regular_file.h"
#include "util/wall_clock.h"

void baseline_stamp(struct baseline *b, time_t t)
{
	if (wall_clock_iso(t, b->recorded_at, sizeof(b->recorded_at)))
		snprintf(b->recorded_at, sizeof(b->recorded_at), "unknown");
}

/*
 * The key the file names itself by; baseline_parse then holds it to the
 * machine the file describes (baseline_key, made of letters, digits, '_'
 * and '-' only). Checked here too: it becomes a file name.
 */
static int key_of(const char *path, const char *text, char *key, size_t keylen, char *err,
		  size_t errlen)
{
	json_object *root = json_tokener_parse(text), *k;
	int rc = -1;
	if (!root || !json_object_object_get_ex(root, "key", &k) ||
	    !json_object_is_type(k, json_type_string))
		errbuf_printf(err, errlen,
			      "%s: key: missing, or not a string (a baseline recorded by plerig "
			      "check names its machine)",
			      path);
	else if (!json_object_get_string_len(k) ||
		 (size_t)json_object_get_string_len(k) >= keylen ||
		 strspn(json_object_get_string(k), "abcdefghijklmnopqrstuvwxyz0123456789_-") !=
		     (size_t)json_object_get_string_len(k)) {
		char shown[80];
		printable_copy(shown, sizeof(shown), json_object_get_string(k));
		errbuf_printf(err, errlen,
			      "%s: key: '%s' is not a machine's key (lower-case letters, digits, "
			      "'_' and '-', as plerig check makes them)",
			      path, shown);
	} else {
		snprintf(key, keylen, "%s", json_object_get_string(k));
		rc = 0;
	}
	json_object_put(root);
	return rc;
}

int baseline_import(const char *dir, const char *path, time_t now, FILE *note, char *key,
		    size_t keylen, char *err, size_t errlen)
{
	struct baseline b;
	char why[256], *text;
	size_t len;
	int rc =
	    regular_file_read(AT_FDCWD, path, 0, BASELINE_FILE_MAX, &text, &len, why, sizeof(why));
	if (rc)
		return errbuf_printf(err, errlen, "%s: %s", path, why);
	/* a NUL inside is refused by baseline_parse, with the reason */
	rc = key_of(path, text, key, keylen, err, errlen);
	if (!rc)
		rc = baseline_parse(path, key, text, len, &b, err, errlen);
	free(text);
	if (rc)
		return -1;
	baseline_stamp(&b, now);
	rc = baseline_save(dir, &b, note, err, errlen);
	baseline_free(&b);
	return rc;
}
