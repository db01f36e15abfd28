/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hosts side by side: where the documents of a report ran on more than one
 * host (--connect LIST, check --connect, or files from several machines),
 * one table with a row per host and a column per document (a results
 * file, or a check scenario): in each cell that host's figures there and
 * the verdicts of the run's comparisons, or why its runs failed.
 */
#ifndef PLERIG_OUTPUT_HTML_HOSTS_H
#define PLERIG_OUTPUT_HTML_HOSTS_H

#include <stdio.h>

#include "output/html_writer.h"

/* The section, or nothing when every document ran on one host. */
void html_hosts_section(FILE *out, const struct html_input *in, unsigned n);

#endif
