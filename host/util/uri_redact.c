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
