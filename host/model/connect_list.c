// SPDX-License-Identifier: GPL-2.0
#include "model/connect_list.h"

#include <stdio.h>
#include <string.h>

#include "util/errbuf.h"
#include "util/uri_redact.h"

/* The emulated vendor @uri names ("intel" for plain emulated), or NULL: not emulated. */
static const char *vendor_of(const char *uri)
{
	const char *v = connect_emulated_vendor(uri);
	return v ? v : connect_is_emulated(uri) ? "intel" : NULL;
}

int connect_list_parse(const char *text, struct connect_list *out, char *err, size_t errlen)
{
	char shown[CONNECT_URI_MAX];
	memset(out, 0, sizeof(*out));
	if (!text || !*text)
		return 0;
	for (const char *p = text;; p++) {
		size_t n = strcspn(p, ",");
		if (!n)
			return errbuf_printf(err, errlen,
					     "--connect: an empty URI in the list (URIs are "
					     "separated by single commas; write a comma inside a "
					     "URI as %%2C)");
		if (n >= CONNECT_URI_MAX)
			return errbuf_printf(err, errlen,
					     "--connect: a URI is longer than %u bytes",
					     CONNECT_URI_MAX - 1);
		if (out->nr == CONNECT_MAX_HOSTS)
			return errbuf_printf(err, errlen, "--connect: more than %u hosts",
					     CONNECT_MAX_HOSTS);
		char *uri = out->uris[out->nr];
		memcpy(uri, p, n);
		uri[n] = '\0';
		/*
		 * An embedded driver of the user's root refuses autodestroy, so
		 * every domain would fail; plerig's own (`embedded`) is set up
		 * for it (its qemu.conf, state in memory, no autodestroy)
		 */
		if (!strncmp(uri, "qemu:///embed", 13))
			return errbuf_printf(err, errlen,
					     "--connect: %.*s... is a libvirt embedded driver "
					     "of a root of your own; plerig runs its own: write "
					     "'" CONNECT_EMBEDDED "' (--cache-dir chooses where "
					     "its state lives)",
					     13, uri);
		for (unsigned i = 0; i < out->nr; i++)
			if (!strcmp(out->uris[i], uri)) {
				uri_redact(uri, shown, sizeof(shown));
				return errbuf_printf(err, errlen,
						     "--connect: %s is named twice (each host "
						     "once)",
						     shown);
			}
		const char *vendor = connect_emulated_vendor(uri);
		if (vendor &&
		    (!*vendor ||
		     strspn(vendor, "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(vendor)))
			return errbuf_printf(err, errlen,
					     "--connect: %s: write emulated:VENDOR, VENDOR a name "
					     "of images/l1/vendors.cfg (intel, amd)",
					     uri);
		/* emulated and emulated:intel are one emulated machine: twice is once too many */
		for (unsigned i = 0; vendor_of(uri) && i < out->nr; i++)
			if (vendor_of(out->uris[i]) &&
			    !strcmp(vendor_of(out->uris[i]), vendor_of(uri)))
				return errbuf_printf(
				    err, errlen,
				    "--connect: %s and %s are the same emulated "
				    "host (each vendor once: emulated,emulated:amd "
				    "puts Intel and AMD side by side)",
				    out->uris[i], uri);
		out->nr++;
		p += n;
		if (!*p)
			return 0;
	}
}

const char *connect_list_uri(const struct connect_list *l, unsigned i)
{
	return strcmp(l->uris[i], CONNECT_EMBEDDED) ? l->uris[i] : NULL;
}

bool connect_is_emulated(const char *uri)
{
	const size_t n = strlen(CONNECT_EMULATED);
	return uri && !strncmp(uri, CONNECT_EMULATED, n) && (!uri[n] || uri[n] == ':');
}

const char *connect_emulated_vendor(const char *uri)
{
	return connect_is_emulated(uri) && uri[strlen(CONNECT_EMULATED)] == ':'
		   ? uri + strlen(CONNECT_EMULATED) + 1
		   : NULL;
}

unsigned connect_list_emulated(const struct connect_list *l)
{
	unsigned n = 0;
	for (unsigned i = 0; i < l->nr; i++)
		n += connect_is_emulated(l->uris[i]);
	return n;
}

void connect_uri_host(const char *uri, char *out, size_t len)
{
	const char *p = strstr(uri, "://");
	p = p ? p + 3 : uri;
	const size_t authority = strcspn(p, "/?");
	/* libxml2's userinfo ends at the last '@' (a password may hold one) */
	const char *at = memrchr(p, '@', authority);
	const char *host = at ? at + 1 : p;
	size_t n = authority - (size_t)(host - p);
	/* a port after the name, unless the colon is inside an IPv6 address [::1] */
	const char *colon = memrchr(host, ':', n);
	if (colon && !memchr(colon, ']', n - (size_t)(colon - host)))
		n = (size_t)(colon - host);
	snprintf(out, len, "%.*s", (int)n, host);
}
