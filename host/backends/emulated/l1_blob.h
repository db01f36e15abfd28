/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What travels between plerig and the plerig inside L1 (l1_protocol.h
 * carries it): a variant to run, the run's result, L1's host identity.
 * Both ends are the same binary (the L1 medium is keyed by it), so each
 * is the structure's own bytes behind a header that says whose they are
 * (the version and the structures' sizes); pointers travel as the arrays
 * they point to. A blob of another plerig is refused, never misread.
 */
#ifndef PLERIG_L1_BLOB_H
#define PLERIG_L1_BLOB_H

#include <stddef.h>
#include <stdint.h>

#include "measure/host_info.h"
#include "model/results.h"

/* A malloc'ed blob. */
struct l1_blob {
	uint8_t *data;
	size_t len;
};

int l1_blob_variant(const struct variant *v, struct l1_blob *out, char *err, size_t errlen);
int l1_blob_read_variant(const void *data, size_t len, struct variant *v, char *err, size_t errlen);

/* @r whole: its records and per-VM counters too. */
int l1_blob_result(const struct variant_result *r, struct l1_blob *out, char *err, size_t errlen);
/* Into @r (allocated as variant_result_free frees it); -1 with @err on a foreign or cut blob. */
int l1_blob_read_result(const void *data, size_t len, struct variant_result *r, char *err,
			size_t errlen);

int l1_blob_host(const struct host_info *h, struct l1_blob *out, char *err, size_t errlen);
int l1_blob_read_host(const void *data, size_t len, struct host_info *h, char *err, size_t errlen);

void l1_blob_free(struct l1_blob *b);

#endif
