// SPDX-License-Identifier: GPL-2.0
#include "backends/emulated/l1_protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <nettle/sha2.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "util/errbuf.h"
#include "util/printable.h"
#include "util/strfmt.h"

#define FRAME_LINE 76 /* base64 characters per line, as base64(1) writes them */

int l1_gzip(const void *data, size_t len, uint8_t **out, size_t *out_len, char *err, size_t errlen)
{
	z_stream s = {0};
	/* 15 + 16: a gzip header and trailer around the deflate stream (mtime 0) */
	if (deflateInit2(&s, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return errbuf_printf(err, errlen, "gzip: cannot start zlib's deflate");
	const size_t cap = deflateBound(&s, len) + 32;
	uint8_t *buf = malloc(cap);
	if (!buf) {
		deflateEnd(&s);
		return errbuf_printf(err, errlen, "gzip: out of memory for %zu bytes", cap);
	}
	s.next_in = (Bytef *)(uintptr_t)data;
	s.avail_in = (uInt)len;
	s.next_out = buf;
	s.avail_out = (uInt)cap;
	int rc = deflate(&s, Z_FINISH);
	deflateEnd(&s);
	if (rc != Z_STREAM_END) {
		free(buf);
		return errbuf_printf(err, errlen, "gzip: deflate failed (%d)", rc);
	}
	*out = buf;
	*out_len = cap - s.avail_out;
	return 0;
}

int l1_gunzip(const uint8_t *data, size_t len, size_t max, uint8_t **out, size_t *out_len,
	      char *err, size_t errlen)
{
	z_stream s = {0};
	if (inflateInit2(&s, 15 + 16) != Z_OK)
		return errbuf_printf(err, errlen, "gunzip: cannot start zlib's inflate");
	size_t cap = len * 4 + 4096, used = 0;
	uint8_t *buf = NULL;
	int rc = Z_OK;
	s.next_in = (Bytef *)(uintptr_t)data;
	s.avail_in = (uInt)len;
	while (rc != Z_STREAM_END) {
		if (!buf || used == cap) {
			if (buf)
				cap *= 2;
			if (cap > max + 1)
				cap = max + 1;
			uint8_t *b = used < cap ? realloc(buf, cap) : NULL;
			if (!b) {
				free(buf);
				inflateEnd(&s);
				return used >= max
					   ? errbuf_printf(err, errlen,
							   "gunzip: more than %zu bytes", max)
					   : errbuf_printf(err, errlen, "gunzip: out of memory");
			}
			buf = b;
		}
		s.next_out = buf + used;
		s.avail_out = (uInt)(cap - used);
		rc = inflate(&s, Z_NO_FLUSH);
		used = cap - s.avail_out;
		if (rc != Z_OK && rc != Z_STREAM_END) {
			free(buf);
			inflateEnd(&s);
			return errbuf_printf(err, errlen, "gunzip: %s",
					     rc == Z_BUF_ERROR ? "the data ends early"
							       : "not gzip data, or damaged");
		}
	}
	inflateEnd(&s);
	if (s.avail_in) {
		free(buf);
		return errbuf_printf(err, errlen, "gunzip: %u bytes after the gzip stream",
				     s.avail_in);
	}
	*out = buf;
	*out_len = used;
	return 0;
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *l1_base64(const uint8_t *data, size_t len)
{
	char *out = malloc((len + 2) / 3 * 4 + 1);
	if (!out)
		return NULL;
	char *p = out;
	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)data[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)data[i + 1] << 8;
		if (i + 2 < len)
			v |= data[i + 2];
		*p++ = B64[v >> 18];
		*p++ = B64[(v >> 12) & 63];
		*p++ = i + 1 < len ? B64[(v >> 6) & 63] : '=';
		*p++ = i + 2 < len ? B64[v & 63] : '=';
	}
	*p = '\0';
	return out;
}

static int b64_value(char c)
{
	const char *p = c ? strchr(B64, c) : NULL;
	return p ? (int)(p - B64) : -1;
}

int l1_unbase64(const char *text, size_t len, uint8_t **out, size_t *out_len, char *err,
		size_t errlen)
{
	if (len % 4)
		return errbuf_printf(err, errlen, "base64: %zu characters, not a multiple of 4",
				     len);
	uint8_t *buf = malloc(len / 4 * 3 + 1);
	if (!buf)
		return errbuf_printf(err, errlen, "base64: out of memory");
	size_t n = 0;
	for (size_t i = 0; i < len; i += 4) {
		int v[4];
		unsigned pad = 0;
		for (int k = 0; k < 4; k++) {
			const char c = text[i + k];
			/* '=' only at the end: one or two */
			if (c == '=' && i + 4 == len && k >= 2 && (k == 3 || text[i + 3] == '=')) {
				v[k] = 0;
				pad++;
				continue;
			}
			v[k] = b64_value(c);
			if (v[k] < 0 || pad) {
				free(buf);
				return errbuf_printf(err, errlen,
						     "base64: character %zu is not base64",
						     i + (size_t)k);
			}
		}
		const uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 |
				   (uint32_t)v[2] << 6 | (uint32_t)v[3];
		buf[n++] = (uint8_t)(w >> 16);
		if (pad < 2)
			buf[n++] = (uint8_t)(w >> 8);
		if (pad < 1)
			buf[n++] = (uint8_t)w;
	}
	*out = buf;
	*out_len = n;
	return 0;
}

void l1_sha256_hex(const void *data, size_t len, char hex[65])
{
	struct sha256_ctx ctx;
	uint8_t d[SHA256_DIGEST_SIZE];
	sha256_init(&ctx);
	sha256_update(&ctx, len, data);
	sha256_digest(&ctx, sizeof(d), d);
	for (unsigned i = 0; i < sizeof(d); i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

int l1_frame_write(FILE *out, struct l1_side *side, const char *name, const void *data, size_t len,
		   char *err, size_t errlen)
{
	uint8_t *gz;
	size_t gz_len;
	if (l1_gzip(data, len, &gz, &gz_len, err, errlen))
		return -1;
	char sha[65];
	l1_sha256_hex(gz, gz_len, sha);
	if (side && l1_side_on(side)) {
		const int rc = l1_side_write(side, gz, gz_len, err, errlen);
		free(gz);
		if (rc)
			return -1;
		/* after its bytes: the controller reads them when it sees this line */
		printable_printf(out, "@@ple file-at %s %zu %s\n", name, gz_len, sha);
		if (fflush(out) || ferror(out))
			return errbuf_printf(err, errlen, "%s: writing its line: %s", name,
					     strerror(errno));
		return 0;
	}
	char *b64 = l1_base64(gz, gz_len);
	free(gz);
	if (!b64)
		return errbuf_printf(err, errlen, "%s: out of memory for its frame", name);
	printable_printf(out, "@@ple file %s %zu %s\n", name, gz_len, sha);
	for (size_t i = 0, n = strlen(b64); i < n; i += FRAME_LINE)
		printable_printf(out, "%.*s\n", FRAME_LINE, b64 + i);
	printable_printf(out, "@@ple file-end %s\n", name);
	free(b64);
	if (fflush(out) || ferror(out))
		return errbuf_printf(err, errlen, "%s: writing its frame: %s", name,
				     strerror(errno));
	return 0;
}

void l1_step_end_print(FILE *out, const char *id, int rc, double uptime)
{
	printable_printf(out, "@@ple step %s end rc=%d uptime=%.2f\n", id, rc, uptime);
}

int l1_answer_name(char *buf, size_t len, const char *id, const char *what)
{
	int n = snprintf(buf, len, "%s.%s", id, what);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int l1_output_name(char *buf, size_t len, const char *id, const char *rel)
{
	int n =
	    rel ? snprintf(buf, len, "%s/out/%s", id, rel) : snprintf(buf, len, "%s/stdout", id);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

enum l1_output l1_output_of(const char *name, const char *id, const char **rel)
{
	size_t n = strlen(id);
	if (strncmp(name, id, n) || name[n] != '/')
		return L1_OUTPUT_NONE;
	name += n + 1;
	if (!strcmp(name, "stdout"))
		return L1_OUTPUT_STDOUT;
	if (strncmp(name, "out/", 4) || !name[4])
		return L1_OUTPUT_NONE;
	*rel = name + 4;
	return L1_OUTPUT_FILE;
}

#define ERR_LINE "@@ple err "

void l1_err_print(FILE *out, const char *id, const char *text)
{
	printable_printf(out, ERR_LINE "%s %s\n", id, text);
}

const char *l1_err_text(const char *line, const char *id)
{
	size_t n = strlen(id), k = strlen(ERR_LINE);
	if (strncmp(line, ERR_LINE, k) || strncmp(line + k, id, n) || line[k + n] != ' ')
		return NULL;
	return line + k + n + 1;
}

/* A name in the protocol: one word of printable characters. */
static bool plain_name(const char *s)
{
	if (!*s || strlen(s) >= L1_NAME_MAX)
		return false;
	for (; *s; s++)
		if (*s <= ' ' || *s > '~')
			return false;
	return true;
}

int l1_request_format(const char *id, const char *kind, long long epoch, const void *blob,
		      size_t len, char **line, char *err, size_t errlen)
{
	if (!plain_name(id) || !plain_name(kind))
		return errbuf_printf(err, errlen, "request '%s' '%s': not a plain name", id, kind);
	uint8_t *gz;
	size_t gz_len;
	if (l1_gzip(blob, len, &gz, &gz_len, err, errlen))
		return -1;
	char *b64 = l1_base64(gz, gz_len);
	free(gz);
	if (!b64)
		return errbuf_printf(err, errlen, "request %s: out of memory", id);
	if (asprintf(line, "@@ple req %s %s %lld %s\n", id, kind, epoch, b64) < 0) {
		free(b64);
		return errbuf_printf(err, errlen, "request %s: out of memory", id);
	}
	free(b64);
	return 0;
}

int l1_request_parse(const char *line, struct l1_request *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	int payload = -1;
	if (sscanf(line, "@@ple req %255s %31s %lld %n", r->id, r->kind, &r->epoch, &payload) < 3 ||
	    payload < 0)
		return errbuf_printf(
		    err, errlen, "not a request line (@@ple req ID KIND EPOCH PAYLOAD): '%.60s'",
		    line);
	const char *p = line + payload;
	const size_t n = strcspn(p, "\r\n");
	uint8_t *gz;
	size_t gz_len;
	if (l1_unbase64(p, n, &gz, &gz_len, err, errlen))
		return -1;
	int rc = l1_gunzip(gz, gz_len, L1_FILE_MAX, &r->blob, &r->len, err, errlen);
	free(gz);
	return rc;
}

void l1_request_free(struct l1_request *r)
{
	free(r->blob);
	r->blob = NULL;
}

/* ---- reading ---- */

static int append_b64(struct l1_frame_reader *fr, const char *s, size_t n)
{
	if (fr->b64_len + n + 1 > fr->b64_cap) {
		size_t cap = (fr->b64_cap ? fr->b64_cap * 2 : 4096) + n;
		char *b = realloc(fr->b64, cap);
		if (!b)
			return -1;
		fr->b64 = b;
		fr->b64_cap = cap;
	}
	memcpy(fr->b64 + fr->b64_len, s, n);
	fr->b64_len += n;
	return 0;
}

static bool all_base64(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] != '=' && b64_value(s[i]) < 0)
			return false;
	return true;
}

void l1_frame_reader_init(struct l1_frame_reader *fr, const char *side_path)
{
	memset(fr, 0, sizeof(*fr));
	fr->side_fd = -1;
	if (side_path)
		str_copy(fr->side, sizeof(fr->side), side_path);
}

/* The next @size bytes of the side channel into @out (malloc'ed). 0, or -1 with @err. */
static int side_read(struct l1_frame_reader *fr, size_t size, uint8_t **out, char *err,
		     size_t errlen)
{
	if (!fr->side[0])
		return errbuf_printf(err, errlen, "a file-at line, and no side channel here");
	if (fr->side_fd < 0)
		fr->side_fd = open(fr->side, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fr->side_fd < 0)
		return errbuf_printf(err, errlen, "%s: %s", fr->side, strerror(errno));
	*out = malloc(size ? size : 1);
	if (!*out)
		return errbuf_printf(err, errlen, "out of memory");
	size_t got = 0;
	while (got < size) {
		const ssize_t n =
		    pread(fr->side_fd, *out + got, size - got, (off_t)(fr->side_pos + got));
		if (n <= 0) {
			free(*out);
			*out = NULL;
			return errbuf_printf(err, errlen, "%s: %zu of %zu bytes at %" PRIu64 "%s%s",
					     fr->side, got, size, fr->side_pos, n ? ": " : "",
					     n ? strerror(errno) : "");
		}
		got += (size_t)n;
	}
	fr->side_pos += size;
	return 0;
}

/* A file whose gzip is @gz (@gz_len bytes, L1 said @size and @sha) into @file. */
static enum l1_feed take_file(const char *name, uint8_t *gz, size_t gz_len, size_t size,
			      const char *sha_said, struct l1_file *file, char *err, size_t errlen)
{
	char e[ERRBUF_SIZE], sha[65];
	l1_sha256_hex(gz, gz_len, sha);
	if (gz_len != size || strcmp(sha, sha_said)) {
		errbuf_printf(err, errlen,
			      "%s: %zu bytes, sha256 %.12s, where L1 sent %zu bytes, %.12s (a "
			      "console line cut into it?)",
			      name, gz_len, sha, size, sha_said);
		return L1_FEED_BAD_FILE;
	}
	if (l1_gunzip(gz, gz_len, L1_FILE_MAX, &file->data, &file->len, e, sizeof(e))) {
		errbuf_printf(err, errlen, "%s: %s", name, e);
		return L1_FEED_BAD_FILE;
	}
	return L1_FEED_FILE;
}

/* The frame that just ended: its size and SHA-256 against what it said, then gunzip'ed. */
static enum l1_feed end_frame(struct l1_frame_reader *fr, struct l1_file *file, char *err,
			      size_t errlen)
{
	uint8_t *gz = NULL;
	size_t gz_len = 0;
	enum l1_feed rc = L1_FEED_BAD_FILE;
	char e[ERRBUF_SIZE];
	memset(file, 0, sizeof(*file));
	str_copy(file->name, sizeof(file->name), fr->name);
	fr->in_frame = false;
	if (l1_unbase64(fr->b64 ? fr->b64 : "", fr->b64_len, &gz, &gz_len, e, sizeof(e))) {
		errbuf_printf(err, errlen, "%s: %s", fr->name, e);
		goto out;
	}
	rc = take_file(fr->name, gz, gz_len, fr->size, fr->sha, file, err, errlen);
out:
	free(gz);
	fr->b64_len = 0;
	return rc;
}

enum l1_feed l1_frame_feed(struct l1_frame_reader *fr, const char *line, struct l1_file *file,
			   char *err, size_t errlen)
{
	size_t n = strcspn(line, "\r\n");
	if (fr->in_frame) {
		if (!strncmp(line, "@@ple file-end ", 15) && n - 15 == strlen(fr->name) &&
		    !strncmp(line + 15, fr->name, n - 15))
			return end_frame(fr, file, err, errlen);
		/* a kernel message may indent; the data never has blanks */
		while (n && line[n - 1] == ' ')
			n--;
		if (all_base64(line, n)) {
			if (append_b64(fr, line, n)) {
				fr->in_frame = false;
				errbuf_printf(err, errlen, "%s: out of memory", fr->name);
				return L1_FEED_BAD_FILE;
			}
		} else {
			fr->foreign++;
		}
		return L1_FEED_FRAME_LINE;
	}
	char name[L1_NAME_MAX], sha[65];
	uintmax_t size;
	int end = -1;
	if (sscanf(line, "@@ple file %255s %" SCNuMAX " %64[0-9a-f]%n", name, &size, sha, &end) ==
		3 &&
	    end >= 0 && (size_t)end == n && strlen(sha) == 64) {
		fr->in_frame = true;
		fr->b64_len = 0;
		fr->size = (size_t)size;
		str_copy(fr->name, sizeof(fr->name), name);
		str_copy(fr->sha, sizeof(fr->sha), sha);
		return L1_FEED_FRAME_LINE;
	}
	end = -1;
	if (sscanf(line, "@@ple file-at %255s %" SCNuMAX " %64[0-9a-f]%n", name, &size, sha,
		   &end) == 3 &&
	    end >= 0 && (size_t)end == n && strlen(sha) == 64) {
		uint8_t *gz = NULL;
		memset(file, 0, sizeof(*file));
		str_copy(file->name, sizeof(file->name), name);
		if (size > L1_FILE_MAX) {
			errbuf_printf(err, errlen, "%s: %ju bytes: more than L1 may send", name,
				      size);
			return L1_FEED_BAD_FILE;
		}
		if (side_read(fr, (size_t)size, &gz, err, errlen))
			return L1_FEED_BAD_FILE;
		const enum l1_feed rc =
		    take_file(name, gz, (size_t)size, (size_t)size, sha, file, err, errlen);
		free(gz);
		return rc;
	}
	return L1_FEED_LINE;
}

void l1_frame_reader_free(struct l1_frame_reader *fr)
{
	free(fr->b64);
	/* a reader zeroed, not l1_frame_reader_init'ed, has no side and no descriptor */
	if (fr->side[0] && fr->side_fd >= 0)
		close(fr->side_fd);
	memset(fr, 0, sizeof(*fr));
	fr->side_fd = -1;
}

void l1_file_free(struct l1_file *f)
{
	free(f->data);
	f->data = NULL;
	f->len = 0;
}
