// SPDX-License-Identifier: GPL-2.0
#include "ple/param_session.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ple/module_reload.h"
#include "ple/sweep_lock.h"
#include "util/errbuf.h"
#include "util/strfmt.h"

/*
 * Under the lock, a state file already there is a sweep that died before
 * restoring: the values now in sysfs are its, not the originals.
 */
static int check_no_state(char *err, size_t errlen)
{
	struct ple_state old;
	char path[PATH_MAX], lerr[ERRBUF_SIZE];
	int rc = ple_state_load(&old, lerr, sizeof(lerr));
	if (rc == -ENOENT)
		return 0;
	ple_state_path(path, sizeof(path));
	if (rc)
		return errbuf_errno(err, errlen, rc, "%s", lerr);
	return errbuf_errno(
	    err, errlen, -EBUSY,
	    "a previous sweep (pid %d) ended without restoring the %s parameters (%s): run "
	    "`plerig sweep --restore` first",
	    (int)old.pid, old.module, path);
}

/* kvm's halt-polling parameter @name exists here, holds a number and this process may write it. */
static int check_core(const char *root, const char *name, char *err, size_t errlen)
{
	struct ple_param p;
	char why[512];
	int rc = ple_core_read(root, name, &p, why, sizeof(why));
	if (rc)
		return errbuf_errno(err, errlen, rc, "cannot change %s: %s", name, why);
	if (!ple_value_valid(p.value))
		return errbuf_errno(err, errlen, -EIO,
				    "cannot change %s: it reads '%s', not a number", name, p.value);
	if (!p.writable)
		return errbuf_errno(
		    err, errlen, -EPERM,
		    "cannot change %s: %s/module/kvm/parameters/%s is %s (mode %04o)", name, root,
		    name,
		    p.mode & 0222 ? "writable only by its owner: run plerig as root" : "read-only",
		    p.mode);
	return 0;
}

/* kvm's halt polling written at run time, the vendor module's parameters as ple_apply() sets them.
 */
static int apply_split(struct ple_host *h, const struct ple_setting *set, unsigned n, char *err,
		       size_t errlen)
{
	struct ple_setting vendor[PLE_MAX_PARAMS];
	unsigned nv = 0;
	for (unsigned i = 0; i < n && i < PLE_MAX_PARAMS; i++) {
		if (!ple_param_is_core(set[i].name)) {
			vendor[nv++] = set[i];
			continue;
		}
		int rc = ple_core_write(h->root, &set[i], err, errlen);
		if (rc)
			return rc;
	}
	return nv ? ple_apply(h, vendor, nv, err, errlen) : 0;
}

/* Can every one of @names be changed on the host as detected now? */
static int check_changeable(struct ple_session *s, const char *const *names, unsigned n, char *err,
			    size_t errlen)
{
	char why[512];
	int rc = ple_host_detect(&s->host, ple_sysfs_root(), err, errlen);
	if (rc)
		return rc;
	if (n > PLE_MAX_PARAMS)
		return errbuf_errno(err, errlen, -E2BIG, "at most %d parameters", PLE_MAX_PARAMS);
	for (unsigned i = 0; i < n; i++) {
		if (ple_param_is_core(names[i])) {
			rc = check_core(s->host.root, names[i], err, errlen);
			if (rc)
				return rc;
			continue;
		}
		if (ple_decide(&s->host, names[i], why, sizeof(why)) == PLE_METHOD_REFUSED)
			return errbuf_errno(err, errlen,
					    ple_host_param(&s->host, names[i]) ? -EPERM : -ENOENT,
					    "cannot change %s: %s", names[i], why);
	}
	return 0;
}

static int begin_locked(struct ple_session *s, const char *const *names, unsigned n, char *err,
			size_t errlen)
{
	/*
	 * Again under the lock: the values read before it may have been another
	 * sweep's, which must never be saved as the originals.
	 */
	int rc = check_changeable(s, names, n, err, errlen);
	if (!rc)
		rc = check_no_state(err, errlen);
	if (rc)
		return rc;

	/* every PLE parameter of the module: a reload may touch them all */
	s->state.pid = getpid();
	snprintf(s->state.root, sizeof(s->state.root), "%s", s->host.root);
	snprintf(s->state.module, sizeof(s->state.module), "%s", s->host.module);
	for (unsigned i = 0; i < s->host.nr_params; i++) {
		if (!ple_value_valid(s->host.params[i].value))
			continue; /* unreadable: nothing we could restore it to */
		struct ple_setting *o = &s->state.orig[s->state.n++];
		str_copy(o->name, sizeof(o->name), s->host.params[i].name);
		str_copy(o->value, sizeof(o->value), s->host.params[i].value);
	}
	/* of kvm's halt polling, only what the sweep changes: nothing else touches it */
	for (unsigned i = 0; i < n && s->state.n < PLE_MAX_PARAMS; i++) {
		struct ple_param p;
		if (!ple_param_is_core(names[i]) ||
		    ple_core_read(s->host.root, names[i], &p, err, errlen))
			continue;
		struct ple_setting *o = &s->state.orig[s->state.n++];
		str_copy(o->name, sizeof(o->name), p.name);
		str_copy(o->value, sizeof(o->value), p.value);
	}
	/* and the module's others, for a restore that has to load it (load_with_originals) */
	s->state.nk = ple_host_kept_params(&s->host, s->state.kept, PLE_MAX_KEPT);
	return ple_state_save(&s->state, err, errlen);
}

int ple_session_begin(struct ple_session *s, const char *const *names, unsigned n, char *err,
		      size_t errlen)
{
	pid_t holder;
	memset(s, 0, sizeof(*s));
	s->lock_fd = -1;
	/* a refusal that needs no lock leaves nothing behind, not even the state directory */
	int rc = check_changeable(s, names, n, err, errlen);
	/* no module at all: maybe one a running sweep has unloaded for a moment to reload it */
	pid_t other = rc && !s->host.module[0] ? sweep_lock_holder() : 0;
	if (other)
		return sweep_lock_busy(other, err, errlen);
	if (rc)
		return rc;
	s->lock_fd = sweep_lock_acquire(&holder, err, errlen);
	if (s->lock_fd < 0) {
		rc = s->lock_fd;
		s->lock_fd = -1;
		return rc;
	}
	rc = begin_locked(s, names, n, err, errlen);
	if (rc) {
		sweep_lock_release(s->lock_fd);
		s->lock_fd = -1;
		return rc;
	}
	s->active = true;
	return 0;
}

int ple_session_apply(struct ple_session *s, const struct ple_setting *set, unsigned n, char *err,
		      size_t errlen)
{
	if (!s->active)
		return errbuf_errno(err, errlen, -EINVAL,
				    "internal error: parameters applied outside a session");
	return apply_split(&s->host, set, n, err, errlen);
}

/* Only the values that differ: a restore of unchanged values reloads nothing. */
static int restore_values(struct ple_host *h, const struct ple_state *st, char *done,
			  size_t donelen, char *err, size_t errlen)
{
	struct ple_setting diff[PLE_MAX_PARAMS];
	unsigned nd = 0;
	size_t used = 0;
	if (done && donelen)
		done[0] = '\0';
	for (unsigned i = 0; i < st->n; i++) {
		struct ple_param core;
		char why[256];
		const struct ple_param *p = ple_host_param(h, st->orig[i].name);
		if (ple_param_is_core(st->orig[i].name))
			p = ple_core_read(h->root, st->orig[i].name, &core, why, sizeof(why))
				? NULL
				: &core;
		if (p && !strcmp(p->value, st->orig[i].value))
			continue;
		if (done && used < donelen)
			used += (size_t)snprintf(done + used, donelen - used, "%s%s %s -> %s",
						 nd ? ", " : "", st->orig[i].name,
						 p ? p->value : "(missing)", st->orig[i].value);
		diff[nd++] = st->orig[i];
	}
	return nd ? apply_split(h, diff, nd, err, errlen) : 0;
}

int ple_session_restore(struct ple_session *s, char *err, size_t errlen)
{
	if (!s->active)
		return 0;
	char root[PATH_MAX];
	snprintf(root, sizeof(root), "%s", s->host.root);
	int rc = ple_host_detect(&s->host, root, err, errlen);
	if (!rc)
		rc = restore_values(&s->host, &s->state, NULL, 0, err, errlen);
	if (rc) {
		char path[PATH_MAX];
		size_t len = strlen(err);
		ple_state_path(path, sizeof(path));
		return errbuf_errno(err + len, errlen - len, rc,
				    "; the originals are kept in %s for `plerig sweep --restore`",
				    path);
	}
	s->active = false;
	rc = ple_state_remove(err, errlen);
	sweep_lock_release(s->lock_fd);
	s->lock_fd = -1;
	return rc;
}

/*
 * The module is not loaded at all: a sweep died between rmmod and
 * modprobe. Load it with the saved values of its own parameters, PLE's
 * and the others it had (enable_apicv=N: as a reload passes them; kvm's
 * halt polling is restored as any restore does it), then check them.
 */
_Static_assert(PLE_MAX_PARAMS + PLE_MAX_KEPT <= MODULE_MAX_PARAMS, "one modprobe takes them all");

static int load_with_originals(struct ple_host *h, const struct ple_state *st, char *err,
			       size_t errlen)
{
	struct ple_setting vendor[PLE_MAX_PARAMS + PLE_MAX_KEPT];
	unsigned nv = 0;
	for (unsigned i = 0; i < st->n; i++)
		if (!ple_param_is_core(st->orig[i].name))
			vendor[nv++] = st->orig[i];
	for (unsigned i = 0; i < st->nk && i < PLE_MAX_KEPT; i++)
		vendor[nv++] = st->kept[i];
	int rc = module_load(st->module, vendor, nv, err, errlen);
	if (rc)
		return rc;
	rc = ple_host_detect(h, st->root, err, errlen);
	if (!rc && strcmp(h->module, st->module))
		return errbuf_errno(err, errlen, -ENOENT,
				    "after `%s %s`, %s/module/%s is still missing",
				    module_modprobe_command(), st->module, st->root, st->module);
	return rc;
}

static int restore_locked(char *msg, size_t msglen)
{
	struct ple_state st;
	struct ple_host h;
	char err[ERRBUF_SIZE], done[512];
	bool loaded = false;
	int rc = ple_state_load(&st, err, sizeof(err));
	if (rc == -ENOENT) {
		char path[PATH_MAX];
		ple_state_path(path, sizeof(path));
		snprintf(msg, msglen, "nothing to restore: no state file %s", path);
		return 0;
	}
	if (rc) {
		snprintf(msg, msglen, "%s", err);
		return rc;
	}
	if (strcmp(st.root, ple_sysfs_root())) {
		snprintf(msg, msglen,
			 "the state file is for sysfs root %s, this process looks at %s (set "
			 "PLERIG_SYSFS_ROOT=%s)",
			 st.root, ple_sysfs_root(), st.root);
		return -EINVAL;
	}
	rc = ple_host_detect(&h, st.root, err, sizeof(err));
	if (!rc && !h.module[0] && ple_module_params(st.module)) {
		rc = load_with_originals(&h, &st, err, sizeof(err));
		loaded = !rc;
	}
	if (!rc && strcmp(h.module, st.module)) {
		errbuf_printf(err, sizeof(err),
			      "the state file holds %s parameters but KVM here is %s; load %s, or "
			      "delete the state file if the values no longer matter",
			      st.module, h.module[0] ? h.module : "not loaded", st.module);
		rc = -ENODEV;
	}
	if (!rc)
		rc = restore_values(&h, &st, done, sizeof(done), err, sizeof(err));
	if (rc) {
		snprintf(msg, msglen, "restoring the %s parameters: %s", st.module, err);
		return rc;
	}
	rc = ple_state_remove(err, sizeof(err));
	if (rc) {
		snprintf(msg, msglen, "%s", err);
		return rc;
	}
	if (loaded) {
		char kept[PLE_MAX_KEPT * 16] = "";
		size_t used = 0;
		for (unsigned i = 0; i < st.nk && used < sizeof(kept); i++)
			used += (size_t)snprintf(kept + used, sizeof(kept) - used, " %s=%s",
						 st.kept[i].name, st.kept[i].value);
		snprintf(msg, msglen,
			 "%s: it was not loaded (a sweep stopped between rmmod and modprobe); "
			 "loaded it with the saved values%s%s%s%s%s",
			 st.module, kept[0] ? " (with the others it had:" : "", kept,
			 kept[0] ? ")" : "", done[0] ? "; then " : "", done);
	} else
		snprintf(msg, msglen, "%s: %s", st.module,
			 done[0] ? done : "every parameter already had its original value");
	return 1;
}

int ple_restore_from_state(char *msg, size_t msglen)
{
	char err[ERRBUF_SIZE];
	pid_t holder;
	struct ple_state st;
	/* nothing to restore needs no lock (nor a state directory to put one in) */
	if (ple_state_load(&st, err, sizeof(err)) == -ENOENT)
		return restore_locked(msg, msglen);
	int fd = sweep_lock_acquire(&holder, err, sizeof(err));
	if (fd == -EBUSY) {
		snprintf(msg, msglen,
			 "plerig sweep (pid %ld) is still running and will restore the PLE "
			 "parameters itself; stop it first (kill %ld)",
			 (long)holder, (long)holder);
		return -EBUSY;
	}
	if (fd < 0) {
		snprintf(msg, msglen, "%s", err);
		return fd;
	}
	int rc = restore_locked(msg, msglen);
	sweep_lock_release(fd);
	return rc;
}
