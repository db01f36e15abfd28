/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whose a domain is, written into the domain itself: a <metadata> element
 * in plerig's namespace with this (controller) machine's host name, the
 * plerig process's pid and start time, and the run. On another libvirt
 * daemon plerig's domains are created with autodestroy, so libvirtd
 * destroys them when plerig's connection closes, kill -9 included; this
 * is for what outlives that (a connection that hangs rather than closes,
 * a daemon restarted meanwhile). A later plerig of this machine removes a
 * domain whose owner no longer runs; one of another machine's plerig, a
 * live one's, or one without the element (not plerig's) it never touches.
 */
#ifndef PLERIG_LIBVIRT_DOMAIN_OWNER_H
#define PLERIG_LIBVIRT_DOMAIN_OWNER_H

#include <libvirt/libvirt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define DOMAIN_OWNER_NS	    "urn:plerig:owner:1"
#define DOMAIN_OWNER_PREFIX "plerig"

/*
 * The next run of this process, counted over every libvirt backend it opens
 * (one per --connect host, at once, and one per check scenario): its domains
 * are plerig-PID-RUN-VM, so two hosts of a run that reach one daemon (two
 * spellings of its URI) never name a domain alike. From 1.
 */
unsigned lv_run_number(void);

/* The owner element of this process's run @run, "<plerig:owner .../>". 0, or -1. */
int domain_owner_element(unsigned run, char *out, size_t len);

/*
 * Does owner element @xml (as virDomainGetMetadata gives it back) name a
 * plerig process of host @host that no longer runs?
 */
bool domain_owner_is_orphan(const char *xml, const char *host);

/*
 * Domains of @conn whose owner is a dead plerig of this machine: destroyed
 * (and undefined, were one persistent), one line on @say each, with
 * libvirt's words where that failed. Returns how many went.
 */
unsigned domain_owner_sweep(virConnectPtr conn, FILE *say);

#endif
