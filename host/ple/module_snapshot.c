// SPDX-License-Identifier: GPL-2.0
#include "ple/module_snapshot.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/strfmt.h"
#include "util/text_file.h"

static int not_hidden(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

void module_snapshot_take(const char *root, const char *module, struct module_snapshot *s)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct stat st;
	struct dirent **names = NULL;
	memset(s, 0, sizeof(*s));
	str_copy(s->module, sizeof(s->module), module);
	if (pathf(dir, sizeof(dir), "%s/module/%s", root, module) || stat(dir, &st))
		return;
	s->loaded = true;
	s->inode = (unsigned long long)st.st_ino;
	if (pathf(dir, sizeof(dir), "%s/module/%s/parameters", root, module))
		return;
	int nr = scandir(dir, &names, not_hidden, alphasort);
	for (int i = 0; i < nr; i++) {
		const char *name = names[i]->d_name;
		if (s->n < MODULE_SNAPSHOT_MAX && strlen(name) < sizeof(s->p[0].name)) {
			char *v = s->p[s->n].value;
			ssize_t r = pathf(path, sizeof(path), "%s/%s", dir, name)
					? -ENAMETOOLONG
					: text_file_read(path, v, sizeof(s->p[0].value));
			if (r < 0)
				snprintf(v, sizeof(s->p[0].value), "(unreadable: %s)",
					 strerror((int)-r));
			str_copy(s->p[s->n++].name, sizeof(s->p[0].name), name);
		}
		free(names[i]);
	}
	free(names);
}

const char *module_snapshot_value(const struct module_snapshot *s, const char *name)
{
	for (unsigned i = 0; i < s->n; i++)
		if (!strcmp(s->p[i].name, name))
			return s->p[i].value;
	return NULL;
}

/* Append "; " and the formatted text to @buf (what differs, one after another). */
static void __attribute__((format(printf, 3, 4))) add(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;
	if (used && used + 2 < len)
		used += (size_t)snprintf(buf + used, len - used, "; ");
	if (used >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

bool module_snapshot_same(const struct module_snapshot *then, const struct module_snapshot *now,
			  char *why, size_t len)
{
	why[0] = '\0';
	if (then->loaded != now->loaded) {
		add(why, len, "%s was %s and is %s now", then->module,
		    then->loaded ? "loaded" : "not loaded", now->loaded ? "loaded" : "not loaded");
		return false;
	}
	if (then->inode != now->inode)
		add(why, len, "%s was reloaded (its sysfs directory is another one now)",
		    then->module);
	for (unsigned i = 0; i < then->n; i++) {
		const char *v = module_snapshot_value(now, then->p[i].name);
		if (!v)
			add(why, len, "%s gone (it was %s)", then->p[i].name, then->p[i].value);
		else if (strcmp(v, then->p[i].value))
			add(why, len, "%s %s -> %s", then->p[i].name, then->p[i].value, v);
	}
	for (unsigned i = 0; i < now->n; i++)
		if (!module_snapshot_value(then, now->p[i].name))
			add(why, len, "%s new (%s)", now->p[i].name, now->p[i].value);
	return !why[0];
}

void module_snapshot_list(const struct module_snapshot *s, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < s->n; i++) {
		int w = snprintf(buf + used, len - used, "%s%s=%s", i ? " " : "", s->p[i].name,
				 s->p[i].value);
		if (w < 0 || (size_t)w >= len - used) {
			if (len > 4)
				memcpy(buf + len - 4, "...", 4);
			return;
		}
		used += (size_t)w;
	}
}
