// SPDX-License-Identifier: GPL-2.0
#include "experiment/check_params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ple/module_snapshot.h"
#include "util/errbuf.h"
#include "util/strfmt.h"

#define CORE "kvm"

struct check_params_watch {
	const struct scenario *s;
	char module[PLE_MODULE_LEN]; /* the vendor module: kvm_intel, kvm_amd */
	/* the vendor module and kvm.ko: before, with the params set, after the runs, after */
	struct module_snapshot vendor[4], core[4];
	unsigned taken; /* snapshots taken so far */
	char failed[ERRBUF_SIZE];
};

enum { BEFORE, SET, RAN, AFTER };

static void take(struct check_params_watch *w, unsigned at)
{
	const char *root = ple_sysfs_root();
	module_snapshot_take(root, w->module, &w->vendor[at]);
	module_snapshot_take(root, CORE, &w->core[at]);
	w->taken = at + 1;
}

struct check_params_watch *check_params_watch(const struct scenario *s)
{
	if (!(s->expects & (1u << EXPECT_MODULE_PARAMS)))
		return NULL;
	struct check_params_watch *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->s = s;
	const char *module = ple_loaded_module(ple_sysfs_root());
	str_copy(w->module, sizeof(w->module), module[0] ? module : "kvm_intel");
	take(w, BEFORE);
	return w;
}

void check_params_set(struct check_params_watch *w, const char *failed)
{
	if (!w)
		return;
	if (failed)
		str_copy(w->failed, sizeof(w->failed), failed);
	else
		take(w, SET);
}

void check_params_forget(struct check_params_watch *w)
{
	free(w);
}

void check_params_ran(struct check_params_watch *w)
{
	if (w && w->taken == SET + 1)
		take(w, RAN);
}

/* A number as sysfs prints it may differ from how it was asked (0x400, 01024). */
static bool same_number(const char *asked, const char *got)
{
	char *e1, *e2;
	unsigned long long a = strtoull(asked, &e1, 0), g = strtoull(got, &e2, 10);
	return !strcmp(asked, got) || (*asked && *got && !*e1 && !*e2 && a == g);
}

/* The scenario's params as the modules read them in snapshot @at; else why not, in @why. */
static bool params_read(const struct check_params_watch *w, unsigned at, const char *when,
			char *why, size_t len)
{
	for (unsigned i = 0; i < w->s->nr_params; i++) {
		const struct ple_setting *p = &w->s->params[i];
		const bool core = ple_param_is_core(p->name);
		const struct module_snapshot *m = core ? &w->core[at] : &w->vendor[at];
		const char *got = module_snapshot_value(m, p->name);
		if (!got || !same_number(p->value, got)) {
			errbuf_printf(why, len, "%s.%s reads %s %s, asked %s", m->module, p->name,
				      got ? got : "nothing (no such parameter)", when, p->value);
			return false;
		}
	}
	return true;
}

/* "ple_window=1024" for each param of the scenario, as snapshot @m reads it. */
static void values(const struct check_params_watch *w, unsigned at, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < w->s->nr_params && used < len; i++) {
		const char *name = w->s->params[i].name;
		const struct module_snapshot *m =
		    ple_param_is_core(name) ? &w->core[at] : &w->vendor[at];
		const char *v = module_snapshot_value(m, name);
		used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", i ? " " : "", name,
					 v ? v : "?");
	}
}

/* Why the watch failed, in @why; "" when every part held. */
static void judge(const struct check_params_watch *w, char *why, size_t len)
{
	char d[ERRBUF_SIZE];
	const struct module_snapshot *v = w->vendor, *c = w->core;
	why[0] = '\0';
	if (w->failed[0]) {
		errbuf_printf(why, len, "its params could not be set: %s", w->failed);
		return;
	}
	if (w->taken < AFTER + 1) {
		errbuf_printf(why, len, "its params were set but the scenario ended before %s",
			      w->taken < RAN + 1 ? "its runs" : "they were put back");
		return;
	}
	if (!params_read(w, SET, "once set", why, len) ||
	    !params_read(w, RAN, "after the runs", why, len))
		return;
	if (v[SET].inode != v[RAN].inode) {
		errbuf_printf(why, len,
			      "%s was reloaded while the scenario ran (its sysfs directory is "
			      "another one after the runs)",
			      v[BEFORE].module);
		return;
	}
	for (unsigned at = SET; at <= AFTER; at++)
		if (!module_snapshot_same(&c[BEFORE], &c[at], d, sizeof(d))) {
			errbuf_printf(why, len, "kvm.ko not as before %s: %s",
				      at == SET	  ? "once the params were set"
				      : at == RAN ? "after the runs"
						  : "once the originals were back",
				      d);
			return;
		}
	struct module_snapshot after = v[AFTER];
	after.inode = v[BEFORE].inode; /* put back by a reload: another load, the same values */
	if (!module_snapshot_same(&v[BEFORE], &after, d, sizeof(d)))
		errbuf_printf(why, len, "%s's parameters not the originals afterwards: %s",
			      v[BEFORE].module, d);
}

int check_params_judge(struct check_ctx *k, const struct scenario *s, struct check_params_watch *w)
{
	if (!w)
		return 0;
	char why[ERRBUF_SIZE], set[256], back[256], hpn[64] = "";
	int rc;
	if (w->taken == RAN + 1)
		take(w, AFTER);
	judge(w, why, sizeof(why));
	if (why[0]) {
		rc = check_result_add(k->out, s->name, expectation_name(EXPECT_MODULE_PARAMS),
				      CHECK_FAIL, "%s", why);
		free(w);
		return rc;
	}
	values(w, SET, set, sizeof(set));
	values(w, AFTER, back, sizeof(back));
	const char *h = module_snapshot_value(&w->core[BEFORE], "halt_poll_ns");
	if (h)
		snprintf(hpn, sizeof(hpn), ", halt_poll_ns=%s", h);
	const bool reloaded = w->vendor[BEFORE].inode != w->vendor[SET].inode;
	rc = check_result_add(
	    k->out, s->name, expectation_name(EXPECT_MODULE_PARAMS), CHECK_PASS,
	    "%s %s %s, read back once set and after the runs; then %s again (all %u parameters "
	    "of %s as before); kvm.ko never reloaded (all %u of its parameters as before%s)",
	    set, reloaded ? "set by a reload of" : "written at run time to",
	    w->vendor[BEFORE].module, back, w->vendor[BEFORE].n, w->vendor[BEFORE].module,
	    w->core[BEFORE].n, hpn);
	free(w);
	return rc;
}
