/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-host baselines of `plerig check` (the store on disk here in
 * baseline_store.c, a file's text read in baseline_parse.c, the entries
 * in memory in baseline_entries.c): a directory with one JSON file per
 * machine (schema "plerig-baseline" 1), named by the hardware key: CPU
 * model, CPU count, SMT, KVM module. Kernel version and PLE parameters
 * are not in the key (they are what one compares across) but are recorded
 * in the file and printed with every verdict. Each entry holds the per-run
 * values of one scenario x variant x metric.
 *
 * The store may be writable by others (a CI user's): its files are opened
 * relative to the directory without following symbolic links, and a
 * recording replaces the file by rename under an flock on the directory,
 * merged with what is there then, so that two recordings both land.
 */
#ifndef PLERIG_BASELINE_STORE_H
#define PLERIG_BASELINE_STORE_H

#include <stddef.h>
#include <stdio.h>

#include "experiment/baseline_key.h"
#include "measure/host_info.h"

#define BASELINE_SCHEMA	 "plerig-baseline"
#define BASELINE_VERSION 1

/* A baseline file of the default suite is some 20 KiB: these are far above any real one. */
#define BASELINE_FILE_MAX    (4u << 20)
#define BASELINE_MAX_ENTRIES 20000u
#define BASELINE_MAX_VALUES  10000u
/* No figure plerig records comes near this (compare refuses past it too). */
#define BASELINE_VALUE_MAX 1e15

struct baseline_entry {
	char scenario[64];
	char variant[160];
	char metric[32];
	unsigned n;
	double *values;
};

struct baseline {
	char key[256];
	char recorded_at[32]; /* UTC, ISO 8601 */
	char plerig_version[32];
	char suite[512];
	struct host_info host;
	/* sorted by scenario, variant, metric: found by binary search */
	struct baseline_entry *entries;
	unsigned nr_entries, cap_entries;
};

/* The store: --baselines DIR, else $PLERIG_BASELINES; NULL when neither. */
const char *baseline_store_dir(const char *option);
/* DIR/KEY.json into @buf. */
void baseline_path(const char *dir, const char *key, char *buf, size_t len);

/*
 * The @len bytes of @text, a baseline file named @name (for messages)
 * that must be the one of @key. Every value checked (finite, 0 to 1e15,
 * shares 0 to 1) and every string escaped for the terminal. 0, or -1 with
 * "NAME: json.path: why" in @err.
 */
int baseline_parse(const char *name, const char *key, const char *text, size_t len,
		   struct baseline *b, char *err, size_t errlen);
/* 0 loaded, 1 no file for @key (no baseline), -1 with @err (bad file: exit 2). */
int baseline_load(const char *dir, const char *key, struct baseline *b, char *err, size_t errlen);
/*
 * The baseline of host @h: under its key, else under the key an older
 * plerig gave it (baseline_legacy_key) where that file names this host
 * (b->key says which). 0 loaded, 1 none, -1 with @err (a bad file), -2
 * with @err: the file at the key is another host's whose name made the
 * same key (the message says where to move it).
 */
int baseline_load_host(const char *dir, const struct host_info *h, struct baseline *b, char *err,
		       size_t errlen);
/*
 * Before recording anything: create DIR if missing (its parent must exist)
 * and create and remove a file in it. 0, or -1 with @err.
 */
int baseline_store_prepare(const char *dir, char *err, size_t errlen);
/*
 * Merge @b into DIR/KEY.json: every scenario with entries in @b replaces
 * all of that scenario's entries there; the others stay. Where there is no
 * DIR/KEY.json yet, @b's host's file under its legacy key is merged from
 * and removed once KEY.json is written; a file of another host at KEY is
 * refused. Under an flock
 * on DIR (a line on @note, if not NULL, while another holds it), written
 * to a new file and renamed over the old one. 0, or -1 with @err.
 */
int baseline_save(const char *dir, const struct baseline *b, FILE *note, char *err, size_t errlen);
/* @b as the file's text (malloc'ed; NULL out of memory): for a fallback file. */
char *baseline_text(const struct baseline *b);

const struct baseline_entry *baseline_find(const struct baseline *b, const char *scenario,
					   const char *variant, const char *metric);
/* Add (a copy of @values) or replace. 0, or -1 out of memory. */
int baseline_put(struct baseline *b, const char *scenario, const char *variant, const char *metric,
		 const double *values, unsigned n);
/* Drop every entry of @scenario (before recording it anew). */
void baseline_drop_scenario(struct baseline *b, const char *scenario);
void baseline_free(struct baseline *b);
/* Room for one more entry (baseline_parse adds them unsorted, then sorts). 0, or -1. */
int baseline_grow(struct baseline *b);
/* qsort's order of two entries: scenario, variant, metric. */
int baseline_entry_cmp(const void *a, const void *b);

#endif
