/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The life of one variant, common to every backend whose storm reads the
 * phase word from memory the host can write (kvm, native): wait for every
 * unit (vCPU or thread) to be READY, open the start line, warm up,
 * measure between two snapshots of the host-side counters, stop, copy the
 * results out and check them (backends/guest_figures.h): possible, and the
 * lock excluded.
 */
#ifndef PLERIG_PHASE_DRIVER_H
#define PLERIG_PHASE_DRIVER_H

#include <stdbool.h>
#include <sys/types.h>

#include "measure/schedstat.h"
#include "model/results.h"

enum unit_outcome {
	UNIT_RUNNING = 0, /* still running, or never started */
	UNIT_DONE,	  /* the storm finished and reported */
	UNIT_STOPPED,	  /* stopped by the host (watchdog, Ctrl-C, teardown) */
	UNIT_FAILED,	  /* see the message */
};

/* What the driver needs of a backend's running units; g = vm * vcpus + vcpu. */
struct unit_ops {
	struct plerig_shared *(*shared)(void *ctx, unsigned vm);
	bool (*ready)(void *ctx, unsigned g);
	/* enum unit_outcome; *message is set when UNIT_FAILED */
	int (*outcome)(void *ctx, unsigned g, const char **message);
	pid_t (*tid)(void *ctx, unsigned g);
	/* what unit g's thread kept of its schedstat as it ended; NULL: none */
	const struct schedstat_kept *(*kept_sched)(void *ctx, unsigned g);
	int (*host_cpu)(void *ctx, unsigned g);
	/* false where the backend has no KVM stats for the unit */
	bool (*kvm_stats)(void *ctx, unsigned g, struct kvm_stats_snapshot *out);
	/* PAUSE-loop exit counts of unit g; invalid counts where there are none */
	void (*ple_counts)(void *ctx, unsigned g, struct ple_counts *out);
	/* unit g's counts since it was created, once it has stopped; NULL (or
	 * false) where the backend cannot count a unit's whole life */
	bool (*lifetime)(void *ctx, unsigned g, struct vcpu_lifetime *out);
	void (*open_start_line)(void *ctx);
	/*
	 * Optional (NULL: none). Called on every poll of the driver's wait
	 * loops: keep per-unit sample buffers (--exit-times) from filling up.
	 */
	void (*drain)(void *ctx);
	/*
	 * Optional. The measured interval on CLOCK_MONOTONIC: at its start
	 * (@stop_ns 0), and at its end, after the counters' deltas are in the
	 * records, for the backend to finish figures of that interval.
	 */
	void (*interval)(void *ctx, uint64_t start_ns, uint64_t stop_ns);
};

struct unit_mark;

/* What the stop wait did for a unit the host left without a CPU. */
enum unit_rescue {
	UNIT_NOT_MOVED = 0,
	UNIT_MOVED,  /* to the other CPUs this process may use */
	UNIT_STAYED, /* it had nowhere to go */
};

struct phase_driver {
	const struct unit_ops *ops;
	void *ctx;
	const struct variant *v;
	struct variant_result *r;
	uint64_t t0; /* CLOCK_MONOTONIC at the start of the variant */
	/* each unit's thread where the wait the watchdog times began (see unit_evidence.h) */
	struct unit_mark *marks;
	const char *mark_name;
	uint64_t watched_ns; /* when the marks were last looked at */
	/* in the stop wait: move a unit the host leaves without a CPU to another CPU */
	bool rescue;
	unsigned char *rescued; /* per unit: enum unit_rescue */
};

uint64_t phase_driver_elapsed(const struct phase_driver *d);
/*
 * From "units started" to "results collected". Sets r->timing.ready_ns
 * .. stopped_ns. 0, or -1 with r->error; the caller tears down either way.
 */
int phase_driver_run(struct phase_driver *d);
/* Set the phase in every VM: the STOP that teardown needs after a failure. */
void phase_driver_set_phase(struct phase_driver *d, enum plerig_phase phase);

#endif
