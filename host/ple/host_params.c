// SPDX-License-Identifier: GPL-2.0
#include "ple/host_params.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ple/kvm_users.h"
#include "ple/module_reload.h"
#include "util/errbuf.h"
#include "util/strfmt.h"
#include "util/text_file.h"

static const char *const vmx_params[] = {
    "ple_gap", "ple_window", "ple_window_grow", "ple_window_shrink", "ple_window_max", NULL,
};

static const char *const svm_params[] = {
    "pause_filter_count",	 "pause_filter_thresh",	   "pause_filter_count_grow",
    "pause_filter_count_shrink", "pause_filter_count_max", NULL,
};

#define KVM_CORE_MODULE "kvm"

static const char *const kvm_core_params[] = {
    "halt_poll_ns", "halt_poll_ns_grow", "halt_poll_ns_grow_start", "halt_poll_ns_shrink", NULL,
};

/* In the order kvm_detect_module() looks: only one of them can be loaded. */
static const struct {
	const char *module;
	enum ple_vendor vendor;
	const char *const *params;
} modules[] = {
    {"kvm_intel", PLE_VENDOR_VMX, vmx_params},
    {"kvm_amd", PLE_VENDOR_SVM, svm_params},
    {"kvm_pvm", PLE_VENDOR_NONE, NULL},
};

#define NR_MODULES (sizeof(modules) / sizeof(modules[0]))

const char *ple_params_known(void)
{
	static char text[512];
	if (text[0])
		return text;
	size_t used = 0;
	for (unsigned m = 0; m < NR_MODULES && used < sizeof(text); m++) {
		if (!modules[m].params)
			continue;
		used += (size_t)snprintf(text + used, sizeof(text) - used,
					 "%s%s:", used ? "; " : "", modules[m].module);
		for (unsigned i = 0; modules[m].params[i] && used < sizeof(text); i++)
			used += (size_t)snprintf(text + used, sizeof(text) - used, "%s %s",
						 i ? "," : "", modules[m].params[i]);
	}
	if (used < sizeof(text))
		used +=
		    (size_t)snprintf(text + used, sizeof(text) - used, "; %s:", KVM_CORE_MODULE);
	for (unsigned i = 0; kvm_core_params[i] && used < sizeof(text); i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used, "%s %s", i ? "," : "",
					 kvm_core_params[i]);
	return text;
}

const char *ple_sysfs_root(void)
{
	const char *p = getenv("PLERIG_SYSFS_ROOT");
	return p && *p ? p : "/sys";
}

const char *const *ple_module_params(const char *module)
{
	for (size_t i = 0; i < NR_MODULES; i++)
		if (!strcmp(modules[i].module, module))
			return modules[i].params;
	return NULL;
}

bool ple_param_is_core(const char *name)
{
	for (const char *const *p = kvm_core_params; *p; p++)
		if (!strcmp(*p, name))
			return true;
	return false;
}

const char *ple_param_owner(const char *name)
{
	if (ple_param_is_core(name))
		return KVM_CORE_MODULE;
	for (size_t i = 0; i < NR_MODULES; i++)
		for (const char *const *p = modules[i].params; p && *p; p++)
			if (!strcmp(*p, name))
				return modules[i].module;
	return NULL;
}

bool ple_value_valid(const char *value)
{
	size_t n = strlen(value);
	if (n == 0 || n > 10)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)value[i]))
			return false;
	return strtoull(value, NULL, 10) <= 0xffffffffull;
}

static void list_holders(struct ple_host *h)
{
	char dir[PATH_MAX];
	size_t used = 0;
	if (pathf(dir, sizeof(dir), "%s/module/%s/holders", h->root, h->module))
		return;
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || used >= sizeof(h->holders))
			continue;
		int w = snprintf(h->holders + used, sizeof(h->holders) - used, "%s%s",
				 used ? ", " : "", e->d_name);
		used += w > 0 ? (size_t)w : 0;
	}
	closedir(d);
}

/* @q from the file at @path (stat'ed into @st): value, mode, whether this process may write it. */
static void read_param_file(struct ple_param *q, const char *name, const char *path,
			    const struct stat *st)
{
	snprintf(q->name, sizeof(q->name), "%s", name);
	if (text_file_read(path, q->value, sizeof(q->value)) < 0)
		snprintf(q->value, sizeof(q->value), "?");
	q->mode = st->st_mode & 07777;
	/* root passes access(W_OK) on any file: the mode bits are what sysfs enforces */
	q->writable = (q->mode & 0222) && access(path, W_OK) == 0;
}

static void read_params(struct ple_host *h, const char *const *names)
{
	for (const char *const *p = names; p && *p && h->nr_params < PLE_MAX_PARAMS; p++) {
		char path[PATH_MAX];
		struct stat st;
		if (pathf(path, sizeof(path), "%s/module/%s/parameters/%s", h->root, h->module,
			  *p) ||
		    stat(path, &st) < 0)
			continue; /* not in this kernel version */
		read_param_file(&h->params[h->nr_params++], *p, path, &st);
	}
}

int ple_core_read(const char *root, const char *name, struct ple_param *out, char *err,
		  size_t errlen)
{
	char path[PATH_MAX];
	struct stat st;
	memset(out, 0, sizeof(*out));
	if (pathf(path, sizeof(path), "%s/module/%s/parameters/%s", root, KVM_CORE_MODULE, name))
		return errbuf_errno(err, errlen, -ENAMETOOLONG, "%s: path too long", root);
	if (stat(path, &st) < 0) {
		int e = errno;
		return errbuf_errno(
		    err, errlen, -e,
		    "no parameter %s: %s: %s (kvm not loaded, or a kernel without it)", name, path,
		    strerror(e));
	}
	read_param_file(out, name, path, &st);
	return 0;
}

/* The index in modules[] of the one loaded under @root, or -1. */
static int loaded_index(const char *root)
{
	for (size_t i = 0; i < NR_MODULES; i++) {
		char path[PATH_MAX];
		struct stat st;
		if (!pathf(path, sizeof(path), "%s/module/%s", root, modules[i].module) &&
		    stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return (int)i;
	}
	return -1;
}

const char *ple_loaded_module(const char *root)
{
	int i = loaded_index(root);
	return i < 0 ? "" : modules[i].module;
}

int ple_host_detect(struct ple_host *h, const char *root, char *err, size_t errlen)
{
	char path[PATH_MAX], text[64];
	struct stat st;

	memset(h, 0, sizeof(*h));
	h->refcnt = -1;
	snprintf(h->root, sizeof(h->root), "%s", root);
	snprintf(path, sizeof(path), "%s/module", root);
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		int e = errno ? errno : ENOTDIR;
		return errbuf_errno(err, errlen, -e,
				    "%s is not a sysfs tree (no %s: %s); is sysfs mounted, or "
				    "PLERIG_SYSFS_ROOT wrong?",
				    root, path, strerror(e));
	}
	const int m = loaded_index(root);
	if (m < 0)
		return 0;
	snprintf(h->module, sizeof(h->module), "%s", modules[m].module);
	h->vendor = modules[m].vendor;
	read_params(h, modules[m].params);
	/* built-in modules have a sysfs directory for their parameters, but no refcnt */
	snprintf(path, sizeof(path), "%s/module/%s/refcnt", root, h->module);
	if (text_file_read(path, text, sizeof(text)) >= 0) {
		h->loadable = true;
		h->refcnt = strtol(text, NULL, 10);
	}
	list_holders(h);
	if (h->refcnt > 0)
		h->self_refs = kvm_users_self(kvm_users_proc_root());
	if (h->refcnt > h->self_refs)
		kvm_users_describe(kvm_users_proc_root(), h->users, sizeof(h->users));
	return 0;
}

void ple_host_read_params(struct ple_host *h, const char *root, const char *module)
{
	memset(h, 0, sizeof(*h));
	h->refcnt = -1;
	snprintf(h->root, sizeof(h->root), "%s", root);
	snprintf(h->module, sizeof(h->module), "%s", module);
	read_params(h, ple_module_params(module));
}

const struct ple_param *ple_host_param(const struct ple_host *h, const char *name)
{
	for (unsigned i = 0; i < h->nr_params; i++)
		if (!strcmp(h->params[i].name, name))
			return &h->params[i];
	return NULL;
}

const char *ple_param_missing(const struct ple_host *h, const char *name, char *why, size_t len)
{
	const char *owner = ple_param_owner(name);
	if (ple_host_param(h, name))
		return NULL;
	if (!owner)
		errbuf_printf(why, len, "%s is not a PLE parameter plerig knows (%s)", name,
			      ple_params_known());
	else if (!h->module[0])
		errbuf_printf(why, len,
			      "no parameter %s: no KVM module under %s/module (it belongs to %s, "
			      "which is not loaded)",
			      name, h->root, owner);
	else if (strcmp(owner, h->module))
		errbuf_printf(
		    why, len,
		    "no parameter %s on this host: it belongs to %s, but KVM here is %s%s", name,
		    owner, h->module,
		    h->vendor == PLE_VENDOR_NONE
			? " (no hardware PLE on this host: no PAUSE intercept, nothing to tune)"
			: "");
	else
		errbuf_printf(why, len,
			      "%s has no parameter %s in this kernel (%s/module/%s/parameters)",
			      h->module, name, h->root, h->module);
	return why;
}

const char *ple_method_name(enum ple_method m)
{
	switch (m) {
	case PLE_METHOD_RUNTIME:
		return "runtime write";
	case PLE_METHOD_RELOAD:
		return "module reload";
	case PLE_METHOD_REFUSED:
		return "refused";
	}
	return "?";
}

enum ple_method ple_decide(const struct ple_host *h, const char *name, char *why, size_t len)
{
	const struct ple_param *p = ple_host_param(h, name);
	if (!p) {
		ple_param_missing(h, name, why, len);
		return PLE_METHOD_REFUSED;
	}
	if (p->writable) {
		errbuf_printf(why, len, "%s is writable (mode %04o): written at run time", name,
			      p->mode);
		return PLE_METHOD_RUNTIME;
	}
	if (p->mode & 0222) {
		errbuf_printf(
		    why, len,
		    "%s/module/%s/parameters/%s is writable only by its owner: run plerig "
		    "as root",
		    h->root, h->module, name);
		return PLE_METHOD_REFUSED;
	}
	if (!h->loadable) {
		errbuf_printf(why, len,
			      "%s is read-only (mode %04o) and %s is built into the kernel (no "
			      "refcnt): it can only be set at boot, with %s.%s=VALUE on the kernel "
			      "command line",
			      name, p->mode, h->module, h->module, name);
		return PLE_METHOD_REFUSED;
	}
	if (h->holders[0]) {
		errbuf_printf(why, len,
			      "%s is read-only (mode %04o) and %s cannot be reloaded: module(s) %s "
			      "depend on it; unload them first (modprobe -r)",
			      name, p->mode, h->module, h->holders);
		return PLE_METHOD_REFUSED;
	}
	if (h->refcnt > h->self_refs) {
		errbuf_printf(why, len,
			      "%s is read-only (mode %04o) and %s is in use (refcnt %ld): %s; stop "
			      "those VMs (or whatever holds /dev/kvm) and retry",
			      name, p->mode, h->module, h->refcnt,
			      h->users[0]
				  ? h->users
				  : "held by no process visible here (another PID namespace?)");
		return PLE_METHOD_REFUSED;
	}
	/* modprobe needs root; under a fake sysfs root (tests) so does nothing real */
	if (geteuid() != 0 && strcmp(h->root, "/sys") == 0) {
		errbuf_printf(why, len, "%s is read-only (mode %04o): reloading %s needs root",
			      name, p->mode, h->module);
		return PLE_METHOD_REFUSED;
	}
	errbuf_printf(why, len,
		      "%s is read-only (mode %04o): %s is unused and will be reloaded with the new "
		      "value",
		      name, p->mode, h->module);
	return PLE_METHOD_RELOAD;
}

/* Same number (sysfs may print it differently than we wrote it), or same text. */
static bool same_value(const char *a, const char *b)
{
	if (ple_value_valid(a) && ple_value_valid(b))
		return strtoull(a, NULL, 10) == strtoull(b, NULL, 10);
	return strcmp(a, b) == 0;
}

static int verify(const struct ple_host *h, const struct ple_setting *s, const char *how, char *err,
		  size_t errlen)
{
	const struct ple_param *p = ple_host_param(h, s->name);
	if (!p)
		return errbuf_errno(err, errlen, -ENOENT,
				    "after the %s, %s/module/%s/parameters/%s is gone", how,
				    h->root, h->module, s->name);
	if (!same_value(p->value, s->value))
		return errbuf_errno(
		    err, errlen, -EIO,
		    "after the %s, %s reads back %s instead of %s (the kernel clamps or "
		    "rejects this value)",
		    how, s->name, p->value, s->value);
	return 0;
}

static int write_runtime(struct ple_host *h, const struct ple_setting *s, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int rc =
	    pathf(path, sizeof(path), "%s/module/%s/parameters/%s", h->root, h->module, s->name);
	if (!rc)
		rc = text_file_write(path, s->value);
	if (rc)
		return errbuf_errno(err, errlen, rc, "writing %s to %s: %s%s", s->value, path,
				    strerror(-rc),
				    rc == -EACCES || rc == -EPERM ? " (run plerig as root)" : "");
	return 0;
}

/*
 * The module's parameters that are not PLE's, as they are now: a reload
 * resets each to its default unless modprobe is given it again, and one
 * given when the module was loaded (`modprobe kvm_intel enable_apicv=0`)
 * would be lost without a word. Each whose value modprobe takes back as it
 * reads (a number, Y or N) is passed again; the rest are read back after
 * the reload, and a changed one is an error that names it.
 */
struct kept_params {
	unsigned n;
	struct ple_setting p[MODULE_MAX_PARAMS];
	bool passed[MODULE_MAX_PARAMS];
};

bool ple_value_passes_back(const char *v)
{
	if (!strcmp(v, "Y") || !strcmp(v, "N"))
		return true;
	if (*v == '-')
		v++;
	return ple_value_valid(v);
}

static bool is_ple_param(const struct ple_host *h, const char *name)
{
	const char *const *names = ple_module_params(h->module);
	for (const char *const *p = names; p && *p; p++)
		if (!strcmp(*p, name))
			return true;
	return false;
}

static int not_hidden(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

static void read_kept(const struct ple_host *h, struct kept_params *k)
{
	char dir[PATH_MAX];
	struct dirent **names = NULL;
	k->n = 0;
	if (pathf(dir, sizeof(dir), "%s/module/%s/parameters", h->root, h->module))
		return;
	int nr = scandir(dir, &names, not_hidden, alphasort);
	for (int i = 0; i < nr; i++) {
		char path[PATH_MAX];
		struct ple_setting *s = &k->p[k->n];
		if (k->n < MODULE_MAX_PARAMS && !is_ple_param(h, names[i]->d_name) &&
		    strlen(names[i]->d_name) < sizeof(s->name) &&
		    !pathf(path, sizeof(path), "%s/%s", dir, names[i]->d_name) &&
		    text_file_read(path, s->value, sizeof(s->value)) >= 0) {
			str_copy(s->name, sizeof(s->name), names[i]->d_name);
			k->passed[k->n++] = ple_value_passes_back(s->value);
		}
		free(names[i]);
	}
	free(names);
}

unsigned ple_host_kept_params(const struct ple_host *h, struct ple_setting *out, unsigned max)
{
	static struct kept_params k; /* 4 KiB: not on a caller's stack */
	unsigned n = 0;
	read_kept(h, &k);
	for (unsigned i = 0; i < k.n && n < max; i++)
		if (k.passed[i])
			out[n++] = k.p[i];
	return n;
}

static int verify_kept(const struct ple_host *h, const struct kept_params *k, char *err,
		       size_t errlen)
{
	for (unsigned i = 0; i < k->n; i++) {
		char path[PATH_MAX], now[PLE_VALUE_LEN];
		if (pathf(path, sizeof(path), "%s/module/%s/parameters/%s", h->root, h->module,
			  k->p[i].name) ||
		    text_file_read(path, now, sizeof(now)) < 0)
			snprintf(now, sizeof(now), "(gone)");
		if (strcmp(now, k->p[i].value))
			return errbuf_errno(
			    err, errlen, -EIO,
			    "after reloading %s, its %s reads %s instead of %s, the value it "
			    "had before (given when the module was loaded; plerig passes back "
			    "only numbers, Y and N): set %s=%s in /etc/modprobe.d/, which every "
			    "load reads",
			    h->module, k->p[i].name, now, k->p[i].value, k->p[i].name,
			    k->p[i].value);
	}
	return 0;
}

static int reload(struct ple_host *h, const struct ple_setting *set, unsigned n, char *err,
		  size_t errlen)
{
	/*
	 * every PLE parameter passed explicitly, so the reload changes only what
	 * was asked, and every other one that was set (struct kept_params)
	 */
	struct ple_setting all[MODULE_MAX_PARAMS];
	static struct kept_params kept;
	unsigned nr = h->nr_params;
	for (unsigned i = 0; i < nr; i++) {
		str_copy(all[i].name, sizeof(all[i].name), h->params[i].name);
		str_copy(all[i].value, sizeof(all[i].value), h->params[i].value);
		for (unsigned j = 0; j < n; j++)
			if (!strcmp(set[j].name, all[i].name))
				str_copy(all[i].value, sizeof(all[i].value), set[j].value);
	}
	read_kept(h, &kept);
	unsigned nr_all = nr;
	for (unsigned i = 0; i < kept.n && nr_all < MODULE_MAX_PARAMS; i++)
		if (kept.passed[i])
			all[nr_all++] = kept.p[i];
	char module[PLE_MODULE_LEN], root[PATH_MAX];
	snprintf(module, sizeof(module), "%s", h->module);
	snprintf(root, sizeof(root), "%s", h->root);
	int rc = module_reload(module, all, nr_all, err, errlen);
	char derr[ERRBUF_SIZE];
	int drc = ple_host_detect(h, root, derr, sizeof(derr));
	if (rc)
		return rc;
	if (drc)
		return errbuf_errno(err, errlen, drc, "after reloading %s: %s", module, derr);
	if (strcmp(h->module, module))
		return errbuf_errno(err, errlen, -ENOENT,
				    "after reloading %s, %s/module/%s is missing", module, root,
				    module);
	for (unsigned i = 0; i < nr; i++) {
		rc = verify(h, &all[i], "module reload", err, errlen);
		if (rc)
			return rc;
	}
	return verify_kept(h, &kept, err, errlen);
}

int ple_core_write(const char *root, const struct ple_setting *s, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct ple_param now;
	if (!ple_value_valid(s->value))
		return errbuf_errno(err, errlen, -EINVAL,
				    "%s=%s: the value must be a decimal number up to %u", s->name,
				    s->value, 0xffffffffu);
	if (pathf(path, sizeof(path), "%s/module/%s/parameters/%s", root, KVM_CORE_MODULE, s->name))
		return errbuf_errno(err, errlen, -ENAMETOOLONG, "%s: path too long", root);
	int rc = text_file_write(path, s->value);
	if (rc)
		return errbuf_errno(err, errlen, rc, "writing %s to %s: %s%s", s->value, path,
				    strerror(-rc),
				    rc == -EACCES || rc == -EPERM ? " (run plerig as root)" : "");
	rc = ple_core_read(root, s->name, &now, err, errlen);
	if (!rc && !same_value(now.value, s->value))
		return errbuf_errno(err, errlen, -EIO,
				    "after the write, %s reads back %s instead of %s (the kernel "
				    "clamps or rejects this value)",
				    s->name, now.value, s->value);
	return rc;
}

int ple_apply(struct ple_host *h, const struct ple_setting *set, unsigned n, char *err,
	      size_t errlen)
{
	char why[512];
	bool need_reload = false;
	for (unsigned i = 0; i < n; i++) {
		if (!ple_value_valid(set[i].value))
			return errbuf_errno(err, errlen, -EINVAL,
					    "%s=%s: the value must be a decimal number up to %u",
					    set[i].name, set[i].value, 0xffffffffu);
		switch (ple_decide(h, set[i].name, why, sizeof(why))) {
		case PLE_METHOD_REFUSED:
			return errbuf_errno(err, errlen, -EPERM, "cannot set %s=%s: %s",
					    set[i].name, set[i].value, why);
		case PLE_METHOD_RELOAD:
			need_reload = true;
			break;
		case PLE_METHOD_RUNTIME:
			break;
		}
	}
	if (need_reload)
		return reload(h, set, n, err, errlen);
	for (unsigned i = 0; i < n; i++) {
		int rc = write_runtime(h, &set[i], err, errlen);
		if (rc)
			return rc;
	}
	char root[PATH_MAX];
	snprintf(root, sizeof(root), "%s", h->root);
	int rc = ple_host_detect(h, root, err, errlen);
	for (unsigned i = 0; !rc && i < n; i++)
		rc = verify(h, &set[i], "write", err, errlen);
	return rc;
}
