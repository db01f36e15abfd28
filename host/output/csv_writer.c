// SPDX-License-Identifier: GPL-2.0
#include "output/csv_writer.h"

#include "util/cpulist.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/halt_path.h"
#include "output/csv_cell.h"
#include "output/exit_times_writer.h"
#include "util/atomic_file.h"
#include "util/printable.h"

/* The column order is the file format: append, never reorder. */
static const char *const header[] = {
    "variant",
    "backend",
    "lock",
    "relax",
    "ring",
    "vms",
    "vcpus",
    "pcpus",
    "repeat",
    "ok",
    "vm",
    "vcpu",
    "host_cpu",
    "acquisitions",
    "contended",
    "stalls",
    "stalled_ns",
    "wait_p50_ns",
    "wait_p99_ns",
    "wait_max_ns",
    "wait_mean_ns",
    "holder_preemptions",
    "run_delay_ns",
    "run_time_ns",
    "exits",
    "interval_s",
    "ple",
    /* per vCPU, added after ple so that older readers by position still work */
    "irq_exits",
    "pause_loop_exits",
    "ple_window_updates",
    "directed_yield_attempted",
    "directed_yield_successful",
    "stalls_self_preempted",
    "holder_preemptions_steal",
    "acq_per_cpu_s",
    /* over the vCPU's whole life, boot and warm-up included (kvm backend) */
    "lifetime_exits",
    "lifetime_pause_loop_exits",
    "lifetime_ple_window_updates",
    /* --exit-times (output/exit_times_writer.c), empty where not measured */
    "exits_timed",
    "exit_ns",
    "ple_exits_timed",
    "ple_exit_ns",
    "exit_records_lost",
    "exit_reasons_top",
    /* lock pvqspin's halt path (model/halt_path.h), empty where the guest did not halt */
    "halts",
    "kicks_sent",
    "kicks_received",
    "spurious_wakeups",
    "early_halts",
    "kick_latency_p50_ns",
    "kick_latency_p99_ns",
    "kick_latency_max_ns",
    /* KVM's halt stats, empty where the host's KVM lacks one */
    "halt_exits",
    "halt_wakeup",
    "halt_successful_poll",
    "halt_attempted_poll",
    "halt_poll_invalid",
    "halt_poll_success_ns",
    "halt_poll_fail_ns",
    /* --halt-poll: the VM's own halt polling in ns, empty where the host's held */
    "halt_poll_ns",
    /* the machine the VMs ran on: its name, made unique where --connect named two alike */
    "host",
};

#define NR_COLUMNS	  (sizeof(header) / sizeof(header[0]))
#define FIRST_VCPU_COLUMN 10 /* "vm": where the per-vCPU fields start */
#define TRAILING_COLUMNS  2  /* interval_s, ple: after the per-vCPU fields */
#define LAST_COLUMNS	  2  /* halt_poll_ns, host: after the late per-vCPU fields */
#define HALT_PATH_COLUMNS (8 + HALT_STAT_COUNT)
/* irq_exits ... : after ple */
#define LATE_VCPU_COLUMNS (11 + EXIT_TIMES_CSV_COLUMNS + HALT_PATH_COLUMNS)

/* A row being written: separators come before every field but the first. */
struct row {
	FILE *f;
	unsigned field;
};

static void sep(struct row *r)
{
	if (r->field++)
		fputc(',', r->f);
}

static void end_row(struct row *r)
{
	fputc('\n', r->f);
	r->field = 0;
}

/* One field by the CSV rule (output/csv_cell.h): quoted, printable, no formula. */
static void field_str(struct row *r, const char *s, int always_quote)
{
	sep(r);
	csv_cell_write(r->f, s, always_quote);
}

static void field_u64(struct row *r, uint64_t v)
{
	sep(r);
	fprintf(r->f, "%llu", (unsigned long long)v);
}

static void field_int(struct row *r, long long v)
{
	sep(r);
	fprintf(r->f, "%lld", v);
}

static void field_empty(struct row *r)
{
	sep(r);
}

/* Shortest text that reads back as the same double; empty when not finite. */
static void field_double(struct row *r, double v)
{
	char buf[40];

	sep(r);
	if (!isfinite(v))
		return;
	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof(buf), "%.17g", v);
	printable_fputs(r->f, buf);
}

static void identity_fields(struct row *r, unsigned index, const struct variant *v, unsigned repeat,
			    int ok)
{
	char pcpus[PLERIG_MAX_PCPUS * 6];

	cpulist_format(v->pcpus, v->nr_pcpus, pcpus, sizeof(pcpus));
	field_u64(r, index);
	field_str(r, backend_name(v->backend), 0);
	field_str(r, lock_name(v->lock), 0);
	field_str(r, relax_name(v->relax), 0);
	field_str(r, ring_name(v->ring), 0);
	field_u64(r, v->vms);
	field_u64(r, v->vcpus);
	field_str(r, pcpus, 1);
	field_u64(r, repeat);
	field_u64(r, ok ? 1 : 0);
}

static void vcpu_fields(struct row *r, const struct variant_result *res,
			const struct vcpu_record *rec)
{
	struct figures f;

	figures_for_vcpu(res, rec, &f);
	field_u64(r, rec->vm);
	field_u64(r, rec->vcpu);
	if (rec->host_cpu >= 0)
		field_int(r, rec->host_cpu);
	else
		field_empty(r);
	field_u64(r, f.acquisitions);
	field_u64(r, rec->guest.contended);
	field_u64(r, f.stalls);
	field_double(r, f.stalled_ns);
	field_double(r, f.wait_p50_ns);
	field_double(r, f.wait_p99_ns);
	field_double(r, f.wait_max_ns);
	field_double(r, f.wait_mean_ns);
	field_u64(r, f.holder_preemptions);
	field_double(r, f.run_delay_ns);
	field_double(r, f.run_time_ns);
	if (f.exits_valid)
		field_u64(r, f.exits);
	else
		field_empty(r);
	field_double(r, res->interval_s);
}

/* A count, or empty where it cannot be had: never a 0 that was not measured. */
static void field_count(struct row *r, bool valid, uint64_t v)
{
	if (valid)
		field_u64(r, v);
	else
		field_empty(r);
}

static void halt_path_fields(struct row *r, const struct variant_result *res,
			     const struct vcpu_record *rec)
{
	struct halt_path h;
	halt_path_for_vcpu(res, rec, &h);
	field_count(r, h.valid, h.halts);
	field_count(r, h.valid, h.kicks_sent);
	field_count(r, h.valid, h.kicks_received);
	field_count(r, h.valid, h.spurious_wakeups);
	field_count(r, h.early_halts_valid, h.early_halts);
	field_double(r, h.kick_p50_ns); /* empty without a kick */
	field_double(r, h.kick_p99_ns);
	field_double(r, h.kick_max_ns);
	for (unsigned s = 0; s < HALT_STAT_COUNT; s++)
		field_count(r, h.kvm_valid[s], h.kvm[s]);
}

/* Every other per-vCPU figure the JSON has. */
static void late_vcpu_fields(struct row *r, const struct variant_result *res,
			     const struct vcpu_record *rec)
{
	struct figures f;

	figures_for_vcpu(res, rec, &f);
	field_count(r, f.irq_exits_valid, f.irq_exits);
	field_count(r, f.pause_loop_exits_valid, f.pause_loop_exits);
	field_count(r, f.ple_window_updates_valid, f.ple_window_updates);
	field_count(r, rec->kvm.valid[KVM_STAT_DIRECTED_YIELD_ATTEMPTED],
		    rec->kvm.value[KVM_STAT_DIRECTED_YIELD_ATTEMPTED]);
	field_count(r, rec->kvm.valid[KVM_STAT_DIRECTED_YIELD_SUCCESSFUL],
		    rec->kvm.value[KVM_STAT_DIRECTED_YIELD_SUCCESSFUL]);
	field_count(r, res->steal_time, f.stalls_self_preempted);
	field_count(r, res->steal_time, f.holder_preemptions_steal);
	field_double(r, f.acq_per_cpu_s); /* empty without CPU time received */
	const struct vcpu_lifetime *l = &rec->lifetime;
	field_count(r, l->valid && l->exits_valid, l->exits);
	field_count(r, l->valid && l->ple.pause_exits_valid, l->ple.pause_exits);
	field_count(r, l->valid && l->ple.window_updates_valid, l->ple.window_updates);
	char exit_fields[EXIT_TIMES_CSV_COLUMNS][256];
	exit_times_csv_fields(res, rec, exit_fields);
	for (unsigned c = 0; c < EXIT_TIMES_CSV_COLUMNS; c++)
		field_str(r, exit_fields[c], 0);
	halt_path_fields(r, res, rec);
}

static void halt_poll_field(struct row *r, const struct variant *v)
{
	if (v->halt_poll_ns == HALT_POLL_HOST)
		field_empty(r);
	else
		field_u64(r, (uint64_t)v->halt_poll_ns);
}

static void run_rows(struct row *r, unsigned index, const struct variant *v,
		     const struct variant_result *res, unsigned repeat, const char *host)
{
	if (res->nr_records == 0) {
		identity_fields(r, index, v, repeat, res->ok);
		/* vm .. exits: nothing ran; interval_s: whatever was measured */
		for (unsigned c = FIRST_VCPU_COLUMN;
		     c < NR_COLUMNS - TRAILING_COLUMNS - LATE_VCPU_COLUMNS - LAST_COLUMNS; c++)
			field_empty(r);
		field_double(r, res->interval_s);
		field_str(r, ple_name(v->ple), 0);
		for (unsigned c = 0; c < LATE_VCPU_COLUMNS; c++)
			field_empty(r);
		halt_poll_field(r, v);
		field_str(r, host, 1);
		end_row(r);
		return;
	}
	for (unsigned i = 0; i < res->nr_records; i++) {
		identity_fields(r, index, v, repeat, res->ok);
		vcpu_fields(r, res, &res->records[i]);
		field_str(r, ple_name(v->ple), 0);
		late_vcpu_fields(r, res, &res->records[i]);
		halt_poll_field(r, v);
		field_str(r, host, 1);
		end_row(r);
	}
}

int csv_results_write(const char *path, const struct outcome *rep, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (!path || !*path)
		return errbuf_printf(err, errlen, "cannot write CSV: no file name");
	f = open_memstream(&text, &len);
	if (!f)
		return errbuf_printf(err, errlen, "cannot write '%s': %s", path, strerror(errno));

	struct row r = {.f = f};
	for (unsigned c = 0; c < NR_COLUMNS; c++)
		field_str(&r, header[c], 0);
	end_row(&r);
	for (unsigned s = 0; s < rep->nr_series; s++) {
		const struct series *se = &rep->series[s];
		for (unsigned i = 0; i < se->nr_runs; i++)
			run_rows(&r, s, &se->variant, &se->runs[i], i,
				 outcome_host_name(rep, &se->variant));
	}
	if (ferror(f) | fclose(f)) {
		free(text);
		return errbuf_printf(err, errlen, "cannot write '%s': out of memory", path);
	}
	rc = atomic_file_write(path, "CSV", text, len, err, errlen);
	free(text);
	return rc;
}
