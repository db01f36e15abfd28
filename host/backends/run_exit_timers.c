// SPDX-License-Identifier: GPL-2.0
#include "backends/run_exit_timers.h"

#include <stdlib.h>
#include <string.h>

#include "backends/run_result.h"
#include "util/errbuf.h"
#include "util/strfmt.h"

static void why(struct variant_result *r, const char *text)
{
	if (!r->exit_times_why[0])
		str_copy(r->exit_times_why, sizeof(r->exit_times_why), text);
}

void run_exit_timers_prepare(struct run_exit_timers *x, struct variant_result *r,
			     const struct ple_probe *ple)
{
	char err[ERRBUF_SIZE];
	memset(x, 0, sizeof(*x));
	if (!r->variant.exit_times || r->exit_times_why[0])
		return;
	r->ple_exit_reason = ple->vendor == PLE_VENDOR_VMX   ? PLE_EXIT_REASON_VMX
			     : ple->vendor == PLE_VENDOR_SVM ? PLE_EXIT_REASON_SVM
							     : 0;
	if (tracefs_locate(x->tracefs, sizeof(x->tracefs), NULL, 0, err, sizeof(err)) ||
	    trace_format_load(x->tracefs, "kvm", "kvm_exit", &x->fmt, err, sizeof(err))) {
		why(r, err);
		return;
	}
	x->reason = trace_format_field(&x->fmt, "exit_reason");
	if (!x->reason) {
		why(r, "this kernel's kvm:kvm_exit has no exit_reason field");
		return;
	}
	const unsigned n = r->nr_records;
	x->t = calloc(n, sizeof(x->t[0]));
	x->tried = calloc(n, sizeof(x->tried[0]));
	if (!x->t || !x->tried) {
		run_exit_timers_close(x);
		why(r, "out of memory for exit timers");
		return;
	}
	x->n = n;
}

static bool running(const struct run_exit_timers *x, unsigned g)
{
	return g < x->n && x->tried[g] && x->t[g].exit_fd >= 0;
}

void run_exit_timers_open(struct run_exit_timers *x, struct variant_result *r, unsigned g,
			  pid_t tid)
{
	char err[ERRBUF_SIZE];
	if (g >= x->n || x->tried[g])
		return;
	x->tried[g] = true;
	const struct exit_timer_events ev = {.tracefs = x->tracefs,
					     .system = "kvm",
					     .exit_event = "kvm_exit",
					     .entry_event = "kvm_entry",
					     .reason = x->reason};
	if (exit_timer_open(&x->t[g], &ev, tid, EXIT_TIMER_PAGES, err, sizeof(err)))
		why(r, err);
}

void run_exit_timers_drain(struct run_exit_timers *x)
{
	for (unsigned g = 0; g < x->n; g++)
		if (running(x, g))
			exit_timer_drain(&x->t[g]);
}

void run_exit_timers_interval(struct run_exit_timers *x, struct variant_result *r,
			      uint64_t start_ns, uint64_t stop_ns, const char *module)
{
	if (!x->n)
		return;
	for (unsigned g = 0; g < x->n; g++) {
		if (!running(x, g))
			continue;
		exit_timer_window(&x->t[g], start_ns, stop_ns);
		if (stop_ns)
			exit_timer_result(&x->t[g], &r->records[g].exit_times);
	}
	if (stop_ns)
		run_check_exit_times(r, module);
}

void run_exit_timers_close(struct run_exit_timers *x)
{
	for (unsigned g = 0; g < x->n; g++)
		if (x->tried[g])
			exit_timer_close(&x->t[g]);
	free(x->t);
	free(x->tried);
	x->t = NULL;
	x->tried = NULL;
	x->n = 0;
}
