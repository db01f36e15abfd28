/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The key a host's baseline is filed under (DIR/KEY.json): the kind of
 * machine (CPU model, CPU count, SMT, KVM module), and, for a host of
 * check --connect, its name first, so that each host keeps its own.
 *
 * The kind of machine is a slug on purpose: "AMD EPYC 7B13" however it is
 * spaced or cased is one kind. The name is not: two hosts must never share
 * a file. A name whose slug says it whole (letters, digits, '_', single
 * '-' inside, at most 62 characters; case does not count, as in DNS) stands
 * as that slug, as it always did; any other ("node.1", one of 63
 * characters or more) as its slug, cut to 40, then "--" and 8 hex digits
 * of a hash of the whole name. No slug holds "--", so no plain name makes
 * such a key. What a hash or a name ending where the CPU model begins
 * could still join is caught when the file is read: its host's name must
 * be this one's (baseline_store_load_host).
 */
#ifndef PLERIG_BASELINE_KEY_H
#define PLERIG_BASELINE_KEY_H

#include <stdbool.h>
#include <stddef.h>

#include "measure/host_info.h"

/* "amd-epyc-7b13-2cpu-smt0-kvm_pvm"; "hosta-amd-...", "node-1--1a2b3c4d-amd-..." */
void baseline_key(const struct host_info *h, char *buf, size_t len);

/*
 * The key plerig gave @h before names were kept apart: every name as its
 * slug, cut at 62 characters ("node.1" and "node-1" both "node-1"). The
 * same as baseline_key for every plain name; read where no file has the
 * new key yet, and carried over to it by the next recording.
 */
void baseline_legacy_key(const struct host_info *h, char *buf, size_t len);

/* May @stored (a baseline file's host) be @now: the same name where the key holds one? */
bool baseline_same_host(const struct host_info *stored, const struct host_info *now);

#endif
