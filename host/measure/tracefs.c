// SPDX-License-Identifier: GPL-2.0
#include "measure/tracefs.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <traceevent/event-parse.h>
#include <traceevent/event-utils.h>
#include <unistd.h>

#include "util/errbuf.h"
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
		if (!has_events(env))
			return errbuf_errno(err, errlen, -ENOENT,
					    "PLERIG_TRACEFS_ROOT=%s has no events/ directory", env);
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
	return errbuf_errno(
	    err, errlen, -(mount_errno ? mount_errno : ENOENT),
	    "tracefs is not mounted at " TRACEFS_MOUNT " and mounting it failed (%s), nor "
	    "is it under " DEBUGFS_TRACE ": run as root, or `mount -t tracefs nodev " TRACEFS_MOUNT
	    "` (kernel needs CONFIG_FTRACE)",
	    strerror(mount_errno ? mount_errno : ENOENT));
}

/*
 * libtraceevent says why a format does not parse through tep_vprint(), a
 * weak function an application may replace (event-utils.h); at its default
 * level it says nothing. While trace_format_parse() runs, its first
 * message goes to the error text instead of stderr.
 */
static _Thread_local char *tep_message;
static _Thread_local size_t tep_message_len;

int tep_vprint(const char *name, enum tep_loglevel level, bool print_err, const char *fmt,
	       va_list ap)
{
	if (!tep_message)
		return __tep_vprint(name, level, print_err, fmt, ap);
	if (!tep_message[0])
		vsnprintf(tep_message, tep_message_len, fmt, ap);
	return errno;
}

static bool readable_integer(const struct trace_field *f)
{
	return !f->is_array && !f->is_dynamic &&
	       (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
}

/* One libtraceevent field into @out; -1 with @err when plerig cannot hold it. */
static int copy_field(const struct tep_event *ev, const struct tep_format_field *tf,
		      struct trace_field *out, char *err, size_t errlen)
{
	if (strlen(tf->name) >= sizeof(out->name))
		return errbuf_printf(err, errlen, "%s:%s: field name %s longer than %zu characters",
				     ev->system, ev->name, tf->name, sizeof(out->name) - 1);
	if (tf->offset < 0 || tf->size < 0)
		return errbuf_printf(err, errlen, "%s:%s: field %s at offset %d, %d bytes",
				     ev->system, ev->name, tf->name, tf->offset, tf->size);
	memset(out, 0, sizeof(*out));
	str_copy(out->name, sizeof(out->name), tf->name);
	str_copy(out->type, sizeof(out->type), tf->type);
	out->offset = (unsigned)tf->offset;
	out->size = (unsigned)tf->size;
	out->is_signed = tf->flags & TEP_FIELD_IS_SIGNED;
	out->is_dynamic = tf->flags & TEP_FIELD_IS_DYNAMIC;
	out->is_relative = tf->flags & TEP_FIELD_IS_RELATIVE;
	/* libtraceevent marks __data_loc char[] an array too: its data is, the field is not */
	out->is_array = (tf->flags & TEP_FIELD_IS_ARRAY) && !out->is_dynamic;
	out->array_len = out->is_array ? tf->arraylen : 0;
	out->is_pointer = tf->flags & TEP_FIELD_IS_POINTER;
	out->is_string = tf->flags & TEP_FIELD_IS_STRING;
	return 0;
}

static int copy_fields(const struct tep_event *ev, const struct tep_format_field *list,
		       struct trace_format *f, char *err, size_t errlen)
{
	for (; list; list = list->next) {
		if (f->nr_fields == TRACE_MAX_FIELDS)
			return errbuf_printf(err, errlen, "%s:%s: more than %d fields", ev->system,
					     ev->name, TRACE_MAX_FIELDS);
		if (copy_field(ev, list, &f->fields[f->nr_fields], err, errlen))
			return -1;
		f->nr_fields++;
	}
	return 0;
}

/* libtraceevent's reading of @text, the print fmt left empty; -1 with @err */
static int parse_event(const char *system, const char *text, struct trace_format *f, char *err,
		       size_t errlen)
{
	static const char empty_print[] = "print fmt: \"\"\n";
	const char *print = strstr(text, "\nprint fmt:");
	if (!print)
		return errbuf_printf(err, errlen,
				     "no print fmt line after the fields: the file is cut short, "
				     "or no tracepoint format");
	/*
	 * Only the fields matter to plerig, and libtraceevent 1.7.1 cannot parse
	 * every print fmt (kvm:kvm_inj_exception's on 6.18): it would mark the
	 * event failed, and hide whether the fields were read.
	 */
	size_t head = (size_t)(print - text) + 1, len = head + sizeof(empty_print) - 1;
	char *buf = malloc(len + 1);
	struct tep_handle *tep = tep_alloc();
	if (!buf || !tep) {
		free(buf);
		tep_free(tep);
		return errbuf_printf(err, errlen, "out of memory");
	}
	memcpy(buf, text, head);
	memcpy(buf + head, empty_print, sizeof(empty_print));

	char why[256] = "";
	struct tep_event *ev = NULL;
	tep_message = why;
	tep_message_len = sizeof(why);
	tep_set_loglevel(TEP_LOG_WARNING);
	enum tep_errno rc = tep_parse_format(tep, &ev, buf, len, system);
	tep_set_loglevel(TEP_LOG_CRITICAL); /* libtraceevent's default */
	tep_message = NULL;
	free(buf);

	int ret = -1;
	if (rc || !ev || (ev->flags & TEP_EVENT_FL_FAILED))
		errbuf_printf(err, errlen, "libtraceevent cannot read it%s%s", why[0] ? ": " : "",
			      why);
	else if (strlen(ev->name) >= sizeof(f->name) || strlen(system) >= sizeof(f->system))
		errbuf_printf(err, errlen, "event name %s:%s too long", system, ev->name);
	else if (!copy_fields(ev, ev->format.common_fields, f, err, errlen) &&
		 !copy_fields(ev, ev->format.fields, f, err, errlen)) {
		str_copy(f->name, sizeof(f->name), ev->name);
		str_copy(f->system, sizeof(f->system), system);
		f->id = (unsigned)ev->id;
		ret = 0;
	}
	tep_free(tep);
	return ret;
}

int trace_format_parse(const char *system, const char *text, struct trace_format *f, char *err,
		       size_t errlen)
{
	memset(f, 0, sizeof(*f));
	if (parse_event(system, text, f, err, errlen))
		return -1;
	if (!f->nr_fields)
		return errbuf_printf(err, errlen, "%s:%s has no fields", f->system, f->name);
	return 0;
}

int trace_format_load(const char *tracefs, const char *system, const char *event,
		      struct trace_format *f, char *err, size_t errlen)
{
	char path[PATH_MAX], perr[ERRBUF_SIZE];
	char id[32];
	const size_t text_len = 65536; /* kvm_exit's print fmt alone is ~6 KiB */

	if (pathf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, system, event))
		return errbuf_errno(err, errlen, -ENAMETOOLONG, "tracefs path too long");
	char *text = malloc(text_len);
	if (!text)
		return errbuf_errno(err, errlen, -ENOMEM, "out of memory reading %s", path);
	ssize_t n = text_file_read(path, text, text_len);
	if (n < 0) {
		free(text);
		return errbuf_errno(err, errlen, (int)n, "%s:%s: cannot read %s: %s%s", system,
				    event, path, strerror((int)-n),
				    n == -ENOENT ? " (this kernel has no such tracepoint)" : "");
	}
	int rc = trace_format_parse(system, text, f, perr, sizeof(perr));
	free(text);
	if (rc)
		return errbuf_errno(err, errlen, -EINVAL, "%s: %s", path, perr);
	pathf(path, sizeof(path), "%s/events/%s/%s/id", tracefs, system, event);
	n = text_file_read(path, id, sizeof(id));
	if (n < 0)
		return errbuf_errno(err, errlen, (int)n, "%s:%s: cannot read %s: %s", system, event,
				    path, strerror((int)-n));
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

const struct trace_field *trace_format_integer_field(const struct trace_format *fmt,
						     const char *name, char *err, size_t errlen)
{
	const struct trace_field *f = trace_format_field(fmt, name);
	if (!f)
		errbuf_printf(err, errlen, "%s:%s has no field %s", fmt->system, fmt->name, name);
	else if (f->is_dynamic)
		errbuf_printf(
		    err, errlen,
		    "%s:%s: field %s (%s) is %s: where in the record its data of variable "
		    "length lies, not a number",
		    fmt->system, fmt->name, name, f->type,
		    f->is_relative ? "__rel_loc" : "__data_loc");
	else if (f->is_array)
		errbuf_printf(err, errlen,
			      "%s:%s: field %s (%s) is an array of %u elements, not a number",
			      fmt->system, fmt->name, name, f->type, f->array_len);
	else if (!readable_integer(f))
		errbuf_printf(err, errlen,
			      "%s:%s: field %s (%s) is %u bytes, not a 1, 2, 4 or 8-byte number",
			      fmt->system, fmt->name, name, f->type, f->size);
	else
		return f;
	return NULL;
}

int trace_field_value(const struct trace_field *f, const void *raw, size_t size, uint64_t *out)
{
	if ((size_t)f->offset + f->size > size || !readable_integer(f))
		return -1;
	const uint8_t *p = (const uint8_t *)raw + f->offset;
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
