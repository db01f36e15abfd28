// SPDX-License-Identifier: GPL-2.0
#include "measure/tracefs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/strfmt.h"
#include "util/text_file.h"

#define TRACEFS_MOUNT "/sys/kernel/tracing"
#define DEBUGFS_TRACE "/sys/kernel/debug/tracing"

static bool has_events(const char *dir)
{
	char p[PATH_MAX];
	struct stat st;
	return !pathf(p, sizeof(p), "%s/events", dir) && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void set_note(char *note, size_t len, const char *text)
{
	if (note && len)
		str_copy(note, len, text);
}

int tracefs_locate(char *path, size_t len, char *note, size_t notelen, char *err, size_t errlen)
{
	const char *env = getenv("PLERIG_TRACEFS_ROOT");
	if (env && *env) {
		if (!has_events(env)) {
			snprintf(err, errlen, "PLERIG_TRACEFS_ROOT=%s has no events/ directory",
				 env);
			return -ENOENT;
		}
		str_copy(path, len, env);
		set_note(note, notelen, "from PLERIG_TRACEFS_ROOT");
		return 0;
	}
	if (has_events(TRACEFS_MOUNT)) {
		str_copy(path, len, TRACEFS_MOUNT);
		set_note(note, notelen, "mounted");
		return 0;
	}
	int mount_errno = 0;
	if (mount("tracefs", TRACEFS_MOUNT, "tracefs", 0, NULL) < 0)
		mount_errno = errno;
	/* EBUSY: someone mounted it in between, which is as good */
	if ((!mount_errno || mount_errno == EBUSY) && has_events(TRACEFS_MOUNT)) {
		str_copy(path, len, TRACEFS_MOUNT);
		set_note(note, notelen, "mounted by plerig just now");
		return 0;
	}
	/* debugfs mounts tracefs there on first access */
	if (has_events(DEBUGFS_TRACE)) {
		str_copy(path, len, DEBUGFS_TRACE);
		set_note(note, notelen, "under debugfs");
		return 0;
	}
	snprintf(err, errlen,
		 "tracefs is not mounted at " TRACEFS_MOUNT " and mounting it failed (%s), nor "
		 "is it under " DEBUGFS_TRACE
		 ": run as root, or `mount -t tracefs nodev " TRACEFS_MOUNT
		 "` (kernel needs CONFIG_FTRACE)",
		 strerror(mount_errno ? mount_errno : ENOENT));
	return -(mount_errno ? mount_errno : ENOENT);
}

/* "\tfield:unsigned int exit_reason;\toffset:8;\tsize:4;\tsigned:0;" */
static int parse_field(const char *line, struct trace_field *f)
{
	const char *decl = strstr(line, "field:");
	const char *semi = decl ? strchr(decl, ';') : NULL;
	if (!semi)
		return -1;
	/* the name is the last word of the declaration ("insn[15]", "msg"), minus any [N] */
	const char *start = semi;
	while (start > decl && start[-1] != ' ' && start[-1] != ':' && start[-1] != '*')
		start--;
	if (start[-1] == ':')
		return -1; /* a type without a name */
	const char *end = memchr(start, '[', (size_t)(semi - start));
	if (!end)
		end = semi;
	size_t n = (size_t)(end - start);
	if (n == 0 || n >= sizeof(f->name))
		return -1;
	memcpy(f->name, start, n);
	f->name[n] = '\0';

	const char *o = strstr(semi, "offset:"), *s = strstr(semi, "size:"),
		   *g = strstr(semi, "signed:");
	if (!o || !s)
		return -1;
	f->offset = (unsigned)strtoul(o + 7, NULL, 10);
	f->size = (unsigned)strtoul(s + 5, NULL, 10);
	f->is_signed = g && strtoul(g + 7, NULL, 10) != 0;
	return 0;
}

int trace_format_parse(const char *text, struct trace_format *f, char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	const char *line = text;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		char buf[512];
		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		memcpy(buf, line, n);
		buf[n] = '\0';
		if (!strncmp(buf, "name: ", 6))
			str_copy(f->name, sizeof(f->name), buf + 6);
		else if (!strncmp(buf, "ID: ", 4))
			f->id = (unsigned)strtoul(buf + 4, NULL, 10);
		else if (strstr(buf, "field:")) {
			if (f->nr_fields == TRACE_MAX_FIELDS) {
				snprintf(err, errlen, "more than %d fields", TRACE_MAX_FIELDS);
				return -1;
			}
			if (parse_field(buf, &f->fields[f->nr_fields])) {
				snprintf(err, errlen, "cannot parse field line \"%s\"", buf);
				return -1;
			}
			f->nr_fields++;
		}
		line = nl ? nl + 1 : NULL;
	}
	if (!f->nr_fields) {
		snprintf(err, errlen, "no field lines: not a tracepoint format file");
		return -1;
	}
	return 0;
}

int trace_format_load(const char *tracefs, const char *system, const char *event,
		      struct trace_format *f, char *err, size_t errlen)
{
	char path[PATH_MAX], perr[256];
	char id[32];
	const size_t text_len = 65536; /* kvm_exit's print fmt alone is ~6 KiB */

	if (pathf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, system, event)) {
		snprintf(err, errlen, "tracefs path too long");
		return -ENAMETOOLONG;
	}
	char *text = malloc(text_len);
	if (!text) {
		snprintf(err, errlen, "out of memory reading %s", path);
		return -ENOMEM;
	}
	ssize_t n = text_file_read(path, text, text_len);
	int rc = n < 0 ? (int)n : trace_format_parse(text, f, perr, sizeof(perr)) ? -EINVAL : 0;
	free(text);
	if (n < 0) {
		snprintf(err, errlen, "%s:%s: cannot read %s: %s%s", system, event, path,
			 strerror((int)-n),
			 n == -ENOENT ? " (this kernel has no such tracepoint)" : "");
		return (int)n;
	}
	if (rc) {
		snprintf(err, errlen, "%s: %s", path, perr);
		return rc;
	}
	pathf(path, sizeof(path), "%s/events/%s/%s/id", tracefs, system, event);
	n = text_file_read(path, id, sizeof(id));
	if (n < 0) {
		snprintf(err, errlen, "%s:%s: cannot read %s: %s", system, event, path,
			 strerror((int)-n));
		return (int)n;
	}
	f->id = (unsigned)strtoul(id, NULL, 10);
	return 0;
}

const struct trace_field *trace_format_field(const struct trace_format *f, const char *name)
{
	for (unsigned i = 0; i < f->nr_fields; i++)
		if (!strcmp(f->fields[i].name, name))
			return &f->fields[i];
	return NULL;
}

int trace_field_value(const struct trace_field *f, const void *raw, size_t size, uint64_t *out)
{
	const uint8_t *p = (const uint8_t *)raw + f->offset;
	if ((size_t)f->offset + f->size > size)
		return -1;
	switch (f->size) {
	case 1: {
		uint8_t v;
		memcpy(&v, p, 1);
		*out = f->is_signed ? (uint64_t)(int64_t)(int8_t)v : v;
		return 0;
	}
	case 2: {
		uint16_t v;
		memcpy(&v, p, 2);
		*out = f->is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
		return 0;
	}
	case 4: {
		uint32_t v;
		memcpy(&v, p, 4);
		*out = f->is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
		return 0;
	}
	case 8:
		memcpy(out, p, 8);
		return 0;
	}
	return -1;
}
