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

#include "backends/emulated/l1_protocol.h"
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

/* A command for L1's plerig: its argv and the files it reads (names relative to in/). */
struct l1_exec_request {
	char **argv; /* argc strings, then NULL */
	unsigned argc;
	struct l1_file *files;
	unsigned nr_files;
};

int l1_blob_exec(const char *const *argv, unsigned argc, const struct l1_file *files,
		 unsigned nr_files, struct l1_blob *out, char *err, size_t errlen);
/* Into @q (malloc'ed: l1_exec_request_free); -1 with @err on a cut blob or a name with "..". */
int l1_blob_read_exec(const void *data, size_t len, struct l1_exec_request *q, char *err,
		      size_t errlen);
void l1_exec_request_free(struct l1_exec_request *q);

/* A relative path that stays below its folder: no "..", no leading '/', no empty part. */
bool l1_relative_name(const char *name);

void l1_blob_free(struct l1_blob *b);

#endif
