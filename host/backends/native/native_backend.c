// SPDX-License-Identifier: GPL-2.0
#include "backends/native/native_backend.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backends/guest_config.h"
#include "backends/phase_driver.h"
#include "backends/placement.h"
#include "backends/run_result.h"
#include "measure/schedstat.h"
#include "measure/tsc.h"
#include "storm/storm.h"
#include "util/clock.h"
#include "util/errbuf.h"
#include "util/pinned_thread.h"
#include "util/start_line.h"

#define TSC_CALIBRATION_MS 50

struct native_backend {
	struct backend base;
	uint64_t tsc_khz;
	char description[96];
};

struct native_run;

/* One "vCPU": a host thread running storm_run() on its group's shared block. */
struct native_thread {
	struct native_run *run;
	unsigned g;
	cpu_set_t cpus;
	int host_cpu;
	pthread_t thread;
	bool started;
	pid_t tid;			  /* atomic */
	int ready;			  /* atomic */
	int abandon;			  /* atomic: leave the start line without running */
	int outcome;			  /* atomic: enum unit_outcome */
	struct schedstat_kept last_sched; /* as the thread ended */
	char message[128];
};

struct native_run {
	const struct variant *v;
	struct variant_result *r;
	struct plerig_shared **shared; /* one block per "VM": its own lock */
	struct native_thread *threads;
	unsigned nr_started;
	struct start_line start;
};

static void *native_thread_main(void *arg)
{
	struct native_thread *t = arg;
	const struct variant *v = t->run->v;
	__atomic_store_n(&t->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	__atomic_store_n(&t->ready, 1, __ATOMIC_RELEASE);
	start_line_wait(&t->run->start, &t->abandon);
	if (__atomic_load_n(&t->abandon, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&t->outcome, UNIT_STOPPED, __ATOMIC_RELEASE);
		return NULL;
	}
	storm_run(t->run->shared[t->g / v->vcpus], t->g % v->vcpus);
	schedstat_keep_own(&t->last_sched);
	__atomic_store_n(&t->outcome, UNIT_DONE, __ATOMIC_RELEASE);
	return NULL;
}

static int make_shared(struct native_run *run, uint64_t tsc_khz)
{
	const struct variant *v = run->v;
	run->shared = calloc(v->vms, sizeof(run->shared[0]));
	if (!run->shared)
		return run_fail(run->r, "out of memory");
	for (unsigned i = 0; i < v->vms; i++) {
		void *p = mmap(NULL, sizeof(struct plerig_shared), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return run_fail(run->r, "mmap of the shared block: %s", strerror(errno));
		run->shared[i] = p;
		struct plerig_config *c = &run->shared[i]->config;
		guest_config_fill(c, v);
		guest_config_set_tsc(c, v, tsc_khz);
		c->ring = PLERIG_RING_USER; /* host user space */
		/* pvqspin's halt and kick: a futex stands in (native_halt.c) */
		c->flags |= PLERIG_CONFIG_PV_UNHALT;
	}
	return 0;
}

static int start_threads(struct native_run *run)
{
	const struct variant *v = run->v;
	const unsigned n = v->vms * v->vcpus;
	run->threads = calloc(n, sizeof(run->threads[0]));
	if (!run->threads)
		return run_fail(run->r, "out of memory for %u threads", n);
	int rc = 0;
	for (unsigned g = 0; g < n && !rc; g++) {
		struct native_thread *t = &run->threads[g];
		t->run = run;
		t->g = g;
		const unsigned *cpus;
		const unsigned nr = placement_cpus(v, g, &cpus);
		t->host_cpu = placement_cpu(v, g);
		CPU_ZERO(&t->cpus);
		for (unsigned i = 0; i < nr; i++)
			CPU_SET(cpus[i], &t->cpus);
		rc = pinned_thread_create(&t->thread, &t->cpus, native_thread_main, t);
		if (!rc) {
			t->started = true;
			run->nr_started = g + 1;
		}
	}
	if (rc)
		return run_fail(run->r, "starting storm thread %u: %s", run->nr_started,
				strerror(rc));
	return 0;
}

/* ---- what the phase driver sees of the threads ---- */

static struct plerig_shared *unit_shared(void *ctx, unsigned vm)
{
	return ((struct native_run *)ctx)->shared[vm];
}

static struct native_thread *thread_at(void *ctx, unsigned g)
{
	return &((struct native_run *)ctx)->threads[g];
}

static bool unit_ready(void *ctx, unsigned g)
{
	return __atomic_load_n(&thread_at(ctx, g)->ready, __ATOMIC_ACQUIRE);
}

static int unit_outcome(void *ctx, unsigned g, const char **message)
{
	struct native_thread *t = thread_at(ctx, g);
	if (message)
		*message = t->message;
	return __atomic_load_n(&t->outcome, __ATOMIC_ACQUIRE);
}

static pid_t unit_tid(void *ctx, unsigned g)
{
	return __atomic_load_n(&thread_at(ctx, g)->tid, __ATOMIC_ACQUIRE);
}

static const struct schedstat_kept *unit_kept_sched(void *ctx, unsigned g)
{
	return &thread_at(ctx, g)->last_sched;
}

static int unit_host_cpu(void *ctx, unsigned g)
{
	return thread_at(ctx, g)->host_cpu;
}

static bool unit_kvm_stats(void *ctx, unsigned g, struct kvm_stats_snapshot *out)
{
	(void)ctx;
	(void)g;
	(void)out;
	return false; /* no VM, no exits */
}

static void unit_ple_counts(void *ctx, unsigned g, struct ple_counts *out)
{
	(void)ctx;
	(void)g;
	memset(out, 0, sizeof(*out)); /* invalid: see ple_why */
}

static void unit_open_start_line(void *ctx)
{
	start_line_open(&((struct native_run *)ctx)->start);
}

static const struct unit_ops native_unit_ops = {
    .shared = unit_shared,
    .ready = unit_ready,
    .outcome = unit_outcome,
    .tid = unit_tid,
    .kept_sched = unit_kept_sched,
    .host_cpu = unit_host_cpu,
    .kvm_stats = unit_kvm_stats,
    .ple_counts = unit_ple_counts,
    .open_start_line = unit_open_start_line,
};

/*
 * A storm thread cannot be killed, only told: STOP makes every storm
 * leave its loop (a lock is always released eventually: nothing here
 * preempts a holder for good), and threads still at the start line abandon it.
 */
static void teardown(struct native_run *run)
{
	for (unsigned i = 0; run->shared && i < run->v->vms; i++)
		if (run->shared[i])
			__atomic_store_n(&run->shared[i]->phase, PLERIG_PHASE_STOP,
					 __ATOMIC_RELEASE);
	for (unsigned g = 0; g < run->nr_started; g++)
		__atomic_store_n(&run->threads[g].abandon, 1, __ATOMIC_RELEASE);
	start_line_wake(&run->start);
	for (unsigned g = 0; g < run->nr_started; g++)
		pthread_join(run->threads[g].thread, NULL);
	free(run->threads);
	for (unsigned i = 0; run->shared && i < run->v->vms; i++)
		if (run->shared[i])
			munmap(run->shared[i], sizeof(struct plerig_shared));
	free(run->shared);
}

static int native_run_variant(struct backend *b, const struct variant *v, struct variant_result *r)
{
	struct native_backend *nb = (struct native_backend *)b;
	struct native_run run = {.v = v, .r = r};
	struct phase_driver d = {
	    .ops = &native_unit_ops, .ctx = &run, .v = v, .r = r, .t0 = monotonic_ns()};
	if (variant_result_init(r, v))
		return -1;
	if (v->inject != PLERIG_INJECT_NONE)
		return run_fail(r, "--inject applies to VM backends, not native");
	r->tsc_khz = nb->tsc_khz;
	r->pv_unhalt = v->lock == PLERIG_LOCK_PVQSPIN;
	snprintf(r->ple_why, sizeof(r->ple_why), "no VM, so no PAUSE-loop exits");
	start_line_init(&run.start);
	if (!make_shared(&run, nb->tsc_khz)) {
		r->timing.created_ns = phase_driver_elapsed(&d);
		if (!start_threads(&run))
			phase_driver_run(&d);
	}
	teardown(&run);
	start_line_destroy(&run.start);
	r->timing.torn_down_ns = phase_driver_elapsed(&d);
	return r->ok ? 0 : -1;
}

static void native_close(struct backend *b)
{
	free(b);
}

struct backend *native_backend_open(char *err, size_t errlen)
{
	struct native_backend *nb = calloc(1, sizeof(*nb));
	if (!nb) {
		errbuf_printf(err, errlen, "out of memory");
		return NULL;
	}
	nb->tsc_khz = tsc_calibrate_khz(TSC_CALIBRATION_MS);
	if (!nb->tsc_khz) {
		errbuf_printf(err, errlen, "cannot calibrate the TSC against CLOCK_MONOTONIC_RAW");
		free(nb);
		return NULL;
	}
	nb->base.kind = BACKEND_NATIVE;
	nb->base.run = native_run_variant;
	nb->base.close = native_close;
	nb->base.default_ring = PLERIG_RING_USER;
	snprintf(nb->description, sizeof(nb->description),
		 "native host threads (TSC %llu kHz, calibrated)", (unsigned long long)nb->tsc_khz);
	nb->base.description = nb->description;
	return &nb->base;
}
