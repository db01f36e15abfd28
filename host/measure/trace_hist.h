/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-thread counts of tracepoints from ftrace histogram triggers, in a
 * tracing instance of plerig's own: the kernel counts every hit on ftrace's
 * path, not perf's, so they are an outside count to hold plerig's own
 * counters (perf tracepoint counters, KVM's binary stats) against.
 *
 *   trace_hist_begin(&h, tracefs, "plerig-check-123")   the instance
 *   trace_hist_add(&h, "kvm", "kvm_exit", "common_pid,exit_reason")
 *   trace_hist_kprobe(&h, 'r', "plerig_123", "deliver_ret",
 *                     "kvm_irq_delivery_to_apic ret=$retval:s32")   a kprobe event
 *   trace_hist_add(&h, "plerig_123", "deliver_ret", "ret")           counted like any
 *   ... the runs ...
 *   trace_hist_read(&h, 0, &table)                      per key tuple
 *   trace_hist_clear(&h)                                 counting anew
 *   trace_hist_end(&h)                       triggers, instance and kprobe events gone
 */
#ifndef PLERIG_TRACE_HIST_H
#define PLERIG_TRACE_HIST_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRACE_HIST_MAX_TRIGGERS 6
#define TRACE_HIST_MAX_KEYS	3 /* the kernel's own limit for a hist trigger's keys */
#define TRACE_HIST_MAX_PROBES	4

struct trace_hist_entry {
	uint64_t key[TRACE_HIST_MAX_KEYS]; /* in the trigger's order; unused keys 0 */
	uint64_t hits;
};

struct trace_hist_table {
	struct trace_hist_entry *entries; /* malloc'ed */
	unsigned n, cap;
	uint64_t dropped; /* hits the table had no room for: the counts are then incomplete */
};

struct trace_hist {
	char dir[PATH_MAX];	/* the instance; "" when there is none */
	char tracefs[PATH_MAX]; /* where kprobe_events is */
	unsigned nr, nr_probes;
	char probes[TRACE_HIST_MAX_PROBES][128]; /* "group/event" of the kprobe events added */
	struct {
		char event[128];   /* "kvm/kvm_exit" */
		char trigger[256]; /* as written, to remove it again */
	} t[TRACE_HIST_MAX_TRIGGERS];
};

/* Create the instance @name under @tracefs. 0, or -errno with @err saying what failed and why. */
int trace_hist_begin(struct trace_hist *h, const char *tracefs, const char *name, char *err,
		     size_t errlen);
/* A histogram of @system:@event keyed by @keys (comma list, at most 2). 0, or -errno with @err. */
int trace_hist_add(struct trace_hist *h, const char *system, const char *event, const char *keys,
		   char *err, size_t errlen);
/*
 * A kprobe event @group/@event (@kind 'p' at entry, 'r' at return) on
 * @probe ("SYMBOL [FETCHARGS]"), defined in tracefs' kprobe_events (for
 * every instance: @group should be this process's own) and removed by
 * trace_hist_end. 0, or -errno with @err (a kernel without
 * CONFIG_KPROBE_EVENTS, no such symbol).
 */
int trace_hist_kprobe(struct trace_hist *h, char kind, const char *group, const char *event,
		      const char *probe, char *err, size_t errlen);
/* Remove kprobe event @name ("group/event") that a killed process left. 0, or -errno. */
int trace_hist_kprobe_remove(const char *tracefs, const char *name);
/* The counts of trigger @i so far. 0, or -errno/-1 with @err. */
int trace_hist_read(const struct trace_hist *h, unsigned i, struct trace_hist_table *out, char *err,
		    size_t errlen);
/*
 * Zero every histogram of @h (each trigger's ":clear"), to count anew
 * without removing and making the instance again: on a kernel before 6.6
 * that creates every event's files: about half an emulated second under
 * Bochs.
 * 0, or -errno/-1 with @err.
 */
int trace_hist_clear(const struct trace_hist *h, char *err, size_t errlen);
/* Remove the triggers and the instance; harmless when there is none. */
void trace_hist_end(struct trace_hist *h);
/*
 * Remove instance @name of @tracefs that a killed process left behind:
 * every hist trigger on its @events ("system/event") first, as read from
 * their trigger files, then the instance. 0, or -errno of the removal.
 */
int trace_hist_remove_left(const char *tracefs, const char *name, const char *const *events,
			   unsigned nr_events);

/*
 * Parse a hist file ("{ common_pid: 12, exit_reason: 40 } hitcount: 7"
 * lines, "Dropped: N"). 0, or -1 with @err (a line it cannot read, out of
 * memory).
 */
int trace_hist_parse(const char *text, struct trace_hist_table *out, char *err, size_t errlen);
/* Sum of the hits whose first key is @k0 (and second @k1, unless @any1). */
uint64_t trace_hist_sum(const struct trace_hist_table *t, uint64_t k0, bool any1, uint64_t k1);
void trace_hist_table_free(struct trace_hist_table *t);

#endif
