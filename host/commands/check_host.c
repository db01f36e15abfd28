// SPDX-License-Identifier: GPL-2.0
/*
 * `plerig check` on one host: its baseline opened (or a recording begun),
 * the suite run and judged against it, its summary printed, the recording
 * saved. Called by commands/check.c (one host) and commands/check_fleet.c
 * (each host of --connect LIST), which do not call each other.
 */
#include "commands/check_host.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands/commands.h"
#include "experiment/baseline_import.h"
#include "experiment/check.h"
#include "experiment/host_identity.h"
#include "output/tap_junit.h"
#include "util/errbuf.h"
#include "util/output_path.h"
#include "util/printable.h"
#include "util/strfmt.h"
#include "util/wall_clock.h"

#ifndef PLERIG_VERSION
#define PLERIG_VERSION "unknown"
#endif

static const char *same_or(const char *then, const char *now)
{
	return strcmp(then, now) ? "CHANGED" : "same";
}

/* Which baseline the verdicts rest on, and what differs from it (kernel, PLE parameters). */
static void describe_baseline(const char *path, const struct baseline *b,
			      const struct host_info *now, char *buf, size_t len)
{
	/* the file's fields are untrusted: made printable here, so that the
	 * note's only line breaks are its own (the summary prints it by lines) */
	char *f[] = {printable_dup(path),
		     printable_dup(b->recorded_at),
		     printable_dup(b->plerig_version),
		     printable_dup(b->host.kernel),
		     printable_dup(now->kernel),
		     printable_dup(b->host.ple_params),
		     printable_dup(now->ple_params),
		     printable_dup(b->host.module_params),
		     printable_dup(now->module_params)};
	enum { NF = sizeof(f) / sizeof(f[0]) };
	bool ok = true;
	for (size_t i = 0; i < NF; i++)
		ok &= f[i] != NULL;
	/* the parameters given beyond the stock ones, where either run had some */
	char given[2 * sizeof(now->module_params) + 80] = "";
	if (ok && (f[7][0] || f[8][0]))
		(void)pathf(given, sizeof(given),
			    "\n  module parameters given: '%s' then, '%s' now (%s)", f[7], f[8],
			    same_or(b->host.module_params, now->module_params));
	if (ok)
		(void)pathf(buf, len,
			    "baseline %s, recorded %s (plerig %s)\n"
			    "  kernel: %s then, %s now (%s)\n"
			    "  PLE parameters: '%s' then, '%s' now (%s)%s",
			    f[0], f[1], f[2], f[3], f[4], same_or(b->host.kernel, now->kernel),
			    f[5], f[6], same_or(b->host.ple_params, now->ple_params), given);
	else
		str_copy(buf, len, "baseline loaded (out of memory describing it)");
	for (size_t i = 0; i < NF; i++)
		free(f[i]);
}

struct baselines {
	const char *dir;
	char path[1024];
	struct baseline b;
	bool loaded;
	char no_baseline[1200];
};

/* 0, or exit 2 with the message printed. */
static int open_baselines(const struct check_options *o, struct check_result *res,
			  struct baselines *bl)
{
	char err[ERRBUF_SIZE];
	memset(bl, 0, sizeof(*bl));
	bl->dir = baseline_store_dir(o->baselines_dir);
	if (!bl->dir)
		return 0;
	baseline_key(&res->host, res->baseline_key, sizeof(res->baseline_key));
	baseline_path(bl->dir, res->baseline_key, bl->path, sizeof(bl->path));
	/* a store that cannot take the recording is said before anything runs */
	if (o->record && baseline_store_prepare(bl->dir, err, sizeof(err))) {
		printable_printf(stderr, "plerig check: --record: %s\n", err);
		return EXIT_USAGE;
	}
	int rc = baseline_load_host(bl->dir, &res->host, &bl->b, err, sizeof(err));
	if (rc < 0) {
		/* a recording merges into the file: a damaged one is not silently replaced */
		printable_printf(
		    stderr, "plerig check: %s%s\n", err,
		    o->record && rc == -1
			? " (--record keeps the other scenarios' entries of this file: "
			  "mend it, or remove it to record afresh)"
			: "");
		return EXIT_USAGE;
	}
	bl->loaded = rc == 0;
	if (bl->loaded && !o->record) {
		/* the file read: under the key an older plerig gave this host, until recorded */
		baseline_path(bl->dir, bl->b.key, bl->path, sizeof(bl->path));
		describe_baseline(bl->path, &bl->b, &res->host, res->baseline_note,
				  sizeof(res->baseline_note));
	} else if (!o->record) {
		char dir[PATH_MAX];
		printable_copy(dir, sizeof(dir), bl->dir);
		(void)pathf(bl->no_baseline, sizeof(bl->no_baseline),
			    "no baseline for this machine (%s) in %s: record one with --record",
			    res->baseline_key, dir);
		str_copy(res->baseline_note, sizeof(res->baseline_note), bl->no_baseline);
	} else {
		/* the recording starts empty: what is in the file then is merged in at the end */
		baseline_free(&bl->b);
		char path[PATH_MAX];
		printable_copy(path, sizeof(path), bl->path);
		(void)pathf(res->baseline_note, sizeof(res->baseline_note),
			    "recording this machine's baseline into %s", path);
	}
	return 0;
}

static int save_baseline(struct baselines *bl, const struct check_result *res,
			 const char *suite_path)
{
	char err[ERRBUF_SIZE];
	baseline_stamp(&bl->b, wall_clock_now());
	snprintf(bl->b.key, sizeof(bl->b.key), "%s", res->baseline_key);
	snprintf(bl->b.plerig_version, sizeof(bl->b.plerig_version), "%s", PLERIG_VERSION);
	str_copy(bl->b.suite, sizeof(bl->b.suite), suite_path);
	bl->b.host = res->host;
	if (!bl->b.nr_entries) {
		printable_printf(
		    stderr,
		    "plerig check: nothing recorded (no scenario completed with every run "
		    "ok, or a failed case above says why), %s unchanged\n",
		    bl->path);
		return 0;
	}
	if (baseline_save(bl->dir, &bl->b, stderr, err, sizeof(err))) {
		char *text = baseline_text(&bl->b), fallback[PATH_MAX];
		if (text && !output_path_fallback("baseline", "json", text, strlen(text), fallback,
						  sizeof(fallback)))
			printable_printf(stderr,
					 "plerig check: %s; this recording is in %s instead\n", err,
					 fallback);
		else
			printable_printf(
			    stderr, "plerig check: %s; no fallback file could be written\n", err);
		free(text);
		return EXIT_FAILED;
	}
	printable_printf(stderr, "plerig check: baseline of this machine written to %s\n",
			 bl->path);
	return 0;
}

/* --report with --connect: each scenario's results say which host they ran on. */
static void name_results_host(json_object *results, size_t from, const char *label)
{
	for (size_t i = from; results && label && i < json_object_array_length(results); i++)
		json_object_object_add(json_object_array_get_idx(results, i), "host",
				       json_object_new_string(label));
}

/*
 * The suite on one host, judged against that host's baseline (keyed by
 * @res->host, which the caller filled), its summary printed. The exit
 * status it earns.
 */
int check_host(const struct check_options *o, const struct host_check *h, struct check_result *res)
{
	struct baselines bl;
	char err[ERRBUF_SIZE];
	str_copy(res->suite, sizeof(res->suite), h->suite_path);
	int status = open_baselines(o, res, &bl);
	if (status)
		return status;
	if (h->suite->host_runs_nothing_else && bl.loaded && !o->record) {
		/* the other hosts' VMs are other work on this machine's CPUs */
		const bool shared = h->on_host && host_is_this_machine(h->uri) && h->hosts_here > 1;
		const size_t n = strlen(res->baseline_note);
		if (shared)
			(void)pathf(
			    res->baseline_note + n, sizeof(res->baseline_note) - n,
			    "\n  foreign load: can make a drop not comparable here after all "
			    "(the suite's [suite] host_runs_nothing_else = yes, but %u hosts "
			    "of --connect run on this machine at once)",
			    h->hosts_here);
		else
			(void)pathf(res->baseline_note + n, sizeof(res->baseline_note) - n,
				    "\n  foreign load: never makes a drop not comparable here (the "
				    "suite's [suite] host_runs_nothing_else = yes)");
	}
	size_t before = h->results ? json_object_array_length(h->results) : 0;
	struct check_config c = {
	    .suite = h->suite,
	    .guest_path = h->guest_path,
	    .on_host = h->on_host,
	    .connect_uri = h->uri,
	    .hosts_here = h->hosts_here,
	    .host_label = h->label,
	    .groups = o->groups[0] ? o->groups : NULL,
	    .nr_metrics = o->nr_metrics,
	    .threshold_pct = o->threshold_pct,
	    .aa = o->aa,
	    .baseline = &bl.b,
	    .baseline_loaded = bl.loaded && !o->record,
	    .record = o->record,
	    .no_baseline = bl.no_baseline[0] ? bl.no_baseline : NULL,
	    .budget_s = o->budget_s,
	    .progress = o->quiet ? NULL : stderr,
	    .results = h->results,
	};
	memcpy(c.metrics, o->metrics, sizeof(c.metrics));
	if (check_suite_run(&c, res, err, sizeof(err))) {
		printable_printf(stderr, "plerig check: %s\n", err);
		baseline_free(&bl.b);
		return EXIT_FAILED;
	}
	name_results_host(h->results, before, h->label);
	verdicts_summary_print(h->summary, res);
	fflush(h->summary);
	status = check_result_status(res);
	if (o->record && save_baseline(&bl, res, h->suite_path))
		status = EXIT_FAILED;
	baseline_free(&bl.b);
	return status;
}
