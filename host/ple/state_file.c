// SPDX-License-Identifier: GPL-2.0
#include "ple/state_file.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/errbuf.h"
#include "util/regular_file.h"
#include "util/safe_dir.h"

#define STATE_MAGIC "plerig-ple-state 1"
#define STATE_NAME  "ple-params.state"
/* the header, 12 PLE parameters and 48 kept, each at most "keep " 39 + 1 + 23 + 1 bytes */
#define STATE_MAX_TEXT (PATH_MAX + 8192)

const char *ple_state_dir(void)
{
	const char *p = getenv("PLERIG_STATE_DIR");
	return p && *p ? p : "/var/lib/plerig";
}

void ple_state_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/" STATE_NAME, ple_state_dir());
}

/* "@key NAME VALUE" lines of @set after @used bytes of @buf; false when they do not fit. */
static bool format_settings(char *buf, size_t len, size_t *used, const char *key,
			    const struct ple_setting *set, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const int w = snprintf(buf + *used, len - *used, "%s %s %s\n", key, set[i].name,
				       set[i].value);
		if (w < 0 || (size_t)w >= len - *used)
			return false;
		*used += (size_t)w;
	}
	return true;
}

int ple_state_format(const struct ple_state *s, char *buf, size_t len)
{
	int w = snprintf(buf, len,
			 STATE_MAGIC "\n"
				     "# original KVM PLE parameters: `plerig sweep --restore` puts "
				     "them back\n"
				     "pid %d\nroot %s\nmodule %s\n",
			 (int)s->pid, s->root, s->module);
	if (w < 0 || (size_t)w >= len)
		return -1;
	size_t used = (size_t)w;
	return format_settings(buf, len, &used, "param", s->orig, s->n) &&
		       format_settings(buf, len, &used, "keep", s->kept, s->nk)
		   ? 0
		   : -1;
}

static int copy_word(char *dst, size_t len, const char *src, char *err, size_t errlen,
		     unsigned line)
{
	if (!*src || strlen(src) >= len)
		return errbuf_printf(err, errlen, "line %u: empty or too long value", line);
	memcpy(dst, src, strlen(src) + 1);
	return 0;
}

/* A module parameter's name as sysfs has it: what modprobe is given as NAME=VALUE. */
static bool param_name_valid(const char *name)
{
	if (!*name)
		return false;
	for (const char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			return false;
	return true;
}

/* "keep NAME VALUE": one of the module's other parameters, passed back on a load. */
static int parse_kept(char *val, unsigned no, struct ple_state *s, char *err, size_t errlen)
{
	char *v = strchr(val, ' ');
	if (!v || s->nk >= PLE_MAX_KEPT)
		return errbuf_printf(err, errlen, "line %u: keep needs NAME VALUE (at most %d)", no,
				     PLE_MAX_KEPT);
	*v++ = '\0';
	struct ple_setting *p = &s->kept[s->nk];
	if (copy_word(p->name, sizeof(p->name), val, err, errlen, no) ||
	    copy_word(p->value, sizeof(p->value), v, err, errlen, no))
		return -1;
	if (!param_name_valid(p->name) || !ple_value_passes_back(p->value))
		return errbuf_printf(err, errlen, "line %u: keep %s has a bad name or value \"%s\"",
				     no, p->name, p->value);
	for (unsigned i = 0; i < s->nk; i++)
		if (!strcmp(s->kept[i].name, p->name))
			return errbuf_printf(err, errlen, "line %u: keep %s given twice", no,
					     p->name);
	s->nk++;
	return 0;
}

static int parse_line(char *line, unsigned no, struct ple_state *s, char *err, size_t errlen)
{
	char *val = strchr(line, ' ');
	if (!val)
		return errbuf_printf(err, errlen, "line %u: \"%s\" has no value", no, line);
	*val++ = '\0';
	/* plerig writes each once: a second one is a damaged or foreign file, not an update */
	if ((!strcmp(line, "pid") && s->pid) || (!strcmp(line, "root") && s->root[0]) ||
	    (!strcmp(line, "module") && s->module[0]))
		return errbuf_printf(err, errlen, "line %u: %s given twice", no, line);
	if (!strcmp(line, "pid")) {
		char *end;
		errno = 0;
		long pid = strtol(val, &end, 10);
		/* a pid_t, not a long: 2^63 - 1 cast to one was -1 (found by fuzz_ple_state) */
		if (*end || end == val || errno || pid <= 0 || pid > INT_MAX)
			return errbuf_printf(err, errlen, "line %u: bad pid \"%s\"", no, val);
		s->pid = (pid_t)pid;
		return 0;
	}
	if (!strcmp(line, "root"))
		return copy_word(s->root, sizeof(s->root), val, err, errlen, no);
	if (!strcmp(line, "module"))
		return copy_word(s->module, sizeof(s->module), val, err, errlen, no);
	if (!strcmp(line, "keep"))
		return parse_kept(val, no, s, err, errlen);
	if (!strcmp(line, "param")) {
		char *v = strchr(val, ' ');
		if (!v || s->n >= PLE_MAX_PARAMS)
			return errbuf_printf(err, errlen,
					     "line %u: param needs NAME VALUE (at most %d)", no,
					     PLE_MAX_PARAMS);
		*v++ = '\0';
		struct ple_setting *p = &s->orig[s->n];
		if (copy_word(p->name, sizeof(p->name), val, err, errlen, no) ||
		    copy_word(p->value, sizeof(p->value), v, err, errlen, no))
			return -1;
		if (!ple_value_valid(p->value))
			return errbuf_printf(err, errlen, "line %u: %s has a bad value \"%s\"", no,
					     p->name, v);
		for (unsigned i = 0; i < s->n; i++)
			if (!strcmp(s->orig[i].name, p->name))
				return errbuf_printf(err, errlen, "line %u: param %s given twice",
						     no, p->name);
		s->n++;
		return 0;
	}
	return errbuf_printf(err, errlen, "line %u: unknown key \"%s\"", no, line);
}

int ple_state_parse(const char *text, struct ple_state *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	char *copy = strdup(text);
	if (!copy)
		return errbuf_printf(err, errlen, "out of memory");
	char *save, *line = strtok_r(copy, "\n", &save);
	int rc = 0;
	if (!line || strcmp(line, STATE_MAGIC)) {
		errbuf_printf(err, errlen, "not a plerig state file (first line is not \"%s\")",
			      STATE_MAGIC);
		rc = -1;
	}
	for (unsigned no = 2; !rc && (line = strtok_r(NULL, "\n", &save)); no++)
		if (line[0] != '#')
			rc = parse_line(line, no, s, err, errlen);
	if (!rc && (!s->pid || !s->root[0] || !s->module[0])) {
		errbuf_printf(err, errlen, "incomplete: pid, root and module are all required");
		rc = -1;
	}
	free(copy);
	return rc;
}

/*
 * The directory, walked by util/safe_dir's rules: a state file another
 * user could plant or redirect would have root restore its values, or
 * write plerig's over a file of root's.
 */
static int state_dir_open(unsigned flags, char *err, size_t errlen)
{
	char why[ERRBUF_SIZE];
	const char *dir = ple_state_dir();
	const int fd = safe_dir_open(dir, flags, why, sizeof(why));
	if (fd >= 0 || (errno == ENOENT && !(flags & SAFE_DIR_CREATE)))
		return fd < 0 ? -ENOENT : fd;
	const int e = errno ? errno : EPERM;
	return errbuf_errno(err, errlen, -e,
			    "the state directory %s: %s (%sset PLERIG_STATE_DIR to a directory "
			    "of your own)",
			    dir, why, e == EACCES ? "run as root, or " : "");
}

int ple_state_dir_make(char *err, size_t errlen)
{
	const int fd = state_dir_open(SAFE_DIR_CREATE, err, errlen);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int ple_state_save(const struct ple_state *s, char *err, size_t errlen)
{
	char text[STATE_MAX_TEXT + 1];
	if (ple_state_format(s, text, sizeof(text)))
		return errbuf_errno(err, errlen, -E2BIG, "state file text too long");
	const int fd = state_dir_open(SAFE_DIR_CREATE, err, errlen);
	if (fd < 0)
		return fd;
	const int rc = safe_file_replace(fd, ple_state_dir(), STATE_NAME, text, strlen(text), 0600,
					 err, errlen);
	close(fd);
	return rc ? -EIO : 0;
}

int ple_state_load(struct ple_state *s, char *err, size_t errlen)
{
	char path[PATH_MAX], *text, why[ERRBUF_SIZE], perr[ERRBUF_SIZE];
	size_t len;
	ple_state_path(path, sizeof(path));
	const int fd = state_dir_open(0, err, errlen);
	if (fd < 0)
		return fd;
	const int n = regular_file_read(fd, STATE_NAME, O_NOFOLLOW, STATE_MAX_TEXT, &text, &len,
					why, sizeof(why));
	close(fd);
	if (n == -ENOENT)
		return -ENOENT;
	if (n < 0)
		return errbuf_errno(err, errlen, n, "reading the state file %s: %s", path, why);
	const int bad = ple_state_parse(text, s, perr, sizeof(perr));
	free(text);
	if (bad)
		return errbuf_errno(
		    err, errlen, -EINVAL,
		    "the state file %s is damaged (%s): restore the values by hand and "
		    "delete it",
		    path, perr);
	return 0;
}

int ple_state_remove(char *err, size_t errlen)
{
	char path[PATH_MAX];
	ple_state_path(path, sizeof(path));
	if (unlink(path) < 0 && errno != ENOENT) {
		int e = errno;
		return errbuf_errno(err, errlen, -e, "removing the state file %s: %s", path,
				    strerror(e));
	}
	return 0;
}
