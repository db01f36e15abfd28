/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The suite file of `plerig check`, in the manner of kvm-unit-tests'
 * unittests.cfg: one [section] per scenario, `key = value` lines, `#`
 * comments. A [defaults] section gives what every scenario starts from.
 *
 *   [defaults]
 *   options = --duration 0.3 --repeat 5
 *
 *   [overcommit]
 *   groups = quick, lhp
 *   options = --vcpus 4 --pcpus 0 --lock ticket --relax pause
 *   min_cpus = 1
 *   requires = ple               # ple, hw-virt, pv-yield
 *   expect = progress, stalls     # progress, no-stalls, stalls, ple-exits, no-ple-exits,
 *                                 # directed-yields
 *   metrics = acq_per_cpu_s       # judged against the baseline; none: not judged
 *
 * `options` are `plerig run` options, split at white space (no quoting),
 * the defaults' first; each scenario's are parsed as `plerig run` parses
 * them, so a bad option is reported with the scenario's file and line.
 */
#ifndef PLERIG_SUITE_FILE_H
#define PLERIG_SUITE_FILE_H

#include <stddef.h>

#include "model/suite.h"

/*
 * Parse the @len bytes of @text (from @path, for messages); a NUL byte in
 * them is an error. 0, or -1 with "PATH:LINE: why" in @err.
 */
int suite_parse(const char *path, const char *text, size_t len, struct suite *out, char *err,
		size_t errlen);
/* Read and parse @path: a regular file of at most 256 KiB (a FIFO is refused, never waited on). */
int suite_load(const char *path, struct suite *out, char *err, size_t errlen);

#endif
