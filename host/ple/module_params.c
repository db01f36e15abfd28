// SPDX-License-Identifier: GPL-2.0
#include "ple/module_params.h"

#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ple/module_reload.h"
#include "util/errbuf.h"
#include "util/strfmt.h"
#include "util/text_file.h"

#define CORE	    "kvm"
#define EXAMPLE	    "e.g. 'ple_window=16384 kvm.halt_poll_ns=0'"
#define VALUE_CHARS ".,:+-_"

static bool name_ok(const char *s, size_t n)
{
	if (!n || n >= PLE_NAME_LEN || !(islower((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

static bool value_ok(const char *s, size_t n)
{
	if (!n || n >= PLE_VALUE_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr(VALUE_CHARS, s[i]))
			return false;
	return true;
}

int module_params_parse(const char *text, struct module_params *p, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	for (const char *t = text;;) {
		t += strspn(t, " \t");
		if (!*t)
			break;
		const size_t n = strcspn(t, " \t");
		const char *eq = memchr(t, '=', n);
		const bool core = n > 4 && !strncmp(t, CORE ".", 4);
		const char *name = core ? t + 4 : t;
		const size_t nlen = eq ? (size_t)(eq - name) : 0;
		const size_t vlen = eq ? n - (size_t)(eq + 1 - t) : 0;
		if (!eq || eq < name || !name_ok(name, nlen) || !value_ok(eq + 1, vlen))
			return errbuf_printf(
			    err, errlen,
			    "'%.*s' is not NAME=VALUE (a parameter of L1's vendor module, "
			    "kvm_intel "
			    "or kvm_amd, or kvm.NAME for kvm.ko's; a name of lower-case letters, "
			    "digits and _ under %d characters, a value of letters, digits and "
			    ". , : + - _ under %d), " EXAMPLE,
			    (int)(n > 80 ? 80 : n), t, PLE_NAME_LEN, PLE_VALUE_LEN);
		unsigned *nr = core ? &p->nr_core : &p->nr_vendor;
		struct ple_setting *s = core ? p->core : p->vendor;
		if (*nr == MODULE_PARAMS_MAX)
			return errbuf_printf(err, errlen, "more than %d parameters of %s",
					     MODULE_PARAMS_MAX,
					     core ? "kvm.ko" : "the vendor module");
		snprintf(s[*nr].name, sizeof(s->name), "%.*s", (int)nlen, name);
		snprintf(s[*nr].value, sizeof(s->value), "%.*s", (int)vlen, eq + 1);
		(*nr)++;
		t += n;
	}
	if (!p->nr_vendor && !p->nr_core)
		return errbuf_printf(err, errlen, "names no parameter, " EXAMPLE);
	return 0;
}

static int names_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The parameters @module has under the sysfs root, sorted, blank-separated, into @out. */
static void list_params(const char *module, char *out, size_t len)
{
	char dir[PATH_MAX], *names[256];
	unsigned n = 0;
	size_t used = 0;
	out[0] = '\0';
	if (pathf(dir, sizeof(dir), "%s/module/%s/parameters", ple_sysfs_root(), module))
		return;
	DIR *d = opendir(dir);
	for (struct dirent *e; d && n < 256 && (e = readdir(d));)
		if (e->d_name[0] != '.' && (names[n] = strdup(e->d_name)))
			n++;
	if (d)
		closedir(d);
	qsort(names, n, sizeof(names[0]), names_cmp);
	for (unsigned i = 0; i < n; i++) {
		int w = snprintf(out + used, len - used, "%s%s", i ? " " : "", names[i]);
		if (w > 0 && (size_t)w < len - used)
			used += (size_t)w;
		free(names[i]);
	}
}

static bool has_param(const char *module, const char *name)
{
	char path[PATH_MAX];
	return !pathf(path, sizeof(path), "%s/module/%s/parameters/%s", ple_sysfs_root(), module,
		      name) &&
	       access(path, F_OK) == 0;
}

/* Every name of @s a parameter of @module; else -1 with @err naming those it has. */
static int check_names(const char *module, const struct ple_setting *s, unsigned n, char *err,
		       size_t errlen)
{
	const bool core = !strcmp(module, CORE);
	for (unsigned i = 0; i < n; i++) {
		if (has_param(module, s[i].name))
			continue;
		char have[2048], hint[128] = "";
		list_params(module, have, sizeof(have));
		if (!core && has_param(CORE, s[i].name))
			snprintf(hint, sizeof(hint), " (kvm.ko's are named kvm.NAME: kvm.%s)",
				 s[i].name);
		return errbuf_printf(err, errlen, "%s%s has no parameter '%s'%s; it has: %s",
				     core ? "" : "L1's ", core ? "kvm.ko" : module, s[i].name, hint,
				     have[0] ? have : "none under sysfs");
	}
	return 0;
}

/* A bool as the kernel parses it (kstrtobool): 1, 0, or -1 for no bool. */
static int as_bool(const char *v)
{
	static const char *const yes[] = {"1", "y", "Y", "on"}, *const no[] = {"0", "n", "N",
									       "off"};
	for (size_t i = 0; i < 4; i++) {
		if (!strcmp(v, yes[i]))
			return 1;
		if (!strcmp(v, no[i]))
			return 0;
	}
	return -1;
}

/* Does sysfs' @got say what @asked asked? Numbers by value, bools as the kernel reads them. */
static bool same_value(const char *asked, const char *got)
{
	char *e1, *e2;
	if (!strcmp(asked, got))
		return true;
	long long a = strtoll(asked, &e1, 0), g = strtoll(got, &e2, 10);
	if (*asked && *got && !*e1 && !*e2)
		return a == g;
	return (!strcmp(got, "Y") || !strcmp(got, "N")) && as_bool(asked) == (got[0] == 'Y');
}

/* Read back @s of @module, appending "PREFIXNAME=VALUE" to @applied. */
static int read_back(const char *module, const struct ple_setting *s, unsigned n,
		     const char *prefix, char *applied, size_t len, char *err, size_t errlen)
{
	for (unsigned i = 0; i < n; i++) {
		char path[PATH_MAX], got[PLE_MAX_VALUE_TEXT];
		ssize_t r = pathf(path, sizeof(path), "%s/module/%s/parameters/%s",
				  ple_sysfs_root(), module, s[i].name)
				? -1
				: text_file_read(path, got, sizeof(got));
		if (r < 0)
			return errbuf_printf(err, errlen,
					     "%s.%s cannot be read back after the reload", module,
					     s[i].name);
		if (!same_value(s[i].value, got))
			return errbuf_printf(
			    err, errlen,
			    "%s.%s reads %s after the reload, asked %s: the module "
			    "did not take the value",
			    module, s[i].name, got, s[i].value);
		size_t used = strlen(applied);
		snprintf(applied + used, len - used, "%s%s%s=%s", used ? " " : "", prefix,
			 s[i].name, got);
	}
	return 0;
}

/* After a failure: the modules as they were booted, as far as that goes. */
static void load_back(const char *module, const struct ple_setting *stock, unsigned n, char *err,
		      size_t errlen)
{
	char e[ERRBUF_SIZE];
	size_t used = strlen(err);
	char dir[PATH_MAX];
	const bool kvm_gone =
	    !pathf(dir, sizeof(dir), "%s/module/" CORE, ple_sysfs_root()) && access(dir, F_OK) != 0;
	if (kvm_gone && module_load(CORE, NULL, 0, e, sizeof(e)))
		errbuf_printf(err + used, errlen - used, "; kvm could not be loaded again: %s", e);
	else if (module_load(module, stock, n, e, sizeof(e)))
		errbuf_printf(err + used, errlen - used, "; %s could not be loaded again: %s",
			      module, e);
	else
		errbuf_printf(err + used, errlen - used, "; %s was loaded again as it was booted",
			      module);
}

int module_params_apply(const char *module, const struct module_params *stock,
			const struct module_params *given, char *applied, size_t len, char *err,
			size_t errlen)
{
	struct ple_setting args[2 * MODULE_PARAMS_MAX];
	unsigned n = 0;
	applied[0] = '\0';
	if (check_names(module, given->vendor, given->nr_vendor, err, errlen) ||
	    check_names(CORE, given->core, given->nr_core, err, errlen))
		return -1;
	for (unsigned i = 0; i < stock->nr_vendor; i++)
		args[n++] = stock->vendor[i];
	for (unsigned i = 0; i < given->nr_vendor; i++)
		args[n++] = given->vendor[i];
	if (module_unload(module, err, errlen))
		return -1;
	if ((given->nr_core && (module_unload(CORE, err, errlen) ||
				module_load(CORE, given->core, given->nr_core, err, errlen))) ||
	    module_load(module, args, n, err, errlen)) {
		load_back(module, stock->vendor, stock->nr_vendor, err, errlen);
		return -1;
	}
	/* the stock ones too, where none given replaced them: the module runs with all of them */
	struct ple_setting kept[MODULE_PARAMS_MAX];
	unsigned nk = 0;
	char stock_read[512] = "";
	for (unsigned i = 0; i < stock->nr_vendor; i++) {
		bool replaced = false;
		for (unsigned j = 0; j < given->nr_vendor; j++)
			replaced |= !strcmp(stock->vendor[i].name, given->vendor[j].name);
		if (!replaced)
			kept[nk++] = stock->vendor[i];
	}
	return read_back(module, given->vendor, given->nr_vendor, "", applied, len, err, errlen) ||
		       read_back(CORE, given->core, given->nr_core, CORE ".", applied, len, err,
				 errlen) ||
		       read_back(module, kept, nk, "", stock_read, sizeof(stock_read), err, errlen)
		   ? -1
		   : 0;
}
