/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A baseline recorded elsewhere, into the store: `plerig check
 * --import-baseline FILE`. make ple-test records inside an emulated L1,
 * whose clock is fixed (2000-01-01) and whose output comes from the kernel
 * under test: the file is checked as a stored one is (its key must be the
 * one its machine makes, so no name it carries leads out of the store),
 * merged under the store's lock, and dated by this host's clock.
 */
#ifndef PLERIG_BASELINE_IMPORT_H
#define PLERIG_BASELINE_IMPORT_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "experiment/baseline_store.h"

/* @b's recorded_at: @t, UTC, ISO 8601 (the one format of every recording). */
void baseline_stamp(struct baseline *b, time_t t);

/*
 * Read @path, check it, date it @now and merge it into the store @dir
 * (baseline_save: a line on @note while another holds the lock). 0 with
 * the file's key in @key, or -1 with @err: the file's name and why.
 */
int baseline_import(const char *dir, const char *path, time_t now, FILE *note, char *key,
		    size_t keylen, char *err, size_t errlen);

#endif
