// SPDX-License-Identifier: GPL-2.0
#include "measure/trace_hist.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/errbuf.h"
#include "util/strfmt.h"
#include "util/text_file.h"

/* room for every thread of a check (a few dozen) times the exit reasons each saw */
#define HIST_SIZE     8192
#define HIST_MAX_TEXT (4u << 20)

int trace_hist_begin(struct trace_hist *h, const char *tracefs, const char *name, char *err,
		     size_t errlen)
{
	memset(h, 0, sizeof(*h));
	if (pathf(h->dir, sizeof(h->dir), "%s/instances/%s", tracefs, name) ||
	    pathf(h->tracefs, sizeof(h->tracefs), "%s", tracefs))
		return errbuf_printf(err, errlen, "tracefs path too long");
	if (mkdir(h->dir, 0700)) {
		int e = errno;
		h->dir[0] = '\0';
		errbuf_printf(
		    err, errlen, "cannot create the tracing instance %s/instances/%s: %s%s",
		    tracefs, name, strerror(e),
		    e == EACCES || e == EPERM ? " (needs root, or write access to tracefs)" : "");
		return -e;
	}
	return 0;
}

int trace_hist_add(struct trace_hist *h, const char *system, const char *event, const char *keys,
		   char *err, size_t errlen)
{
	char path[PATH_MAX + 256];
	if (!h->dir[0] || h->nr >= TRACE_HIST_MAX_TRIGGERS)
		return errbuf_printf(err, errlen, "no tracing instance, or too many triggers");
	typeof(h->t[0]) *t = &h->t[h->nr];
	if (pathf(t->event, sizeof(t->event), "%s/%s", system, event) ||
	    pathf(t->trigger, sizeof(t->trigger), "hist:keys=%s:size=%d", keys, HIST_SIZE) ||
	    pathf(path, sizeof(path), "%s/events/%s/trigger", h->dir, t->event))
		return errbuf_printf(err, errlen, "tracepoint name too long");
	int rc = text_file_write(path, t->trigger);
	if (rc) {
		errbuf_printf(err, errlen, "%s:%s: cannot add a histogram trigger (%s): %s%s",
			      system, event, t->trigger, strerror(-rc),
			      rc == -ENOENT ? " (no such tracepoint)"
			      : rc == -EINVAL
				  ? " (a kernel without CONFIG_HIST_TRIGGERS, or no such field)"
				  : "");
		return rc;
	}
	h->nr++;
	return 0;
}

int trace_hist_kprobe(struct trace_hist *h, char kind, const char *group, const char *event,
		      const char *probe, char *err, size_t errlen)
{
	char path[PATH_MAX + 32], line[512];
	if (!h->dir[0] || h->nr_probes >= TRACE_HIST_MAX_PROBES)
		return errbuf_printf(err, errlen, "no tracing instance, or too many kprobe events");
	char *name = h->probes[h->nr_probes];
	if (pathf(name, sizeof(h->probes[0]), "%s/%s", group, event) ||
	    pathf(line, sizeof(line), "%c:%s %s", kind, name, probe) ||
	    pathf(path, sizeof(path), "%s/kprobe_events", h->tracefs))
		return errbuf_printf(err, errlen, "kprobe event name too long");
	const int rc = text_file_append(path, line);
	if (rc) {
		errbuf_printf(
		    err, errlen, "cannot add the kprobe event '%s' to %s: %s%s", line, path,
		    strerror(-rc),
		    rc == -ENOENT ? " (a kernel without CONFIG_KPROBE_EVENTS)"
		    : rc == -EINVAL || rc == -EEXIST
			? " (no such kernel function, a bad fetch argument, or the name taken)"
			: "");
		return rc;
	}
	h->nr_probes++;
	return 0;
}

int trace_hist_kprobe_remove(const char *tracefs, const char *name)
{
	char path[PATH_MAX + 32], line[160];
	if (pathf(path, sizeof(path), "%s/kprobe_events", tracefs) ||
	    pathf(line, sizeof(line), "-:%s", name))
		return -ENAMETOOLONG;
	return text_file_append(path, line);
}

int trace_hist_read(const struct trace_hist *h, unsigned i, struct trace_hist_table *out, char *err,
		    size_t errlen)
{
	char path[PATH_MAX + 256];
	memset(out, 0, sizeof(*out));
	if (i >= h->nr || pathf(path, sizeof(path), "%s/events/%s/hist", h->dir, h->t[i].event))
		return errbuf_printf(err, errlen, "no such histogram");
	char *text = malloc(HIST_MAX_TEXT);
	if (!text)
		return errbuf_printf(err, errlen, "out of memory");
	ssize_t n = text_file_read(path, text, HIST_MAX_TEXT);
	int rc = n < 0 ? errbuf_printf(err, errlen, "%s: %s", path, strerror((int)-n))
		       : trace_hist_parse(text, out, err, errlen);
	free(text);
	return rc;
}

int trace_hist_clear(const struct trace_hist *h, char *err, size_t errlen)
{
	char path[PATH_MAX + 256], clear[300];
	if (!h->dir[0])
		return errbuf_printf(err, errlen, "no tracing instance");
	for (unsigned i = 0; i < h->nr; i++) {
		/* appended: opened with O_TRUNC, a trigger file drops every trigger */
		if (pathf(path, sizeof(path), "%s/events/%s/trigger", h->dir, h->t[i].event) ||
		    pathf(clear, sizeof(clear), "%s:clear", h->t[i].trigger))
			return errbuf_printf(err, errlen, "tracepoint name too long");
		const int rc = text_file_append(path, clear);
		if (rc)
			return errbuf_printf(err, errlen, "%s: cannot clear its histogram: %s",
					     h->t[i].event, strerror(-rc));
		/* held to it: counts left from before would be taken as the next scenario's */
		struct trace_hist_table t;
		if (trace_hist_read(h, i, &t, err, errlen))
			return -1;
		const unsigned left = t.n;
		trace_hist_table_free(&t);
		if (left)
			return errbuf_printf(err, errlen, "%s: %u entries left after ':clear'",
					     h->t[i].event, left);
	}
	return 0;
}

void trace_hist_end(struct trace_hist *h)
{
	char path[PATH_MAX + 256], undo[260];
	if (!h->dir[0])
		return;
	/* the instance cannot go while its triggers hold its events */
	for (unsigned i = 0; i < h->nr; i++)
		if (!pathf(path, sizeof(path), "%s/events/%s/trigger", h->dir, h->t[i].event) &&
		    !pathf(undo, sizeof(undo), "!%s", h->t[i].trigger))
			(void)text_file_write(path, undo);
	(void)rmdir(h->dir);
	/* a kprobe event goes once no trigger of any instance holds it */
	for (unsigned i = 0; i < h->nr_probes; i++)
		(void)trace_hist_kprobe_remove(h->tracefs, h->probes[i]);
	h->dir[0] = '\0';
	h->nr = h->nr_probes = 0;
}

/* Remove each "hist:..." line of trigger file @path, as the kernel lists them. */
static void remove_hist_triggers(const char *path)
{
	char text[4096], undo[1024];
	const ssize_t n = text_file_read(path, text, sizeof(text));
	for (char *line = text, *next; n > 0 && *line; line = next) {
		const size_t len = strcspn(line, "\n");
		next = line + len + (line[len] == '\n');
		line[len] = '\0';
		char *active = strstr(line, " [active]");
		if (active)
			*active = '\0';
		if (!strncmp(line, "hist:", 5) && !pathf(undo, sizeof(undo), "!%s", line))
			(void)text_file_write(path, undo);
	}
}

int trace_hist_remove_left(const char *tracefs, const char *name, const char *const *events,
			   unsigned nr_events)
{
	char dir[PATH_MAX], path[PATH_MAX + 256];
	if (pathf(dir, sizeof(dir), "%s/instances/%s", tracefs, name))
		return -ENAMETOOLONG;
	for (unsigned i = 0; i < nr_events; i++)
		if (!pathf(path, sizeof(path), "%s/events/%s/trigger", dir, events[i]))
			remove_hist_triggers(path);
	return rmdir(dir) ? -errno : 0;
}

static int add_entry(struct trace_hist_table *t, const struct trace_hist_entry *e)
{
	if (t->n == t->cap) {
		unsigned cap = t->cap ? 2 * t->cap : 64;
		struct trace_hist_entry *p = realloc(t->entries, cap * sizeof(*p));
		if (!p)
			return -1;
		t->entries = p;
		t->cap = cap;
	}
	t->entries[t->n++] = *e;
	return 0;
}

/* "{ common_pid: 12, exit_reason: 40 } hitcount: 7" */
static int parse_entry(const char *line, struct trace_hist_entry *e)
{
	const char *end = strchr(line, '}');
	unsigned k = 0;
	memset(e, 0, sizeof(*e));
	if (!end)
		return -1;
	for (const char *p = line + 1; p < end;) {
		const char *colon = memchr(p, ':', (size_t)(end - p));
		char *num_end;
		if (!colon || k >= TRACE_HIST_MAX_KEYS)
			return -1;
		e->key[k++] = strtoull(colon + 1, &num_end, 10);
		if (num_end == colon + 1 || num_end > end)
			return -1;
		p = num_end + strspn(num_end, " ,\t");
	}
	const char *hits = strstr(end, "hitcount:");
	char *num_end;
	if (!k || !hits)
		return -1;
	e->hits = strtoull(hits + 9, &num_end, 10);
	return num_end == hits + 9 ? -1 : 0;
}

int trace_hist_parse(const char *text, struct trace_hist_table *out, char *err, size_t errlen)
{
	unsigned lineno = 0;
	memset(out, 0, sizeof(*out));
	for (const char *line = text; *line; lineno++) {
		size_t len = strcspn(line, "\n");
		const char *p = line + strspn(line, " \t");
		struct trace_hist_entry e;
		if (*p == '{') {
			char copy[512];
			if (len >= sizeof(copy) || (memcpy(copy, line, len), copy[len] = '\0',
						    parse_entry(copy + (p - line), &e))) {
				trace_hist_table_free(out);
				return errbuf_printf(err, errlen,
						     "hist line %u: cannot read '%.*s'", lineno + 1,
						     (int)(len > 80 ? 80 : len), line);
			}
			if (add_entry(out, &e)) {
				trace_hist_table_free(out);
				return errbuf_printf(err, errlen, "out of memory");
			}
		} else if (!strncmp(p, "Dropped:", 8)) {
			out->dropped += strtoull(p + 8, NULL, 10);
		}
		line += len + (line[len] == '\n');
	}
	return 0;
}

uint64_t trace_hist_sum(const struct trace_hist_table *t, uint64_t k0, bool any1, uint64_t k1)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < t->n; i++)
		if (t->entries[i].key[0] == k0 && (any1 || t->entries[i].key[1] == k1))
			n += t->entries[i].hits;
	return n;
}

void trace_hist_table_free(struct trace_hist_table *t)
{
	free(t->entries);
	memset(t, 0, sizeof(*t));
}
