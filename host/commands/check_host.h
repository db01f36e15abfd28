/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `plerig check` on one host, and on each host of --connect LIST at once:
 * shared by commands/check.c and commands/check_fleet.c only.
 */
#ifndef PLERIG_CHECK_HOST_H
#define PLERIG_CHECK_HOST_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#include "cli/check_options.h"
#include "model/check_result.h"
#include "model/suite.h"

/* What one check of the suite on one host needs beyond the options. */
struct host_check {
	const struct suite *suite;
	const char *suite_path;
	const char *guest_path;
	json_object *results; /* --report: every scenario's results; NULL without */
	bool on_host;	      /* --connect: on this host of the list, through libvirt */
	const char *uri;      /* that host's URI; NULL: the embedded driver */
	unsigned hosts_here;  /* hosts of the list on this machine (check_config's) */
	const char *label;    /* "hostA"; NULL without --connect */
	FILE *summary;	      /* where its summary goes */
};

/*
 * The suite on one host, judged against that host's baseline (keyed by
 * @res->host, which the caller filled), its summary printed. The exit
 * status it earns.
 */
int check_host(const struct check_options *o, const struct host_check *h, struct check_result *res);

/*
 * check --connect LIST: the suite on every host at once, each against its
 * own baseline (@proto gives what all share); every case into @all naming
 * its host, the summaries host by host in the list's order. A host that
 * cannot be reached is a failed case. The worst status over the hosts.
 */
int check_fleet(const struct check_options *o, const struct host_check *proto,
		struct check_result *all);

#endif
