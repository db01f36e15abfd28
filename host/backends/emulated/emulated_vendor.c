// SPDX-License-Identifier: GPL-2.0
#include "backends/emulated/emulated_vendor.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/errbuf.h"
#include "util/strfmt.h"
#include "util/text_file.h"

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

int emulated_vendor_read(const char *path, const char *name, struct emulated_vendor *v, char *err,
			 size_t errlen)
{
	static char text[1 << 16];
	char names[256] = "";
	size_t names_len = 0;
	memset(v, 0, sizeof(*v));
	if (!name)
		name = "intel";
	ssize_t n = text_file_read(path, text, sizeof(text));
	if (n < 0)
		return errbuf_printf(err, errlen, "the emulated vendors, %s: %s", path,
				     strerror((int)-n));
	bool in = false, found = false;
	for (char *line = text, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *l = trim(line);
		size_t len = strlen(l);
		if (len > 2 && l[0] == '[' && l[len - 1] == ']') {
			l[len - 1] = '\0';
			in = !strcmp(l + 1, name);
			found |= in;
			names_len += (size_t)snprintf(names + names_len, sizeof(names) - names_len,
						      " %s", l + 1);
			if (names_len >= sizeof(names))
				names_len = sizeof(names) - 1;
			if (in)
				str_copy(v->name, sizeof(v->name), l + 1);
			continue;
		}
		char *eq = strchr(l, '=');
		if (!in || !eq)
			continue;
		*eq = '\0';
		const char *key = trim(l), *val = trim(eq + 1);
		const struct {
			const char *key;
			char *dst;
			size_t len;
		} fields[] = {{"cpu", v->cpu, sizeof(v->cpu)},
			      {"bochs", v->bochs, sizeof(v->bochs)},
			      {"cpu_name", v->cpu_name, sizeof(v->cpu_name)},
			      {"virt", v->virt, sizeof(v->virt)},
			      {"module", v->module, sizeof(v->module)},
			      {"params", v->params, sizeof(v->params)}};
		for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
			if (!strcmp(key, fields[i].key))
				str_copy(fields[i].dst, fields[i].len, val);
	}
	if (!found) {
		errbuf_printf(err, errlen,
			      "emulated:%s: no such emulated vendor; there are:%s (%s)", name,
			      names, path);
		return EMULATED_VENDOR_UNKNOWN;
	}
	if (!v->cpu[0] || !v->bochs[0] || !v->cpu_name[0] || !v->virt[0] || !v->module[0])
		return errbuf_printf(err, errlen,
				     "%s: [%s] lacks one of cpu, bochs, cpu_name, virt, module",
				     path, name);
	return 0;
}

int emulated_vendor_version_ok(const char *have, const char *want)
{
	unsigned h[2] = {0, 0}, w[2] = {0, 0};
	if (sscanf(have, "%u.%u", &h[0], &h[1]) < 1 || sscanf(want, "%u.%u", &w[0], &w[1]) < 1)
		return 0;
	return h[0] > w[0] || (h[0] == w[0] && h[1] >= w[1]);
}
