/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a schema-2 results file back for `plerig compare`. Everything
 * compare relies on is checked up front, so that a damaged or foreign
 * file is refused with the place that is wrong ("variants[2].runs[0]
 * .summary: missing acq_per_s") instead of being compared as zeros.
 */
#ifndef PLERIG_RESULTS_FILE_H
#define PLERIG_RESULTS_FILE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "model/metrics.h"

/*
 * The largest results file compare and report read (docs/safety.md):
 * json-c's tree of a file takes 5.5 times its size in memory as plerig
 * writes it (indented) and 9.5 times written compact, more for files of
 * smaller values (scripts/bench-results-memory: 91 MB indented 496 MB of
 * RSS, 90 MB compact 848 MB; issue 25 saw 13 times), and compare holds
 * two. A file past it is refused before it is parsed, with the way out:
 * fewer variants or repeats per file. Far below INT_MAX, json-c's length.
 */
#define RESULTS_FILE_MAX (64u << 20)

/* The fields that make two variants the same experiment. */
#define RESULTS_FILE_IDENTITY                                                                      \
	"backend", "lock", "relax", "ring", "vms", "vcpus", "pcpus", "pin", "cs_cycles",           \
	    "think_cycles"

struct loaded_variant {
	unsigned index;	   /* in the file's variants[] */
	json_object *obj;  /* the variant; the document owns it */
	json_object *runs; /* its runs[] */
	unsigned nr_runs;
	unsigned nr_ok;
	const char *first_error; /* of the first failed run, or NULL */
	char key[512];		 /* identity as "backend=kvm lock=ticket ...": matched by strcmp */
	const char *host;	 /* the host it ran on: its "host", else the file's host name */
	char label[256];	 /* identity for people: "kvm ticket/pause ring user 1x2 on 0-1" */
};

struct results_file {
	const char *path;
	json_object *root;
	struct loaded_variant *variants;
	unsigned nr_variants;
	bool interrupted;
	unsigned nr_hosts; /* entries of "hosts" (--connect LIST); 1 where absent */
	/* for the header, each NULL when absent */
	const char *plerig_version;
	const char *command_line;
	const char *kernel;
	const char *kvm_module;
	const char *kvm_module_source; /* how it was inferred (a remote host), NULL where read */
	const char *cpu_model;
	const char *ple_params; /* "name=value ..." as loaded, or "" */
	char ple_params_text[512];
};

/*
 * Load @path and check the structure compare needs, including that every
 * ok run's summary has @metrics (numbers or null; a ratio's two counts,
 * model/metrics.h). Returns 0, or -1 with
 * "PATH: where: what" in @err.
 */
int results_file_load(const char *path, const struct metric *const *metrics, unsigned nr_metrics,
		      struct results_file *out, char *err, size_t errlen);
/*
 * The same checks on a document already parsed (results_file_parse), for a
 * caller that looked at it first: a pipe cannot be read twice. Takes @root
 * (freed with @out, or on failure).
 */
int results_file_check(const char *path, json_object *root, const struct metric *const *metrics,
		       unsigned nr_metrics, struct results_file *out, char *err, size_t errlen);
void results_file_free(struct results_file *f);

/*
 * @m in one run's summary: its member, or for a ratio its two counts through
 * metric_ratio (model/metrics.h). NaN where the run has no such figure, with
 * *why (if @why) the reason the file gives beside the null (a ratio's: its
 * numerator's, or a denominator of 0), or that it gives none.
 */
double results_file_summary_value(json_object *summary, const struct metric *m, const char **why);

/*
 * The values of @m over the ok runs of @v that have one; returns how many.
 * *why (if @why): why the first ok run without one has none (NULL: each had).
 */
unsigned results_file_values(const struct loaded_variant *v, const struct metric *m, double *out,
			     const char **why);

/*
 * Any of plerig's JSON files, parsed whole: NULL with "PATH: not JSON: ...
 * (truncated?)" in @err when it is not one complete document, or with the
 * cap when it is larger than RESULTS_FILE_MAX.
 */
json_object *results_file_parse(const char *path, char *err, size_t errlen);

/* A member of a variant by name (stall_us, duration_s, ...), or NULL. */
json_object *results_file_member(const struct loaded_variant *v, const char *key);

#endif
