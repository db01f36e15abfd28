// SPDX-License-Identifier: GPL-2.0
#include "util/uri_redact.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/*
 * libvirt's parameters whose value is a secret, the path of one, or a
 * command that may carry one (src/remote/remote_driver.c: keyfile,
 * pkipath, known_hosts, command, netcat; src/util/virauth.c: authfile).
 */
static const char *const secret_params[] = {"keyfile",	"pkipath", "known_hosts",
					    "authfile", "command", "netcat"};
/* ...and any parameter named like a credential, whatever the driver */
static const char *const secret_words[] = {"pass", "pwd", "secret", "token", "key", "cred"};

/* How deep a parameter's value is read as a text of its own before it is hidden unread. */
#define MAX_DEPTH 3

/* A secret in a text: [at, at + n) is shown as "***". */
typedef void span_fn(void *ctx, size_t at, size_t n);

struct walk {
	span_fn *fn;
	void *ctx;
	unsigned depth;
};

static void text_spans(const char *t, size_t n, const struct walk *w);

static bool ends_word(unsigned char c)
{
	return c < 0x20 || c == 0x7f || c == ' ' || c == ',' || c == '"';
}

static int hex(unsigned char c)
{
	return isdigit(c) ? c - '0' : isxdigit(c) ? tolower(c) - 'a' + 10 : -1;
}

/* @s[0, @n) percent-decoded into @out (@n + 1 bytes), as libxml2's xmlURIUnescapeString. */
static size_t unescape(const char *s, size_t n, char *out)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		int hi, lo;
		if (s[i] == '%' && i + 2 < n && (hi = hex((unsigned char)s[i + 1])) >= 0 &&
		    (lo = hex((unsigned char)s[i + 2])) >= 0) {
			out[m++] = (char)(hi << 4 | lo);
			i += 2;
		} else
			out[m++] = s[i];
	}
	out[m] = '\0';
	return m;
}

static bool secret_name(const char *raw, size_t n)
{
	char *name = malloc(n + 1);
	if (!name)
		return true; /* unread is hidden */
	unescape(raw, n, name);
	for (char *c = name; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	bool secret = false;
	for (size_t i = 0; !secret && i < sizeof(secret_params) / sizeof(secret_params[0]); i++)
		secret = !strcmp(name, secret_params[i]);
	for (size_t i = 0; !secret && i < sizeof(secret_words) / sizeof(secret_words[0]); i++)
		secret = strstr(name, secret_words[i]) != NULL;
	free(name);
	return secret;
}

static void count_span(void *ctx, size_t at, size_t n)
{
	(void)at;
	(void)n;
	++*(unsigned *)ctx;
}

/* Does a value, percent-decoded, hide something by the rule (a URI inside)? */
static bool value_holds_secret(const char *v, size_t n, unsigned depth)
{
	char *d = malloc(n + 1);
	if (!d)
		return true;
	const size_t m = unescape(v, n, d);
	unsigned found = 0;
	if (depth >= MAX_DEPTH)
		found = strpbrk(d, "@?:") != NULL;
	else
		text_spans(d, m,
			   &(struct walk){.fn = count_span, .ctx = &found, .depth = depth + 1});
	free(d);
	return found;
}

/* An authority without '@' that is no host[:port]: a userinfo cut short by a '/', '?' or '#'. */
static bool not_a_host(const char *a, size_t n)
{
	const char *bracket = memrchr(a, ']', n);
	const char *from = bracket ? bracket + 1 : a;
	const char *colon = memrchr(from, ':', n - (size_t)(from - a));
	for (const char *p = colon ? colon + 1 : a + n; p < a + n; p++)
		if (!isdigit((unsigned char)*p))
			return true;
	return false;
}

/* The query parameters of @t[@q, @e), split at '&' and ';'. */
static void params_spans(const char *t, size_t q, size_t e, const struct walk *w)
{
	for (size_t p = q; p < e;) {
		size_t end = p;
		while (end < e && t[end] != '&' && t[end] != ';')
			end++;
		const char *eq = memchr(t + p, '=', end - p);
		/* "=value" is ignored by libvirt; "name" and "name=" have no value */
		if (eq && eq > t + p && eq + 1 < t + end) {
			const size_t v = (size_t)(eq + 1 - t);
			if (secret_name(t + p, v - 1 - p) ||
			    value_holds_secret(t + v, end - v, w->depth))
				w->fn(w->ctx, v, end - v);
		}
		p = end + 1;
	}
}

/*
 * Where a userinfo cut by a ' ' or ',' at @t[@e] (a password with one in
 * it: "u:p w@h", "u:p,w@h") ends: its last '@' before a '/', '?', '#', '"',
 * a control character or the end of the text (@n bytes), or 0 when none.
 */
static size_t userinfo_runs_on(const char *t, size_t e, size_t n)
{
	size_t at = 0;
	if (e >= n || (t[e] != ' ' && t[e] != ','))
		return 0;
	for (size_t i = e;
	     i < n && !strchr("/?#\"", t[i]) && (unsigned char)t[i] >= 0x20 && t[i] != 0x7f; i++)
		if (t[i] == '@')
			at = i;
	return at;
}

/* The word @t[@s, @e) of a text of @n bytes; where the walk goes on (past @e: see above). */
static size_t word_spans(const char *t, size_t s, size_t e, size_t n, const struct walk *w)
{
	const char *sep = memmem(t + s, e - s, "://", 3);
	size_t q = s; /* where its query may start */
	if (sep) {
		const size_t a = (size_t)(sep - t) + 3;
		size_t end = a;
		while (end < e && t[end] != '/' && t[end] != '?' && t[end] != '#')
			end++;
		const char *at = memrchr(t + a, '@', end - a);
		const char *query = memchr(t + end, '?', e - end);
		const size_t path_end = query ? (size_t)(query - t) : e;
		const size_t on = !at && end == e && end > a ? userinfo_runs_on(t, e, n) : 0;
		if (on) {
			/* the rest, host on, is read as a word of its own */
			w->fn(w->ctx, a, on - a);
			return on + 1;
		}
		if (at && at > t + a) {
			w->fn(w->ctx, a, (size_t)(at - t) - a);
		} else if (!at && end > a &&
			   (not_a_host(t + a, end - a) || memchr(t + end, '@', path_end - end))) {
			w->fn(w->ctx, a, e - a);
			return e;
		}
		q = end;
	}
	const char *query = memchr(t + q, '?', e - q);
	if (query)
		params_spans(t, (size_t)(query - t) + 1, e, w);
	return e;
}

static void text_spans(const char *t, size_t n, const struct walk *w)
{
	for (size_t i = 0; i < n;) {
		while (i < n && ends_word((unsigned char)t[i]))
			i++;
		size_t e = i;
		while (e < n && !ends_word((unsigned char)t[e]))
			e++;
		/* "connecting to URI: why": the colon after a URI is the sentence's */
		if (e > i) {
			const size_t next =
			    word_spans(t, i, e - (e - i > 1 && t[e - 1] == ':'), n, w);
			e = next > e ? next : e;
		}
		i = e;
	}
}

struct out {
	char *s;
	size_t len, n, need; /* need: what the whole text takes, written or not */
};

static void put(struct out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n && o->n + 1 < o->len; i++)
		o->s[o->n++] = s[i];
	if (o->len)
		o->s[o->n] = '\0';
	o->need += n;
}

/* The text copied, each secret as "***". */
struct redaction {
	struct out o;
	const char *text;
	size_t pos; /* copied up to here */
};

static void hide_span(void *ctx, size_t at, size_t n)
{
	struct redaction *r = ctx;
	put(&r->o, r->text + r->pos, at - r->pos);
	put(&r->o, "***", 3);
	r->pos = at + n;
}

/* @text by the rule into @out (@len 0: only measured); the length it takes. */
static size_t redact(const char *text, char *out, size_t len)
{
	struct redaction r = {.o = {.s = out, .len = len}, .text = text};
	const size_t n = strlen(text);
	put(&r.o, "", 0);
	text_spans(text, n, &(struct walk){.fn = hide_span, .ctx = &r});
	put(&r.o, text + r.pos, n - r.pos);
	return r.o.need;
}

void uri_redact(const char *text, char *out, size_t len)
{
	redact(text, out, len);
}

char *uri_redact_dup(const char *text)
{
	const size_t n = redact(text, NULL, 0) + 1;
	char *s = malloc(n);
	if (s)
		redact(text, s, n);
	return s;
}

void uri_redact_in_place(char *s, size_t len)
{
	const char *scheme = strstr(s, "://"), *query = strchr(s, '?');
	if (!scheme && !query)
		return;
	char *shown = uri_redact_dup(s);
	if (shown) {
		const size_t n = strnlen(shown, len - 1);
		memcpy(s, shown, n);
		s[n] = '\0';
		free(shown);
		return;
	}
	char *cut = (char *)(scheme && (!query || scheme < query) ? scheme : query);
	while (cut > s && !ends_word((unsigned char)cut[-1]))
		cut--;
	*cut = '\0';
}

/* A secret of a URI as it may appear in a message, and what shows instead. */
struct literal {
	char *text;
	size_t n;
	const char *shown; /* "***", or "***@" for a user */
};

struct literals {
	const char *uri;
	struct literal *l;
	unsigned nr, cap;
	bool failed;
};

static void add_literal(struct literals *ls, const char *s, size_t n, bool user)
{
	if (!n || ls->failed)
		return;
	if (ls->nr == ls->cap) {
		const unsigned cap = ls->cap ? 2 * ls->cap : 8;
		struct literal *l = realloc(ls->l, cap * sizeof(*l));
		if (!l) {
			ls->failed = true;
			return;
		}
		ls->l = l;
		ls->cap = cap;
	}
	char *text = malloc(n + 2);
	if (!text) {
		ls->failed = true;
		return;
	}
	memcpy(text, s, n);
	text[n] = '@';
	text[n + 1] = '\0';
	ls->l[ls->nr++] = (struct literal){text, n + user, user ? "***@" : "***"};
}

/* A secret of the URI, as written and percent-decoded. */
static void collect_span(void *ctx, size_t at, size_t n)
{
	struct literals *ls = ctx;
	const bool user = ls->uri[at + n] == '@';
	char *decoded = malloc(n + 1);
	if (!decoded) {
		ls->failed = true;
		return;
	}
	const size_t m = unescape(ls->uri + at, n, decoded);
	add_literal(ls, ls->uri + at, n, user);
	if (m != n || memcmp(decoded, ls->uri + at, n))
		add_literal(ls, decoded, m, user);
	free(decoded);
}

/* The longest secret of @ls at @t, or NULL. */
static const struct literal *literal_at(const struct literals *ls, const char *t)
{
	const struct literal *best = NULL;
	for (unsigned i = 0; i < ls->nr; i++)
		if (!strncmp(t, ls->l[i].text, ls->l[i].n) && (!best || ls->l[i].n > best->n))
			best = &ls->l[i];
	return best;
}

void uri_redact_text(const char *uri, const char *text, char *out, size_t len)
{
	struct literals ls = {.uri = uri};
	struct out o = {.s = out, .len = len};
	char *general = uri_redact_dup(text);
	put(&o, "", 0);
	text_spans(uri, strlen(uri), &(struct walk){.fn = collect_span, .ctx = &ls});
	if (!general || ls.failed) {
		/* what cannot be searched is not shown */
		put(&o, "(the message is not shown: out of memory)",
		    strlen("(the message is not shown: out of memory)"));
	} else {
		for (const char *t = general; *t;) {
			const struct literal *l = literal_at(&ls, t);
			if (l) {
				put(&o, l->shown, strlen(l->shown));
				t += l->n;
			} else if (*t == '\n') {
				if (t[1])
					put(&o, "; ", 2);
				t++;
			} else {
				put(&o, t++, 1);
			}
		}
	}
	for (unsigned i = 0; i < ls.nr; i++)
		free(ls.l[i].text);
	free(ls.l);
	free(general);
}
