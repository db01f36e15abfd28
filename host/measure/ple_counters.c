// SPDX-License-Identifier: GPL-2.0
#include "measure/ple_counters.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "measure/trace_filter.h"
#include "measure/tracefs.h"
#include "util/errbuf.h"
#include "util/strfmt.h"

/*
 * Is PAUSE interception switched off host-wide by a zero parameter? kvm_amd
 * lets every VM's PAUSE run in the guest when its count or its threshold is
 * 0 (svm_vm_init; measured under Linux 6.1: pause_filter_thresh=0 gave no
 * PAUSE exit where the count alone gave 2 per acquisition).
 */
static void host_note(struct ple_probe *p, const struct ple_host *h)
{
	static const char *const off_params[] = {"ple_gap", "pause_filter_count",
						 "pause_filter_thresh"};
	for (size_t i = 0; i < sizeof(off_params) / sizeof(off_params[0]); i++) {
		const struct ple_param *q = ple_host_param(h, off_params[i]);
		if (q && !strcmp(q->value, "0")) {
			snprintf(p->host_note, sizeof(p->host_note),
				 "%s.%s=0: PAUSE interception is off host-wide", h->module,
				 q->name);
			return;
		}
	}
}

static void unavailable(struct ple_probe *p, const char *why)
{
	p->pause_exits_ok = p->window_updates_ok = false;
	str_copy(p->pause_exits_why, sizeof(p->pause_exits_why), why);
	str_copy(p->window_updates_why, sizeof(p->window_updates_why), why);
}

void ple_probe_init(struct ple_probe *p)
{
	struct ple_host h;
	struct trace_format fmt;
	struct trace_filter filter;
	char err[ERRBUF_SIZE], why[300];

	memset(p, 0, sizeof(*p));
	if (ple_host_detect(&h, ple_sysfs_root(), err, sizeof(err))) {
		unavailable(p, err);
		return;
	}
	str_copy(p->module, sizeof(p->module), h.module);
	p->vendor = h.vendor;
	if (h.vendor == PLE_VENDOR_NONE) {
		if (h.module[0])
			errbuf_printf(why, sizeof(why), "no hardware PLE on this host (%s)",
				      h.module);
		else
			errbuf_printf(
			    why, sizeof(why),
			    "no hardware PLE on this host (neither kvm_intel nor kvm_amd is "
			    "loaded)");
		unavailable(p, why);
		return;
	}
	host_note(p, &h);
	if (tracefs_locate(p->tracefs, sizeof(p->tracefs), NULL, 0, err, sizeof(err))) {
		unavailable(p, err);
		return;
	}
	snprintf(p->pause_filter, sizeof(p->pause_filter), "exit_reason == %d",
		 h.vendor == PLE_VENDOR_VMX ? PLE_EXIT_REASON_VMX : PLE_EXIT_REASON_SVM);
	/* the filter names a field: check this kernel's kvm_exit has it */
	if (trace_format_load(p->tracefs, "kvm", "kvm_exit", &fmt, err, sizeof(err))) {
		str_copy(p->pause_exits_why, sizeof(p->pause_exits_why), err);
	} else if (trace_filter_parse(p->pause_filter, &fmt, &filter, err, sizeof(err))) {
		errbuf_printf(p->pause_exits_why, sizeof(p->pause_exits_why),
			      "cannot filter kvm:kvm_exit on the PAUSE exit reason: %s", err);
	} else {
		p->pause_exits_ok = true;
	}
	if (trace_format_load(p->tracefs, "kvm", "kvm_ple_window_update", &fmt, err, sizeof(err)))
		str_copy(p->window_updates_why, sizeof(p->window_updates_why), err);
	else
		p->window_updates_ok = true;
}

const char *ple_variant_note(const struct ple_probe *p, enum plerig_ring ring, bool ple_off)
{
	if (p->vendor == PLE_VENDOR_NONE)
		return NULL; /* the figure is unavailable, which says more */
	if (ple_off)
		return "PAUSE interception off for this VM (KVM_X86_DISABLE_EXITS_PAUSE)";
	if (p->host_note[0])
		return p->host_note;
	if (p->vendor == PLE_VENDOR_VMX && ring == PLERIG_RING_USER)
		return "Intel PLE ignores PAUSE at guest CPL > 0 (ring user)";
	return NULL;
}

/* One figure: its counter, or its reason. */
static int open_one(struct trace_counter *c, char *why, size_t whylen, bool ok,
		    const char *probe_why, const char *tracefs, const char *event,
		    const char *filter, pid_t tid)
{
	c->fd = -1;
	why[0] = '\0';
	if (!ok)
		return errbuf_errno(why, whylen, -EOPNOTSUPP, "%s", probe_why);
	return trace_counter_open(c, tracefs, "kvm", event, tid, filter, why, whylen);
}

int ple_counters_open(struct ple_counters *c, const struct ple_probe *p, pid_t tid)
{
	int rc = open_one(&c->pause_exits, c->pause_exits_why, sizeof(c->pause_exits_why),
			  p->pause_exits_ok, p->pause_exits_why, p->tracefs, "kvm_exit",
			  p->pause_filter, tid);
	int r2 = open_one(&c->window_updates, c->window_updates_why, sizeof(c->window_updates_why),
			  p->window_updates_ok, p->window_updates_why, p->tracefs,
			  "kvm_ple_window_update", NULL, tid);
	return rc ? rc : r2;
}

static void read_one(const struct trace_counter *c, uint64_t *v, bool *valid)
{
	char err[ERRBUF_SIZE];
	*valid = c->fd >= 0 && trace_counter_read(c, v, err, sizeof(err)) == 0;
	if (!*valid)
		*v = 0;
}

void ple_counters_read(const struct ple_counters *c, struct ple_counts *out)
{
	read_one(&c->pause_exits, &out->pause_exits, &out->pause_exits_valid);
	read_one(&c->window_updates, &out->window_updates, &out->window_updates_valid);
}

void ple_counts_delta(const struct ple_counts *before, const struct ple_counts *after,
		      struct ple_counts *d)
{
	d->pause_exits_valid = before->pause_exits_valid && after->pause_exits_valid;
	d->window_updates_valid = before->window_updates_valid && after->window_updates_valid;
	d->pause_exits = d->pause_exits_valid ? after->pause_exits - before->pause_exits : 0;
	d->window_updates =
	    d->window_updates_valid ? after->window_updates - before->window_updates : 0;
}

void ple_counters_close(struct ple_counters *c)
{
	trace_counter_close(&c->pause_exits);
	trace_counter_close(&c->window_updates);
}

void ple_hold_open(struct ple_hold *h, const struct ple_probe *p)
{
	char why[ERRBUF_SIZE];
	h->pause_exits.fd = h->window_updates.fd = -1;
	/* this thread (0): it never runs a vCPU, and needs no filter */
	if (p->pause_exits_ok)
		(void)trace_counter_open(&h->pause_exits, p->tracefs, "kvm", "kvm_exit", 0, NULL,
					 why, sizeof(why));
	if (p->window_updates_ok)
		(void)trace_counter_open(&h->window_updates, p->tracefs, "kvm",
					 "kvm_ple_window_update", 0, NULL, why, sizeof(why));
}

void ple_hold_close(struct ple_hold *h)
{
	trace_counter_close(&h->pause_exits);
	trace_counter_close(&h->window_updates);
}
