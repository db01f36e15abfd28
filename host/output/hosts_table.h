/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hosts side by side, for people (--connect LIST): who each host is (its
 * CPU, KVM module and PLE parameters, what its seconds are), then each
 * variant as every host ran it: throughput, PAUSE-loop exits and PLE
 * window (kvm_intel) or pause filter count (kvm_amd) updates per lock
 * acquisition. Hosts of different hardware are said to be that: each
 * one's figures are its own PLE design's, never a change of another's.
 * The JSON's hosts and variants hold the same; plerig report's "Hosts side
 * by side" shows it from there (output/html_hosts.c).
 */
#ifndef PLERIG_OUTPUT_HOSTS_TABLE_H
#define PLERIG_OUTPUT_HOSTS_TABLE_H

#include <stdio.h>

#include "model/outcome.h"

/* The section, or nothing with fewer than two hosts. */
void hosts_table_print(FILE *f, const struct outcome *rep);

#endif
