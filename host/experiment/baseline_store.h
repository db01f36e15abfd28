/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-host baselines of `plerig check`: a directory with one JSON file per
 * machine (schema "plerig-baseline" 1), named by the hardware key: CPU
 * model, CPU count, SMT, KVM module. Kernel version and PLE parameters
 * are not in the key (they are what one compares across) but are recorded
 * in the file and printed with every verdict. Each entry holds the per-run
 * values of one scenario x variant x metric.
 */
#ifndef PLERIG_BASELINE_STORE_H
#define PLERIG_BASELINE_STORE_H

#include <stddef.h>

#include "measure/host_info.h"

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
	struct baseline_entry *entries;
	unsigned nr_entries;
};

/* The store: --baselines DIR, else $PLERIG_BASELINES; NULL when neither. */
const char *baseline_store_dir(const char *option);
/* This machine's key: "amd-epyc-7b13-2cpu-smt0-kvm_pvm" style, file-name safe. */
void baseline_key(const struct host_info *h, char *buf, size_t len);
/* DIR/KEY.json into @buf. */
void baseline_path(const char *dir, const char *key, char *buf, size_t len);

/* 0 loaded, 1 no file for @key (no baseline), -1 with @err (bad file: exit 2). */
int baseline_load(const char *dir, const char *key, struct baseline *b, char *err, size_t errlen);
/* Write atomically (creating DIR). 0, or -1 with @err. */
int baseline_save(const char *dir, const struct baseline *b, char *err, size_t errlen);

const struct baseline_entry *baseline_find(const struct baseline *b, const char *scenario,
					   const char *variant, const char *metric);
/* Add (a copy of @values) or replace. 0, or -1 out of memory. */
int baseline_put(struct baseline *b, const char *scenario, const char *variant, const char *metric,
		 const double *values, unsigned n);
/* Drop every entry of @scenario (before recording it anew). */
void baseline_drop_scenario(struct baseline *b, const char *scenario);
void baseline_free(struct baseline *b);

#endif
