// SPDX-License-Identifier: GPL-2.0
/*
 * `plerig run`: expand the matrix, open the backends it needs, run every
 * variant --repeat times in the planned order (after discarded warm-up
 * rounds), then summarise, compare and write the results.
 */
#include "commands/run.h"

#include "util/cpulist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/run_options.h"
#include "backends/backend.h"
#include "experiment/comparisons.h"
#include "experiment/matrix.h"
#include "experiment/schedule.h"
#include "model/series.h"
#include "backends/kvm/kvm_backend.h"
#include "measure/kvm_system.h"
#include "backends/libvirt/libvirt_backend.h"
#include "backends/native/native_backend.h"
#include "report/csv_report.h"
#include "report/json_report.h"
#include "report/stats_table.h"
#include "report/table.h"
#include "report/units.h"
#include "util/interrupt.h"

#define EXIT_RUN_FAILED 1
#define EXIT_USAGE	2

struct runner {
	struct run_plan o;
	const char *guest_path;
	struct backend *backends[BACKEND_COUNT];
	struct variant *variants;
	unsigned nr_variants;
	struct report rep;
	char baseline[48];
	enum baseline_axis baseline_axis; /* resolved once, before anything runs */
	unsigned baseline_value;
};

static char *join_command_line(int argc, char **argv)
{
	size_t len = sizeof("plerig");
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *s = malloc(len);
	if (!s)
		return NULL;
	strcpy(s, "plerig");
	for (int i = 0; i < argc; i++) {
		strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static struct backend *open_backend(enum backend_kind kind, const struct run_plan *o,
				    const char *guest, char *err, size_t errlen)
{
	switch (kind) {
	case BACKEND_KVM:
		return kvm_backend_open(guest, err, errlen);
	case BACKEND_NATIVE:
		return native_backend_open(err, errlen);
	case BACKEND_LIBVIRT:
	case BACKEND_LIBVIRT_TCG:
		return libvirt_backend_open(
		    &(struct libvirt_backend_options){.guest_path = guest,
						      .uri = o->connect_uri,
						      .cache_dir = o->cache_dir,
						      .template_path =
							  getenv("PLERIG_DOMAIN_TEMPLATE"),
						      .tcg = kind == BACKEND_LIBVIRT_TCG},
		    err, errlen);
	case BACKEND_COUNT:
		break;
	}
	snprintf(err, errlen, "backend %d is not built in", kind);
	return NULL;
}

static int open_backends(struct runner *rn, char *err, size_t errlen)
{
	for (unsigned i = 0; i < rn->o.nr_backends; i++) {
		enum backend_kind k = rn->o.backends[i];
		if ((unsigned)k >= BACKEND_COUNT) {
			snprintf(err, errlen, "backend %d is not built in", k);
			return -1;
		}
		rn->backends[k] = open_backend(k, &rn->o, rn->guest_path, err, errlen);
		if (!rn->backends[k])
			return -1;
		if (!rn->o.quiet)
			fprintf(stderr, "plerig: %s\n", rn->backends[k]->description);
	}
	return 0;
}

static void close_backends(struct runner *rn)
{
	for (unsigned k = 0; k < BACKEND_COUNT; k++)
		if (rn->backends[k])
			rn->backends[k]->close(rn->backends[k]);
}

static int make_series(struct runner *rn)
{
	const enum plerig_ring ring_default = PLERIG_RING_USER;
	enum plerig_ring ring_auto[BACKEND_COUNT];
	for (unsigned k = 0; k < BACKEND_COUNT; k++)
		ring_auto[k] = rn->backends[k] ? rn->backends[k]->default_ring : ring_default;
	if (run_options_expand(&rn->o, ring_auto, &rn->variants, &rn->nr_variants))
		return -1;
	rn->rep.series = calloc(rn->nr_variants, sizeof(rn->rep.series[0]));
	if (!rn->rep.series)
		return -1;
	rn->rep.nr_series = rn->nr_variants;
	for (unsigned i = 0; i < rn->nr_variants; i++) {
		rn->rep.series[i].variant = rn->variants[i];
		rn->rep.series[i].runs = calloc(rn->o.repeat, sizeof(struct variant_result));
		if (!rn->rep.series[i].runs)
			return -1;
	}
	return 0;
}

static void progress(const struct runner *rn, unsigned k, unsigned n, const struct slot *slot,
		     unsigned discard)
{
	if (rn->o.quiet)
		return;
	const struct variant *v = &rn->variants[slot->variant];
	char cpus[64], round[48] = "";
	cpulist_format(v->pcpus, v->nr_pcpus, cpus, sizeof(cpus));
	if (slot->round < discard)
		snprintf(round, sizeof(round), " warm-up round %u (discarded)", slot->round + 1);
	else if (rn->o.repeat > 1)
		snprintf(round, sizeof(round), " repeat %u/%u", slot->round - discard + 1,
			 rn->o.repeat);
	fprintf(stderr, "[%u/%u]%s %s %s/%s ring %s: %u VM x %u vCPU on CPUs %s, %.1f s\n", k + 1,
		n, round, backend_name(v->backend), lock_name(v->lock), relax_name(v->relax),
		ring_name(v->ring), v->vms, v->vcpus, cpus, v->warmup_s + v->duration_s);
}

/* One run; a failed discarded run still stops nothing, a failed measured one is kept. */
static void run_slot(struct runner *rn, const struct slot *slot, unsigned discard)
{
	const struct variant *v = &rn->variants[slot->variant];
	struct backend *b = rn->backends[v->backend];
	if (slot->round < discard) {
		struct variant_result scratch;
		b->run(b, v, &scratch);
		if (!scratch.ok && !interrupt_requested())
			fprintf(stderr, "plerig run: warm-up run failed: %s\n", scratch.error);
		variant_result_free(&scratch);
		return;
	}
	struct series *s = &rn->rep.series[slot->variant];
	struct variant_result *r = &s->runs[s->nr_runs];
	b->run(b, v, r);
	if (interrupt_requested() && !r->ok) {
		variant_result_free(r); /* cut short: not a result */
		return;
	}
	s->nr_runs++;
	if (rn->o.repeat == 1) {
		report_table_row(stdout, r);
		fflush(stdout);
	} else if (!rn->o.quiet) {
		struct figures f;
		char acq[UNITS_BUF_SIZE];
		figures_for_variant(r, &f);
		if (r->ok)
			fprintf(stderr, "       %s acq/s\n",
				units_count(f.acq_per_s, acq, sizeof(acq)));
		else
			fprintf(stderr, "       FAILED: %s\n", r->error);
	}
}

static int run_all(struct runner *rn)
{
	const unsigned discard = rn->rep.discard_rounds;
	unsigned n;
	struct slot *slots =
	    schedule_plan(rn->o.order, rn->nr_variants, discard, rn->o.repeat, rn->rep.seed, &n);
	if (!slots)
		return -1;
	if (rn->o.repeat == 1)
		report_table_header(stdout);
	for (unsigned k = 0; k < n && !interrupt_requested(); k++) {
		progress(rn, k, n, &slots[k], discard);
		run_slot(rn, &slots[k], discard);
	}
	free(slots);
	return 0;
}

static int summarise(struct runner *rn)
{
	const enum baseline_axis axis = rn->baseline_axis;
	const unsigned value = rn->baseline_value;
	for (unsigned i = 0; i < rn->rep.nr_series; i++)
		if (series_compute_stats(&rn->rep.series[i]))
			return -1;
	if (axis != BASELINE_AUTO) {
		rn->rep.baseline =
		    baseline_describe(axis, value, rn->baseline, sizeof(rn->baseline));
		if (comparisons_build(&rn->rep, axis, value))
			return -1;
	}
	return 0;
}

static void setup_report(struct runner *rn, char *command_line)
{
	struct report *rep = &rn->rep;
	rep->command_line = command_line;
	host_info_collect(&rep->host, kvm_detect_module());
	rep->repeat = rn->o.repeat;
	rep->discard_rounds = rn->o.discard_rounds >= 0 ? (unsigned)rn->o.discard_rounds
							: (rn->o.repeat > 1 ? 1u : 0u);
	rep->order = rn->o.order;
	rep->seed = rn->o.seed_given ? rn->o.seed : (unsigned long long)time(NULL);
	if (rep->order == ORDER_SHUFFLE && !rn->o.quiet)
		fprintf(stderr, "plerig: shuffled order, --seed %llu\n", rep->seed);
}

/* Why a figure is missing, or what its reader must know: once per distinct text. */
struct note {
	const char *text;
	bool is_note;		      /* ple_note rather than ple_why */
	bool backends[BACKEND_COUNT]; /* which backends said it */
};

static void note_add(struct note *notes, unsigned *n, unsigned max, const char *text, bool is_note,
		     enum backend_kind b)
{
	if (!text[0])
		return;
	for (unsigned k = 0; k < *n; k++) {
		if (!strcmp(notes[k].text, text) && notes[k].is_note == is_note) {
			notes[k].backends[b] = true;
			return;
		}
	}
	if (*n == max)
		return;
	notes[*n] = (struct note){.text = text, .is_note = is_note};
	notes[(*n)++].backends[b] = true;
}

static void print_ple_notes(const struct runner *rn, FILE *f)
{
	struct note notes[16];
	unsigned n = 0;
	for (unsigned i = 0; i < rn->rep.nr_series; i++) {
		const struct series *s = &rn->rep.series[i];
		for (unsigned r = 0; r < s->nr_runs; r++) {
			note_add(notes, &n, 16, s->runs[r].ple_why, false, s->variant.backend);
			note_add(notes, &n, 16, s->runs[r].ple_note, true, s->variant.backend);
		}
	}
	for (unsigned k = 0; k < n; k++) {
		fprintf(f, "%s (", notes[k].is_note ? "note" : "ple-exits n/a");
		const char *sep = "";
		for (unsigned b = 0; b < BACKEND_COUNT; b++) {
			if (notes[k].backends[b]) {
				fprintf(f, "%s%s", sep, backend_name((enum backend_kind)b));
				sep = ", ";
			}
		}
		fprintf(f, "): %s\n", notes[k].text);
	}
}

static int write_outputs(struct runner *rn)
{
	char err[512];
	int status = 0;
	if (rn->o.json_path && json_report_write(rn->o.json_path, &rn->rep, err, sizeof(err))) {
		fprintf(stderr, "plerig run: %s\n", err);
		status = EXIT_RUN_FAILED;
	}
	if (rn->o.csv_path && csv_report_write(rn->o.csv_path, &rn->rep, err, sizeof(err))) {
		fprintf(stderr, "plerig run: %s\n", err);
		status = EXIT_RUN_FAILED;
	}
	return status;
}

static int exit_status(const struct runner *rn)
{
	unsigned done = 0, planned = rn->nr_variants * rn->o.repeat;
	int status = 0;
	for (unsigned i = 0; i < rn->rep.nr_series; i++) {
		done += rn->rep.series[i].nr_runs;
		for (unsigned r = 0; r < rn->rep.series[i].nr_runs; r++)
			if (!rn->rep.series[i].runs[r].ok)
				status = EXIT_RUN_FAILED;
	}
	if (interrupt_requested()) {
		fprintf(stderr, "plerig run: interrupted; %u of %u run(s) completed%s\n", done,
			planned, rn->o.json_path ? " and written to the JSON file" : "");
		return 128 + interrupt_signal();
	}
	return status;
}

int runner_main(int argc, char **argv, const char *default_guest_path)
{
	struct runner rn;
	char err[512];
	memset(&rn, 0, sizeof(rn));
	switch (run_options_parse(argc, argv, &rn.o, err, sizeof(err))) {
	case RUN_OPTIONS_HELP:
		return 0;
	case RUN_OPTIONS_ERROR:
		fprintf(stderr, "plerig run: %s\n", err);
		return EXIT_USAGE;
	case RUN_OPTIONS_OK:
		break;
	}
	/* a --baseline that names no variant is bad input: say so before running */
	if (baseline_resolve(&rn.o, &rn.baseline_axis, &rn.baseline_value, err, sizeof(err))) {
		fprintf(stderr, "plerig run: %s\n", err);
		return EXIT_USAGE;
	}
	if (interrupt_install()) {
		perror("plerig run: installing signal handlers");
		return EXIT_RUN_FAILED;
	}
	rn.guest_path = rn.o.guest_path ? rn.o.guest_path : default_guest_path;
	char *command_line = join_command_line(argc, argv);
	int status = EXIT_RUN_FAILED;
	if (!command_line) {
		fprintf(stderr, "plerig run: out of memory\n");
		return status;
	}
	setup_report(&rn, command_line);
	if (open_backends(&rn, err, sizeof(err))) {
		fprintf(stderr, "plerig run: %s\n", err);
		goto out;
	}
	if (make_series(&rn) || run_all(&rn) || summarise(&rn)) {
		fprintf(stderr, "plerig run: %s\n", err[0] ? err : "out of memory");
		goto out;
	}
	rn.rep.interrupted = interrupt_requested();
	if (!rn.o.quiet)		      /* the JSON keeps every reason */
		print_ple_notes(&rn, stderr); /* stdout stays the table, for scripts */
	if (rn.o.repeat > 1) {
		stats_table_print(stdout, &rn.rep);
		comparison_table_print(stdout, &rn.rep);
	}
	status = write_outputs(&rn);
	if (!rn.o.quiet && rn.o.repeat == 1)
		report_table_legend(stderr);
	int s = exit_status(&rn);
	if (s)
		status = s;
out:
	report_free(&rn.rep);
	free(rn.variants);
	close_backends(&rn);
	free(command_line);
	return status;
}
