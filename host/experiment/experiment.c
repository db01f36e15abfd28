// SPDX-License-Identifier: GPL-2.0
/*
 * Expand the matrix, open the backends it needs, run every variant
 * --repeat times in the planned order (after discarded warm-up rounds),
 * then summarise and compare.
 */
#include "experiment/experiment.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends/backend.h"
#include "backends/kvm/kvm_backend.h"
#include "backends/libvirt/libvirt_backend.h"
#include "backends/libvirt/orphans.h"
#include "backends/native/native_backend.h"
#include "experiment/comparisons.h"
#include "experiment/matrix.h"
#include "experiment/schedule.h"
#include "measure/kvm_system.h"
#include "output/results_table.h"
#include "output/units.h"
#include "util/clock.h"
#include "util/cpulist.h"
#include "util/errbuf.h"
#include "util/interrupt.h"

struct engine {
	const struct run_plan *plan;
	const struct experiment_output *out;
	const char *guest_path;
	struct backend *backends[BACKEND_COUNT];
	struct variant *variants;
	unsigned nr_variants;
	struct outcome *rep;
	enum baseline_axis baseline_axis; /* resolved once, before anything runs */
	unsigned baseline_value;
	char baseline[48];
};

static bool verbose(const struct engine *e)
{
	return !e->plan->quiet;
}

static struct backend *open_backend(const struct engine *e, enum backend_kind kind, char *err,
				    size_t errlen)
{
	switch (kind) {
	case BACKEND_KVM:
		return kvm_backend_open(e->guest_path, err, errlen);
	case BACKEND_NATIVE:
		return native_backend_open(err, errlen);
	case BACKEND_LIBVIRT:
	case BACKEND_LIBVIRT_TCG:
		return libvirt_backend_open(
		    &(struct libvirt_backend_options){.guest_path = e->guest_path,
						      .uri = e->plan->connect_uri,
						      .cache_dir = e->plan->cache_dir,
						      .template_path =
							  getenv("PLERIG_DOMAIN_TEMPLATE"),
						      .tcg = kind == BACKEND_LIBVIRT_TCG},
		    err, errlen);
	case BACKEND_COUNT:
		break;
	}
	errbuf_printf(err, errlen, "backend %d is not built in", kind);
	return NULL;
}

static int open_backends(struct engine *e, char *err, size_t errlen)
{
	/* whatever backend runs now: a plerig killed earlier may have left QEMUs running */
	orphans_sweep(stderr);
	for (unsigned i = 0; i < e->plan->nr_backends; i++) {
		enum backend_kind k = e->plan->backends[i];
		if ((unsigned)k >= BACKEND_COUNT)
			return errbuf_printf(err, errlen, "backend %d is not built in", k);
		e->backends[k] = open_backend(e, k, err, errlen);
		if (!e->backends[k])
			return -1;
		if (verbose(e))
			fprintf(stderr, "%s: %s\n", e->out->who, e->backends[k]->description);
		/* the results describe the machine the VMs ran on, not the controller */
		if (e->backends[k]->remote_host)
			e->backends[k]->remote_host(e->backends[k], &e->rep->host);
	}
	return 0;
}

static void close_backends(struct engine *e)
{
	for (unsigned k = 0; k < BACKEND_COUNT; k++)
		if (e->backends[k])
			e->backends[k]->close(e->backends[k]);
}

static int make_series(struct engine *e)
{
	struct outcome *rep = e->rep;
	enum plerig_ring ring_auto[BACKEND_COUNT];
	for (unsigned k = 0; k < BACKEND_COUNT; k++)
		ring_auto[k] = e->backends[k] ? e->backends[k]->default_ring : PLERIG_RING_USER;
	if (plan_expand(e->plan, ring_auto, &e->variants, &e->nr_variants))
		return -1;
	rep->series = calloc(e->nr_variants ? e->nr_variants : 1, sizeof(rep->series[0]));
	if (!rep->series)
		return -1;
	rep->nr_series = e->nr_variants;
	for (unsigned i = 0; i < e->nr_variants; i++) {
		rep->series[i].variant = e->variants[i];
		rep->series[i].runs = calloc(e->plan->repeat, sizeof(struct variant_result));
		if (!rep->series[i].runs)
			return -1;
	}
	return 0;
}

/* On a terminal, after the first run: ", 12 s gone, about 40 s left". */
static void time_left(unsigned k, unsigned n, uint64_t start_ns, char *buf, size_t len)
{
	buf[0] = '\0';
	if (k == 0 || !isatty(STDERR_FILENO))
		return;
	double gone = (double)(monotonic_ns() - start_ns) / 1e9;
	snprintf(buf, len, ", %.0f s gone, about %.0f s left", gone, gone / k * (n - k));
}

static void progress(const struct engine *e, unsigned k, unsigned n, const struct slot *slot,
		     uint64_t start_ns)
{
	if (!verbose(e))
		return;
	const struct variant *v = &e->variants[slot->variant];
	const unsigned discard = e->rep->discard_rounds;
	char cpus[PLERIG_MAX_PCPUS * 6], round[48] = "";
	cpulist_format(v->pcpus, v->nr_pcpus, cpus, sizeof(cpus));
	if (slot->round < discard)
		snprintf(round, sizeof(round), " warm-up round %u (discarded)", slot->round + 1);
	else if (e->plan->repeat > 1)
		snprintf(round, sizeof(round), " repeat %u/%u", slot->round - discard + 1,
			 e->plan->repeat);
	char eta[64];
	time_left(k, n, start_ns, eta, sizeof(eta));
	char poll[48];
	fprintf(stderr, "[%u/%u]%s %s %s/%s ring %s%s: %u VM x %u vCPU on CPUs %s, %.1f s%s\n",
		k + 1, n, round, backend_name(v->backend), lock_name(v->lock), relax_name(v->relax),
		ring_name(v->ring), halt_poll_label(v, poll, sizeof(poll)), v->vms, v->vcpus, cpus,
		v->warmup_s + v->duration_s, eta);
}

/* One run; a failed discarded run still stops nothing, a failed measured one is kept. */
static void run_slot(struct engine *e, const struct slot *slot)
{
	const struct variant *v = &e->variants[slot->variant];
	struct backend *b = e->backends[v->backend];
	if (slot->round < e->rep->discard_rounds) {
		struct variant_result scratch;
		b->run(b, v, &scratch);
		if (!scratch.ok && !interrupt_requested())
			fprintf(stderr, "%s: warm-up run failed: %s\n", e->out->who, scratch.error);
		variant_result_free(&scratch);
		return;
	}
	struct series *s = &e->rep->series[slot->variant];
	struct variant_result *r = &s->runs[s->nr_runs];
	b->run(b, v, r);
	if (interrupt_requested() && !r->ok) {
		variant_result_free(r); /* cut short: not a result */
		return;
	}
	s->nr_runs++;
	if (e->plan->repeat == 1) {
		if (e->out->rows) {
			results_table_row(e->out->rows, r);
			fflush(e->out->rows);
		}
	} else if (verbose(e)) {
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

static int run_all(struct engine *e)
{
	unsigned n;
	struct slot *slots = schedule_plan(e->plan->order, e->nr_variants, e->rep->discard_rounds,
					   e->plan->repeat, e->rep->seed, &n);
	if (!slots)
		return -1;
	if (e->plan->repeat == 1 && e->out->rows)
		results_table_header(e->out->rows);
	const uint64_t start_ns = monotonic_ns();
	for (unsigned k = 0; k < n && !interrupt_requested(); k++) {
		progress(e, k, n, &slots[k], start_ns);
		run_slot(e, &slots[k]);
	}
	free(slots);
	return 0;
}

static int summarise(struct engine *e)
{
	struct outcome *rep = e->rep;
	for (unsigned i = 0; i < rep->nr_series; i++)
		if (series_compute_stats(&rep->series[i]))
			return -1;
	if (e->baseline_axis != BASELINE_AUTO) {
		rep->baseline = baseline_describe(e->baseline_axis, e->baseline_value,
						  rep->baseline_text, sizeof(rep->baseline_text));
		if (comparisons_build(rep, e->baseline_axis, e->baseline_value))
			return -1;
	}
	return 0;
}

static void setup_report(struct engine *e, const char *command_line)
{
	struct outcome *rep = e->rep;
	const struct run_plan *p = e->plan;
	rep->command_line = command_line;
	host_info_collect(&rep->host, kvm_detect_module());
	rep->repeat = p->repeat;
	rep->planned_runs = 0;
	rep->discard_rounds =
	    p->discard_rounds >= 0 ? (unsigned)p->discard_rounds : (p->repeat > 1 ? 1u : 0u);
	rep->order = p->order;
	rep->seed = p->seed_given ? p->seed : (unsigned long long)time(NULL);
	if (rep->order == ORDER_SHUFFLE && verbose(e))
		fprintf(stderr, "%s: shuffled order, --seed %llu\n", e->out->who, rep->seed);
}

int experiment_check(const struct run_plan *plan, char *err, size_t errlen)
{
	enum baseline_axis axis;
	unsigned value;
	return baseline_resolve(plan, &axis, &value, err, errlen);
}

int experiment_run(const struct run_plan *plan, const char *guest_path, const char *command_line,
		   const struct experiment_output *out, struct outcome *rep, char *err,
		   size_t errlen)
{
	struct engine e = {.plan = plan, .out = out, .guest_path = guest_path, .rep = rep};
	int rc = -1;

	memset(rep, 0, sizeof(*rep));
	if (errlen)
		err[0] = '\0';
	if (baseline_resolve(plan, &e.baseline_axis, &e.baseline_value, err, errlen))
		return -1;
	setup_report(&e, command_line);
	if (open_backends(&e, err, errlen))
		goto out;
	if (make_series(&e) || run_all(&e) || summarise(&e)) {
		errbuf_printf(err, errlen, "out of memory");
		goto out;
	}
	rep->planned_runs = e.nr_variants * plan->repeat;
	rep->interrupted = interrupt_requested();
	rc = 0;
out:
	free(e.variants);
	close_backends(&e);
	return rc;
}

int experiment_status(const struct outcome *rep)
{
	int status = 0;
	for (unsigned i = 0; i < rep->nr_series; i++)
		for (unsigned r = 0; r < rep->series[i].nr_runs; r++)
			if (!rep->series[i].runs[r].ok)
				status = 1;
	if (rep->interrupted && interrupt_signal())
		return 128 + interrupt_signal();
	return status;
}
