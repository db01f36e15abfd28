/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One variant's run on the libvirt backend, shared by the files that do
 * its steps: libvirt_backend.c opens the backend and runs a variant in
 * order (start, boot, measure, collect, tear down on every path);
 * lv_start.c creates and starts its domains, lv_watch.c follows what the
 * guests send on their serial ports (and fails the run on what goes
 * wrong), lv_measure.c brackets the measured interval with the host's
 * figures and collects the results.
 */
#ifndef PLERIG_LV_RUN_H
#define PLERIG_LV_RUN_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "backends/backend.h"
#include "backends/run_exit_timers.h"
#include "backends/libvirt/connection.h"
#include "backends/libvirt/lv_domain.h"
#include "backends/libvirt/lv_pv.h"
#include "backends/libvirt/remote_pool.h"
#include "backends/libvirt/run_dir.h"
#include "measure/host_info.h"
#include "measure/ple_counters.h"
#include "plerig/abi.h"

struct lv_backend {
	struct backend base; /* first: the runner sees only this */
	struct lv_connection lc;
	bool tcg;
	const char *emulator; /* MICROVM_QEMU, or NULL: libvirt's default */
	char *template_text;
	char guest_path[PATH_MAX];
	char cache[PATH_MAX]; /* --cache-dir, absolute: damaged serial logs are kept there */
	uint64_t tsc_khz;
	struct ple_probe ple; /* where PAUSE-loop exit counts come from on this host */
	struct lv_pv_host pv_host;
	/* domains whose QEMU plerig ended itself, left to libvirt until close */
	virDomainPtr *settling;
	unsigned nr_settling;
	char description[sizeof(((struct lv_connection *)0)->uri) + 160];
	struct host_info remote; /* the machine QEMU runs on, when not this one */
	/* QEMU on another host: guest image and configs go there as volumes of a
	 * pool of our own, results come back through the console (remote_pool.h) */
	bool ship;
	struct lv_pool pool;
	char guest_remote[PATH_MAX]; /* the guest image's volume there */
};

struct lv_run {
	struct lv_backend *b;
	const struct variant *v;
	struct variant_result *r;
	struct run_dir dir;
	struct lv_domain *doms;
	unsigned nr_doms; /* initialised so far */
	unsigned number;  /* lv_run_number(): in its domains' names and owner elements */
	uint64_t t0;
	char config_vol[32];	  /* the run's config volume on the remote host, "" when none */
	struct plerig_config cfg; /* what the guests were given */
	struct run_exit_timers exit_timers; /* --exit-times, on QEMU's vCPU threads */
};

/* lv_start.c: the run's domains created (paused, at once) with their config; 0, or -1 failed. */
int lv_start_domains(struct lv_run *run);
/* ... and resumed. */
int lv_start_resume(struct lv_run *run);

/* lv_watch.c, each 0 or -1 with the run failed (a VM's fault, a watchdog, Ctrl-C): */
/* from resume to every guest's hello; */
int lv_watch_boot(struct lv_run *run);
/* the guests followed until @deadline (monotonic_ns), nothing awaited; */
int lv_watch_until(struct lv_run *run, uint64_t deadline);
/* from the interval's end to every guest's results; */
int lv_watch_results(struct lv_run *run);
/* a whole report of @d: a result, or the failure the guest reported. */
int lv_watch_end_status(struct lv_run *run, const struct lv_domain *d);

/* lv_measure.c: the host's figures around the guests' interval, then their results; 0 or -1. */
int lv_measure_interval(struct lv_run *run);
int lv_measure_collect(struct lv_run *run);

#endif
