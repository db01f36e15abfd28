/* SPDX-License-Identifier: GPL-2.0 */
/* One VM of the libvirt backend: its domain, its serial log, its vCPU threads and stats. */
#ifndef PLERIG_LV_DOMAIN_H
#define PLERIG_LV_DOMAIN_H

#include <libvirt/libvirt.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "backends/run_result.h"
#include "measure/kvm_stats.h"
#include "backends/libvirt/domain_stats.h"
#include "backends/libvirt/serial_decode.h"
#include "measure/schedstat.h"

struct lv_domain {
	unsigned index;
	unsigned nr_vcpus;
	virDomainPtr dom;
	char name[64];
	char serial_path[PATH_MAX]; /* the serial log file, "" when read as @console */
	virStreamPtr console;	    /* the serial port as libvirt's console stream */
	unsigned char *console_buf; /* what came out of it so far */
	size_t console_len;
	pid_t *tids; /* QEMU's vCPU threads, by vCPU index: local QEMU only, else 0 */
	struct plerig_vcpu_result *results;
	struct serial_report rep;
	enum serial_decode_status status;
	char decode_error[256];
	uint64_t hello_ns; /* CLOCK_MONOTONIC when the hello frame was first seen, 0 before */
	uint64_t end_ns;   /* same for the end frame */
	pid_t qemu_pid;	   /* local QEMU only, else 0 */
	pthread_t reaper;  /* waits for QEMU to exit, when QEMU is our child */
	bool reaping;
};

int lv_domain_init(struct lv_domain *d, unsigned index, unsigned nr_vcpus, char *err,
		   size_t errlen);
/* Start it paused from @xml (transient; with @autodestroy, destroyed with the connection). */
int lv_domain_create(struct lv_domain *d, virConnectPtr conn, bool autodestroy, const char *xml,
		     char *err, size_t errlen);
/*
 * Local QEMU only: its process (the one whose -name is guest=NAME) and its
 * vCPU threads ("CPU N/KVM", "CPU N/TCG"), from /proc: no QEMU monitor
 * command, which would taint the domain. With @root, the embedded driver's
 * root, its pid file says which process first. 0, or -1 with @err.
 */
int lv_domain_find_threads(struct lv_domain *d, const char *root, char *err, size_t errlen);
/*
 * With the embedded driver, QEMU daemonizes and is re-parented to us (a
 * child subreaper, see libvirt_backend.c): reap it the moment it exits,
 * or libvirt waits for a zombie until init gets round to it (1.4 s here).
 */
void lv_domain_start_reaper(struct lv_domain *d);
/*
 * Open the domain's serial port as a console stream (QEMU on another host:
 * no file to read there); before resume, so that nothing is missed.
 */
int lv_domain_open_console(struct lv_domain *d, virConnectPtr conn, char *err, size_t errlen);
int lv_domain_resume(struct lv_domain *d, char *err, size_t errlen);
/* Still running? false once QEMU is gone (powered off, crashed, destroyed). */
bool lv_domain_active(struct lv_domain *d);
/* Read and decode the serial log (or console) again; updates status, hello_ns, end_ns. */
void lv_domain_poll_serial(struct lv_domain *d, uint64_t now_ns);
/*
 * One VM's counters from libvirt's vCPU stats @st (domain_stats.h): KVM's
 * from libvirt always; run delay and run time from this host's schedstat
 * where QEMU runs here (ns, and timeslices), else libvirt's (run time in
 * whole ticks). Sets *@sched_ok false where a vCPU has neither.
 */
void lv_domain_snapshot(const struct lv_domain *d, bool local, const struct lv_vcpu_stats *st,
			struct counter_snapshot *out, bool *sched_ok);
/* Destroy the domain if it still runs, release everything; safe on a half-made one. */
/*
 * Kill QEMU, reap it, forget the domain. Where plerig killed and reaped
 * QEMU itself and @later is not NULL, the domain handle is left in *@later
 * for lv_domain_settle(): libvirt finishes with it in the background.
 */
void lv_domain_teardown(struct lv_domain *d, virDomainPtr *later);
/* Wait (2 s at most) until libvirt has dropped a domain, destroy it if not; free it. */
void lv_domain_settle(virDomainPtr dom);

#endif
