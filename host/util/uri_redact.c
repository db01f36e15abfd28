// SPDX-License-Identifier: GPL-2.0
#include "util/uri_redact.h"

#include <stdbool.h>
#include <string.h>

/* libvirt's URI parameters that hold a secret or the path of one */
static const char *const secret_params[] = {"keyfile",	   "password", "passwd", "pkipath",
					    "known_hosts", "authfile", "command"};

struct out {
	char *s;
	size_t len, n;
};

static void put(struct out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n && o->n + 1 < o->len; i++)
		o->s[o->n++] = s[i];
	if (o->len)
		o->s[o->n] = '\0';
}

static bool is_secret(const char *name, size_t n)
{
	for (size_t i = 0; i < sizeof(secret_params) / sizeof(secret_params[0]); i++)
		if (strlen(secret_params[i]) == n && !strncasecmp(name, secret_params[i], n))
			return true;
	return false;
}

void uri_redact(const char *uri, char *out, size_t len)
{
	struct out o = {.s = out, .len = len};
	put(&o, "", 0);
	const char *scheme = strstr(uri, "://");
	if (!scheme || strpbrk(uri, "/?") < scheme) {
		put(&o, uri, strlen(uri));
		return;
	}
	const char *auth = scheme + 3;
	const size_t auth_len = strcspn(auth, "/?#");
	const char *at = memchr(auth, '@', auth_len);
	put(&o, uri, (size_t)(auth - uri));
	if (at) {
		put(&o, "***", 3);
		auth = at;
	}
	const char *query = strchr(auth, '?');
	put(&o, auth, query ? (size_t)(query - auth + 1) : strlen(auth));
	while (query) {
		const char *p = query + 1;
		const size_t n = strcspn(p, "&#");
		const char *eq = memchr(p, '=', n);
		if (eq && is_secret(p, (size_t)(eq - p))) {
			put(&o, p, (size_t)(eq - p + 1));
			put(&o, "***", 3);
		} else
			put(&o, p, n);
		query = p[n] == '&' ? p + n : NULL;
		if (query)
			put(&o, "&", 1);
		else
			put(&o, p + n, strlen(p + n));
	}
}

#define MAX_SECRETS 16

/* The user@ and the secret parameter values of @uri, as spans of it. */
static unsigned find_secrets(const char *uri, const char **at, size_t *n)
{
	unsigned k = 0;
	const char *scheme = strstr(uri, "://");
	if (!scheme)
		return 0;
	const char *auth = scheme + 3;
	const char *user_end = memchr(auth, '@', strcspn(auth, "/?#"));
	if (user_end && user_end > auth) {
		at[k] = auth;
		n[k++] = (size_t)(user_end - auth + 1); /* "user@": not every word "root" */
	}
	for (const char *q = strchr(auth, '?'); q && k < MAX_SECRETS; q = strchr(q + 1, '&')) {
		const char *p = q + 1;
		const size_t len = strcspn(p, "&#");
		const char *eq = memchr(p, '=', len);
		if (eq && is_secret(p, (size_t)(eq - p)) && p + len > eq + 1) {
			at[k] = eq + 1;
			n[k++] = (size_t)(p + len - eq - 1);
		}
	}
	return k;
}

void uri_redact_text(const char *uri, const char *text, char *out, size_t len)
{
	const char *at[MAX_SECRETS];
	size_t n[MAX_SECRETS];
	const unsigned k = find_secrets(uri, at, n);
	struct out o = {.s = out, .len = len};
	put(&o, "", 0);
	for (const char *t = text; *t;) {
		unsigned i = 0;
		while (i < k && strncmp(t, at[i], n[i]))
			i++;
		if (i < k) {
			put(&o, "***", 3);
			if (at[i][n[i] - 1] == '@')
				put(&o, "@", 1);
			t += n[i];
		} else if (*t == '\n') {
			if (t[1])
				put(&o, "; ", 2);
			t++;
		} else
			put(&o, t++, 1);
	}
}
