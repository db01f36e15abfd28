// SPDX-License-Identifier: GPL-2.0
/*
 * `plerig check --connect emulated`: the whole check inside L1, by the
 * plerig there (params = reload L1's kvm_intel, ftrace-counts read L1's
 * tracefs: L1 is that check's "this machine"). In go the suite and this
 * host's baseline of L1's machine; out come the summary, TAP, JUnit, the
 * report, a recorded baseline, and the exit status, unchanged.
 */
#include "commands/check_emulated.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/emulated_proxy.h"
#include "experiment/baseline_store.h"
#include "model/connect_list.h"
#include "util/errbuf.h"
#include "util/interrupt.h"
#include "util/printable.h"
#include "util/strfmt.h"
#include "util/text_file.h"

#define MAX_ARGS 32

struct args {
	const char *v[MAX_ARGS];
	unsigned n;
	char buf[4][512];
};

static void add(struct args *a, const char *s)
{
	if (a->n < MAX_ARGS)
		a->v[a->n++] = s;
}

/* L1's command line: the same check, its files in in/ and out/ of its directory there. */
static void l1_args(const struct check_options *o, bool store, struct args *a)
{
	add(a, "check");
	add(a, "--suite");
	add(a, "in/suite.cfg");
	if (store) {
		add(a, "--baselines");
		add(a, "out/baselines");
	}
	if (o->groups[0]) {
		size_t used = 0;
		for (unsigned g = 0; o->groups[g]; g++)
			used += (size_t)snprintf(a->buf[0] + used, sizeof(a->buf[0]) - used, "%s%s",
						 g ? "," : "", o->groups[g]);
		add(a, "--group");
		add(a, a->buf[0]);
	}
	const struct {
		const char *path, *opt, *file;
	} outs[] = {{o->tap_path, "--tap", "out/check.tap"},
		    {o->junit_path, "--junit", "out/check-junit.xml"},
		    {o->report_path, "--report", "out/check-report.html"},
		    {o->json_path, "--json", "out/results.json"}};
	for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i++)
		if (outs[i].path) {
			add(a, outs[i].opt);
			add(a, outs[i].file);
		}
	if (o->record)
		add(a, "--record");
	if (o->aa)
		add(a, "--aa");
	size_t used = 0;
	for (unsigned m = 0; m < o->nr_metrics; m++)
		used += (size_t)snprintf(a->buf[1] + used, sizeof(a->buf[1]) - used, "%s%s",
					 m ? "," : "", o->metrics[m]->name);
	add(a, "--metric");
	add(a, a->buf[1]);
	snprintf(a->buf[2], sizeof(a->buf[2]), "%.17g", o->threshold_pct);
	add(a, "--threshold");
	add(a, a->buf[2]);
	if (o->budget_s > 0) {
		snprintf(a->buf[3], sizeof(a->buf[3]), "%.17g", o->budget_s);
		add(a, "--budget");
		add(a, a->buf[3]);
	}
	if (o->quiet)
		add(a, "--quiet");
}

/* The key L1's own check files its baseline under: L1's machine, as it sees itself. */
static void l1_key(const struct emulated_host *h, char *key, size_t len)
{
	struct host_info i = *emulated_host_info(h);
	i.connection[0] = '\0';
	baseline_key(&i, key, len);
}

/* A recorded baseline back into this host's store, merged there as any recording is. */
static int store_recording(const char *who, const char *dir, const char *key,
			   const struct emulated_file *f)
{
	struct baseline b;
	char err[ERRBUF_SIZE], path[PATH_MAX];
	if (baseline_parse("the baseline L1 recorded", key, f->data, f->len, &b, err,
			   sizeof(err)) ||
	    baseline_save(dir, &b, stderr, err, sizeof(err))) {
		printable_printf(stderr, "%s: %s\n", who, err);
		baseline_free(&b);
		return EXIT_FAILED;
	}
	baseline_free(&b);
	baseline_path(dir, key, path, sizeof(path));
	printable_printf(stderr, "%s: baseline of the emulated host written to %s\n", who, path);
	return 0;
}

/* The check on host @label, one of @nr: its files under their names for it (proxy_host_path). */
struct host_key {
	const char *label;
	char key[256];
};

static int check_one(const struct check_options *o, const char *label, unsigned nr,
		     const char *suite, size_t suite_len, const char *guest_path, FILE *summary,
		     struct host_key *keys, unsigned nr_keys)
{
	char err[ERRBUF_SIZE], key[256], name[L1_NAME_MAX], who[256], paths[4][PATH_MAX];
	const struct emulated_options eo = {.kernel = o->kernel_path,
					    .vendor = connect_emulated_vendor(label),
					    .modules = o->modules_path,
					    .module_params = o->module_params,
					    .cache_dir = o->cache_dir,
					    .guest_path = guest_path,
					    .quiet = o->quiet};
	proxy_who("plerig check", label, nr, who, sizeof(who));
	struct proxy_out outs[] = {
	    {o->tap_path, "check.tap", "TAP", "--tap", nr > 1, false},
	    {o->junit_path, "check-junit.xml", "JUnit XML", "--junit", nr > 1, false},
	    {o->report_path, "check-report.html", "HTML report", "--report", nr > 1, false},
	    {o->json_path, "results.json", "JSON results", "--json", nr > 1, true}};
	for (unsigned i = 0; i < sizeof(outs) / sizeof(outs[0]); i++)
		if (outs[i].path && !(outs[i].path = proxy_host_path(who, outs[i].path, label, nr,
								     paths[i], sizeof(paths[i]))))
			return EXIT_USAGE;
	if (nr > 1) {
		printable_printf(summary, "host %s\n", label);
		fflush(summary);
	}
	int status;
	struct emulated_host *h = proxy_open(who, &eo, &status);
	if (!h)
		return status;
	/* this host's store holds L1's baseline under the key L1's check computes */
	const char *store = baseline_store_dir(o->baselines_dir);
	struct emulated_file ins[2] = {{.name = "in/suite.cfg", .data = suite, .len = suite_len}};
	unsigned nr_ins = 1;
	struct baseline b;
	char *text = NULL;
	l1_key(h, key, sizeof(key));
	keys[nr_keys].label = label;
	str_copy(keys[nr_keys].key, sizeof(keys[nr_keys].key), key);
	/* two L1s of one key would judge against, and record into, one baseline */
	for (unsigned i = 0; store && i < nr_keys; i++)
		if (!strcmp(keys[i].key, key)) {
			printable_printf(
			    stderr,
			    "%s: its L1 files its baseline under %s, as %s's did (the "
			    "same CPU model, CPU count and KVM module): check it alone, "
			    "with --baselines naming a store of its own\n",
			    who, key, keys[i].label);
			emulated_host_close(h);
			return EXIT_USAGE;
		}
	if (store) {
		int rc = baseline_load(store, key, &b, err, sizeof(err));
		if (rc < 0) {
			printable_printf(stderr, "%s: %s\n", who, err);
			emulated_host_close(h);
			return EXIT_USAGE;
		}
		if (rc == 0) {
			text = baseline_text(&b);
			baseline_free(&b);
			if (!text) {
				printable_printf(stderr, "%s: out of memory\n", who);
				emulated_host_close(h);
				return EXIT_FAILED;
			}
			(void)pathf(name, sizeof(name), "out/baselines/%s.json", key);
			ins[nr_ins++] = (struct emulated_file){.data = text, .len = strlen(text)};
			str_copy(ins[1].name, sizeof(ins[1].name), name);
		}
	}
	struct args a = {0};
	l1_args(o, store != NULL, &a);
	struct emulated_exec x;
	status = proxy_exec(who, h, a.v, a.n, ins, nr_ins, outs, sizeof(outs) / sizeof(outs[0]),
			    summary, &x);
	(void)pathf(name, sizeof(name), "baselines/%s.json", key);
	const struct emulated_file *rec = o->record ? proxy_find(&x, name) : NULL;
	if (rec && store_recording(who, store, key, rec) && !status)
		status = EXIT_FAILED;
	emulated_exec_free(&x);
	free(text);
	emulated_host_close(h);
	return status;
}

int check_emulated(const struct check_options *o, const char *suite_path, const char *guest_path,
		   FILE *summary)
{
	char err[ERRBUF_SIZE];
	static char suite[1 << 20];
	struct connect_list l;
	ssize_t n = text_file_read(suite_path, suite, sizeof(suite));
	if (n < 0) {
		printable_printf(stderr, "plerig check: %s: %s\n", suite_path, strerror((int)-n));
		return EXIT_USAGE;
	}
	connect_list_parse(o->connect_list, &l, err, sizeof(err)); /* checked by the parser */
	const struct proxy_out outs[] = {
	    {o->tap_path, "check.tap", "TAP", "--tap", false, false},
	    {o->junit_path, "check-junit.xml", "JUnit XML", "--junit", false, false},
	    {o->report_path, "check-report.html", "HTML report", "--report", false, false},
	    {o->json_path, "results.json", "JSON results", "--json", false, true}};
	if (proxy_outputs_apart("plerig check", l.nr, outs, sizeof(outs) / sizeof(outs[0])))
		return EXIT_USAGE;
	int status = EXIT_OK;
	struct host_key keys[CONNECT_MAX_HOSTS];
	for (unsigned i = 0; i < l.nr && !interrupt_requested(); i++)
		status = proxy_status_worst(status, check_one(o, l.uris[i], l.nr, suite, (size_t)n,
							      guest_path, summary, keys, i));
	return status;
}
