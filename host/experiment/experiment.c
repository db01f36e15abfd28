// SPDX-License-Identifier: GPL-2.0
/*
 * Expand the matrix, open the backends it needs, run every variant
 * --repeat times in the planned order (after discarded warm-up rounds),
 * then summarise and compare.
 */
#include "experiment/experiment.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends/backend.h"
#include "backends/emulated/emulated_backend.h"
#include "backends/kvm/kvm_backend.h"
#include "backends/libvirt/libvirt_backend.h"
#include "backends/libvirt/orphans.h"
#include "backends/native/native_backend.h"
#include "experiment/comparisons.h"
#include "experiment/host_identity.h"
#include "experiment/matrix.h"
#include "experiment/schedule.h"
#include "measure/kvm_system.h"
#include "model/connect_list.h"
#include "output/results_table.h"
#include "output/units.h"
#include "util/at_once.h"
#include "util/clock.h"
#include "util/cpulist.h"
#include "util/errbuf.h"
#include "util/interrupt.h"
#include "util/strfmt.h"
#include "util/uri_redact.h"
#include "util/printable.h"

struct engine;

/* One host of --connect: its backends and the thread that runs its schedule. */
struct host_run {
	struct engine *e;
	unsigned index;
	const char *uri; /* NULL: the embedded driver */
	struct backend *backends[BACKEND_COUNT];
	bool remote;	       /* its identity is another machine's: its CPUs size the defaults */
	unsigned first, count; /* its variants in the engine's list */
	int turn;	       /* an emulated host: its place among them in --connect; else -1 */
	bool bad_input;	       /* an emulated host refused what it was given (--module-params) */
};

struct engine {
	const struct run_plan *plan;
	const struct experiment_output *out;
	const char *guest_path;
	struct connect_list connect;
	struct host_run *hosts;
	unsigned nr_hosts;
	struct variant *variants; /* host by host: host h's are hosts[h].first .. + count - 1 */
	unsigned nr_variants;
	struct outcome *rep;
	enum reference_axis reference_axis; /* resolved once, before anything runs */
	unsigned reference_value;
	pthread_mutex_t out_lock; /* progress and rows of hosts running at once */
	/*
	 * Several emulated hosts (emulated,emulated:amd) take turns, in their
	 * --connect order: one Bochs runs at a time, the others held (each
	 * takes a CPU and its own clock counts instructions, so a held one
	 * loses nothing), while hosts of other kinds run as they would.
	 */
	unsigned nr_emulated;
	unsigned turn; /* whose turn it is, of the emulated hosts */
	pthread_mutex_t turn_lock;
	pthread_cond_t turn_cond;
};

static bool verbose(const struct engine *e)
{
	return !e->plan->quiet;
}

/*
 * Does host @h run variants of @kind? Without --connect this machine runs
 * them all; with it the emulated host runs kvm and native (inside L1), the
 * libvirt hosts libvirt's.
 */
static bool host_runs(const struct host_run *h, enum backend_kind kind)
{
	const bool here = kind == BACKEND_KVM || kind == BACKEND_NATIVE;
	if (connect_is_emulated(h->uri))
		return here;
	return !h->e->connect.nr || !here;
}

static struct backend *open_backend(struct host_run *h, enum backend_kind kind, char *err,
				    size_t errlen)
{
	const struct engine *e = h->e;
	/* one L1 runs the emulated host's kvm and native variants alike */
	if (connect_is_emulated(h->uri)) {
		for (unsigned k = 0; k < BACKEND_COUNT; k++)
			if (h->backends[k])
				return h->backends[k];
		enum emulated_failure why = EMULATED_BROKEN;
		struct backend *b = emulated_backend_open(
		    &(struct emulated_options){.kernel = e->plan->kernel_path,
					       .vendor = connect_emulated_vendor(h->uri),
					       .modules = e->plan->modules_path,
					       .module_params = e->plan->module_params,
					       .cache_dir = e->plan->cache_dir,
					       .guest_path = e->guest_path,
					       .quiet = e->plan->quiet},
		    &why, err, errlen);
		h->bad_input = !b && why == EMULATED_USAGE;
		return b;
	}
	switch (kind) {
	case BACKEND_KVM:
		return kvm_backend_open(e->guest_path, err, errlen);
	case BACKEND_NATIVE:
		return native_backend_open(err, errlen);
	case BACKEND_LIBVIRT:
	case BACKEND_LIBVIRT_TCG:
		return libvirt_backend_open(
		    &(struct libvirt_backend_options){.guest_path = e->guest_path,
						      .uri = h->uri,
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

static void close_host(struct host_run *h)
{
	for (unsigned k = 0; k < BACKEND_COUNT; k++) {
		struct backend *b = h->backends[k];
		if (!b)
			continue;
		/* a backend that serves several kinds (the emulated host's) closes once */
		for (unsigned j = k; j < BACKEND_COUNT; j++)
			if (h->backends[j] == b)
				h->backends[j] = NULL;
		b->close(b);
	}
}

/* Open what host @h needs and read its identity; on failure its error says why. */
static int open_host(struct host_run *h, char *err, size_t errlen)
{
	const struct engine *e = h->e;
	struct run_host *rh = &e->rep->hosts[h->index];
	for (unsigned i = 0; i < e->plan->nr_backends; i++) {
		enum backend_kind k = e->plan->backends[i];
		if ((unsigned)k >= BACKEND_COUNT)
			return errbuf_printf(err, errlen, "backend %d is not built in", k);
		if (!host_runs(h, k))
			continue;
		h->backends[k] = open_backend(h, k, err, errlen);
		if (!h->backends[k]) {
			close_host(h);
			return -1;
		}
		/* the results describe the machine the VMs ran on, not the controller */
		if (!h->remote && h->backends[k]->remote_host &&
		    !h->backends[k]->remote_host(h->backends[k], &rh->info))
			h->remote = true;
	}
	if (e->nr_hosts > 1 && !rh->info.connection[0]) {
		if (h->uri)
			uri_redact(h->uri, rh->info.connection, sizeof(rh->info.connection));
		else
			snprintf(rh->info.connection, sizeof(rh->info.connection), "%s",
				 CONNECT_EMBEDDED);
	}
	return 0;
}

static bool takes_turns(const struct host_run *h)
{
	return h->turn >= 0 && h->e->nr_emulated > 1;
}

static void turn_wait(struct host_run *h)
{
	struct engine *e = h->e;
	pthread_mutex_lock(&e->turn_lock);
	while (e->turn != (unsigned)h->turn)
		pthread_cond_wait(&e->turn_cond, &e->turn_lock);
	pthread_mutex_unlock(&e->turn_lock);
}

static void turn_done(struct host_run *h)
{
	struct engine *e = h->e;
	pthread_mutex_lock(&e->turn_lock);
	e->turn++;
	pthread_cond_broadcast(&e->turn_cond);
	pthread_mutex_unlock(&e->turn_lock);
}

/* Hold an emulated host's Bochs, or let it go on; where that fails, said (its runs say more). */
static void hold(struct host_run *h, bool on)
{
	char err[ERRBUF_SIZE];
	for (unsigned k = 0; k < BACKEND_COUNT; k++)
		if (h->backends[k]) {
			if (emulated_backend_hold(h->backends[k], on, err, sizeof(err)))
				printable_printf(stderr, "%s: host %s: %s\n", h->e->out->who,
						 h->e->connect.uris[h->index], err);
			return; /* one L1 serves all its kinds */
		}
}

static void *open_host_thread(void *arg)
{
	struct host_run *h = arg;
	struct run_host *rh = &h->e->rep->hosts[h->index];
	if (takes_turns(h))
		turn_wait(h);
	int rc = interrupt_requested() && takes_turns(h)
		     ? errbuf_printf(rh->error, sizeof(rh->error), "interrupted before it started")
		     : open_host(h, rh->error, sizeof(rh->error));
	if (rc)
		host_identity_unreached(h->uri, &rh->info);
	if (takes_turns(h)) {
		if (!rc)
			hold(h, true); /* until its turn to run */
		turn_done(h);
	}
	return NULL;
}

/*
 * Every host's backends, several hosts at once (a remote one takes seconds:
 * ssh, the image upload). One host failing to open stops the experiment only
 * when it is the only one; with several it becomes that host's failed rows.
 */
static int open_hosts(struct engine *e, char *err, size_t errlen)
{
	/* whatever backend runs now: a plerig killed earlier may have left QEMUs running */
	orphans_sweep(stderr);
	if (e->nr_hosts == 1) {
		if (open_host(&e->hosts[0], err, errlen))
			return e->hosts[0].bad_input ? -2 : -1;
	} else {
		at_once(e->hosts, sizeof(e->hosts[0]), e->nr_hosts, open_host_thread);
		e->turn = 0; /* the emulated hosts run in the order they opened */
	}
	e->rep->host = e->rep->hosts[0].info;
	outcome_label_hosts(e->rep);
	for (unsigned i = 0; i < e->nr_hosts && verbose(e); i++) {
		const struct host_run *h = &e->hosts[i];
		const struct run_host *rh = &e->rep->hosts[i];
		const char *sep = e->nr_hosts > 1 ? ": " : "";
		const char *label = e->nr_hosts > 1 ? rh->label : "";
		if (rh->error[0])
			printable_printf(stderr, "%s: host %s%s%s\n", e->out->who, label, sep,
					 rh->error);
		for (unsigned k = 0; k < BACKEND_COUNT; k++)
			if (h->backends[k] && (!k || h->backends[k] != h->backends[k - 1]))
				printable_printf(stderr, "%s: %s%s%s\n", e->out->who, label, sep,
						 h->backends[k]->description);
	}
	return 0;
}

static int make_hosts(struct engine *e, char *err, size_t errlen)
{
	if (connect_list_parse(e->plan->connect_uri, &e->connect, err, errlen))
		return -1;
	e->nr_hosts = e->connect.nr ? e->connect.nr : 1;
	e->hosts = calloc(e->nr_hosts, sizeof(e->hosts[0]));
	e->rep->hosts = calloc(e->nr_hosts, sizeof(e->rep->hosts[0]));
	if (!e->hosts || !e->rep->hosts)
		return errbuf_printf(err, errlen, "out of memory");
	e->rep->nr_hosts = e->nr_hosts;
	for (unsigned i = 0; i < e->nr_hosts; i++) {
		e->hosts[i] = (struct host_run){.e = e, .index = i, .turn = -1};
		e->hosts[i].uri = e->connect.nr ? connect_list_uri(&e->connect, i) : NULL;
		if (connect_is_emulated(e->hosts[i].uri))
			e->hosts[i].turn = (int)e->nr_emulated++;
		/* this machine's identity unless the backend says the VMs run elsewhere */
		e->rep->hosts[i].info = e->rep->host;
	}
	return 0;
}

static void close_hosts(struct engine *e)
{
	for (unsigned i = 0; e->hosts && i < e->nr_hosts; i++)
		close_host(&e->hosts[i]);
	free(e->hosts);
}

/* Every run a host that could not be reached would have made: one failed run with the reason. */
static void fail_host_series(struct engine *e, unsigned host)
{
	const char *why = e->rep->hosts[host].error;
	const struct host_run *h = &e->hosts[host];
	for (unsigned i = h->first; i < h->first + h->count; i++) {
		struct series *s = &e->rep->series[i];
		struct variant_result *r = &s->runs[s->nr_runs++];
		memset(r, 0, sizeof(*r));
		r->variant = s->variant;
		/* cut to the record's size: the host's own error (JSON hosts[]) has it whole */
		(void)pathf(r->error, sizeof(r->error), "host %s: %s", e->rep->hosts[host].label,
			    why);
	}
}

/* Host @h's variants, appended to the engine's list. */
static int expand_host(struct engine *e, struct host_run *h)
{
	enum plerig_ring ring_auto[BACKEND_COUNT];
	struct run_plan *plan = malloc(sizeof(*plan));
	struct variant *vs = NULL, *all;
	unsigned n;
	if (!plan)
		return -1;
	*plan = *e->plan;
	/* a host elsewhere: the CPUs it has, not this machine's, unless the user said */
	if (h->remote)
		run_plan_fit_host(plan, e->rep->hosts[h->index].info.cpus);
	for (unsigned k = 0; k < BACKEND_COUNT; k++)
		ring_auto[k] = h->backends[k] ? h->backends[k]->default_ring : PLERIG_RING_USER;
	int rc = plan_expand(plan, ring_auto, &vs, &n);
	free(plan);
	if (rc)
		return -1;
	all = realloc(e->variants, (e->nr_variants + n + 1) * sizeof(*all));
	if (!all) {
		free(vs);
		return -1;
	}
	e->variants = all;
	h->first = e->nr_variants;
	h->count = 0;
	for (unsigned i = 0; i < n; i++) {
		/* a host of --connect runs the kinds it can (host_runs); one not reached, all */
		if (!e->rep->hosts[h->index].error[0] && !h->backends[vs[i].backend])
			continue;
		vs[i].host = h->index;
		e->variants[e->nr_variants++] = vs[i];
		h->count++;
	}
	free(vs);
	return 0;
}

/* What a backend of the run cannot take is not run: said, not an unexplained gap. */
static void say_left_out(const struct engine *e)
{
	struct left_out lo[2 * BACKEND_COUNT * PLAN_MAX_HALT_POLLS];
	unsigned n = plan_left_out(e->plan, lo, sizeof(lo) / sizeof(lo[0]));
	for (unsigned i = 0; verbose(e) && i < n; i++)
		printable_printf(stderr, "%s: %s runs no %s variant: %s\n", e->out->who,
				 backend_name(lo[i].backend), lo[i].what, lo[i].why);
}

static int make_series(struct engine *e)
{
	struct outcome *rep = e->rep;
	for (unsigned h = 0; h < e->nr_hosts; h++)
		if (expand_host(e, &e->hosts[h]))
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
	for (unsigned h = 0; h < e->nr_hosts; h++)
		if (rep->hosts[h].error[0])
			fail_host_series(e, h);
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
	const char *host = outcome_host_label(e->rep, v);
	printable_printf(
	    stderr, "%s%s[%u/%u]%s %s %s/%s ring %s%s: %u VM x %u vCPU on CPUs %s, %.1f s%s\n",
	    host, *host ? " " : "", k + 1, n, round, backend_name(v->backend), lock_name(v->lock),
	    relax_name(v->relax), ring_name(v->ring), halt_poll_label(v, poll, sizeof(poll)),
	    v->vms, v->vcpus, cpus, v->warmup_s + v->duration_s, eta);
}

/* A table row; with several hosts the host column first. */
static void row(const struct engine *e, const struct variant_result *r)
{
	if (e->nr_hosts > 1)
		results_table_host(e->out->rows, outcome_host_label(e->rep, &r->variant));
	results_table_row(e->out->rows, r);
}

/* One run; a failed discarded run still stops nothing, a failed measured one is kept. */
static void run_slot(struct engine *e, const struct slot *slot)
{
	const struct variant *v = &e->variants[slot->variant];
	struct backend *b = e->hosts[v->host].backends[v->backend];
	if (slot->round < e->rep->discard_rounds) {
		struct variant_result scratch;
		b->run(b, v, &scratch);
		if (!scratch.ok && !interrupt_requested())
			printable_printf(stderr, "%s: %s%swarm-up run failed: %s\n", e->out->who,
					 outcome_host_label(e->rep, v), e->nr_hosts > 1 ? ": " : "",
					 scratch.error);
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
	pthread_mutex_lock(&e->out_lock);
	if (e->plan->repeat == 1) {
		if (e->out->rows) {
			row(e, r);
			fflush(e->out->rows);
		}
	} else if (verbose(e)) {
		struct figures f;
		char acq[UNITS_BUF_SIZE];
		figures_for_variant(r, &f);
		if (r->ok)
			printable_printf(stderr, "       %s acq/s\n",
					 units_count(f.acq_per_s, acq, sizeof(acq)));
		else
			printable_printf(stderr, "       FAILED: %s\n", r->error);
	}
	pthread_mutex_unlock(&e->out_lock);
}

/* Host @h's schedule over its own variants, in the plan's order. */
static int run_host(struct engine *e, unsigned h)
{
	unsigned n;
	struct slot *slots =
	    schedule_host(e->plan->order, e->hosts[h].first, e->hosts[h].count,
			  e->rep->discard_rounds, e->plan->repeat, e->rep->seed, &n);
	if (!slots)
		return -1;
	const uint64_t start_ns = monotonic_ns();
	for (unsigned k = 0; k < n && !interrupt_requested(); k++) {
		pthread_mutex_lock(&e->out_lock);
		progress(e, k, n, &slots[k], start_ns);
		pthread_mutex_unlock(&e->out_lock);
		run_slot(e, &slots[k]);
	}
	free(slots);
	return 0;
}

static void *run_host_thread(void *arg)
{
	struct host_run *h = arg;
	void *failed = NULL;
	if (takes_turns(h))
		turn_wait(h);
	/* a host that was not reached has its failed rows already */
	if (!h->e->rep->hosts[h->index].error[0]) {
		if (takes_turns(h))
			hold(h, false);
		failed = run_host(h->e, h->index) ? h : NULL;
	}
	if (takes_turns(h)) {
		close_host(h); /* its Bochs ends before the next one goes on */
		turn_done(h);
	}
	return failed;
}

static int run_all(struct engine *e)
{
	if (e->plan->repeat == 1 && e->out->rows) {
		if (e->nr_hosts > 1)
			results_table_host(e->out->rows, "host");
		results_table_header(e->out->rows);
		for (unsigned i = 0; i < e->nr_variants; i++)
			if (e->rep->hosts[e->variants[i].host].error[0])
				row(e, &e->rep->series[i].runs[0]);
	}
	if (e->nr_hosts == 1)
		return run_host(e, 0);
	/* each host its own schedule, all at once: they share no CPU with each other */
	return at_once(e->hosts, sizeof(e->hosts[0]), e->nr_hosts, run_host_thread) ? -1 : 0;
}

static int summarise(struct engine *e)
{
	struct outcome *rep = e->rep;
	for (unsigned i = 0; i < rep->nr_series; i++)
		if (series_compute_stats(&rep->series[i]))
			return -1;
	if (e->reference_axis != REFERENCE_AUTO) {
		rep->reference =
		    reference_describe(e->reference_axis, e->reference_value, rep->reference_text,
				       sizeof(rep->reference_text));
		if (comparisons_build(rep, e->reference_axis, e->reference_value))
			return -1;
	}
	return 0;
}

static void setup_report(struct engine *e, const char *command_line)
{
	struct outcome *rep = e->rep;
	const struct run_plan *p = e->plan;
	rep->command_line = command_line;
	/* a run that used no KVM names no module, whatever /sys/module lists */
	host_info_collect(&rep->host, run_plan_uses_kvm(p) ? kvm_active_module() : "none");
	rep->repeat = p->repeat;
	rep->planned_runs = 0;
	rep->discard_rounds =
	    p->discard_rounds >= 0 ? (unsigned)p->discard_rounds : (p->repeat > 1 ? 1u : 0u);
	rep->order = p->order;
	rep->threshold_pct = p->threshold_pct;
	rep->seed = p->seed_given ? p->seed : (unsigned long long)time(NULL);
	if (rep->order == ORDER_SHUFFLE && verbose(e))
		printable_printf(stderr, "%s: shuffled order, --seed %llu\n", e->out->who,
				 rep->seed);
}

int experiment_check(const struct run_plan *plan, char *err, size_t errlen)
{
	enum reference_axis axis;
	unsigned value;
	return reference_resolve(plan, &axis, &value, err, errlen);
}

int experiment_run(const struct run_plan *plan, const char *guest_path, const char *command_line,
		   const struct experiment_output *out, struct outcome *rep, char *err,
		   size_t errlen)
{
	struct engine e = {.plan = plan,
			   .out = out,
			   .guest_path = guest_path,
			   .rep = rep,
			   .out_lock = PTHREAD_MUTEX_INITIALIZER,
			   .turn_lock = PTHREAD_MUTEX_INITIALIZER,
			   .turn_cond = PTHREAD_COND_INITIALIZER};
	int rc = -1;

	memset(rep, 0, sizeof(*rep));
	if (errlen)
		err[0] = '\0';
	if (reference_resolve(plan, &e.reference_axis, &e.reference_value, err, errlen))
		return -1;
	setup_report(&e, command_line);
	if (make_hosts(&e, err, errlen))
		goto out;
	const int opened = open_hosts(&e, err, errlen);
	if (opened) {
		rc = opened;
		goto out;
	}
	if (make_series(&e)) {
		errbuf_printf(err, errlen, "out of memory");
		goto out;
	}
	/* the command line refuses this (check_backend_settings); a plan built otherwise too */
	if (!e.nr_variants) {
		struct left_out lo;
		if (plan_left_out(plan, &lo, 1))
			errbuf_printf(err, errlen, "no variant to run: %s cannot take %s (%s)",
				      backend_name(lo.backend), lo.what, lo.why);
		else
			errbuf_printf(err, errlen, "no variant to run");
		goto out;
	}
	say_left_out(&e);
	if (run_all(&e) || summarise(&e)) {
		errbuf_printf(err, errlen, "out of memory");
		goto out;
	}
	rep->planned_runs = e.nr_variants * plan->repeat;
	rep->interrupted = interrupt_requested();
	rc = 0;
out:
	free(e.variants);
	close_hosts(&e);
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
