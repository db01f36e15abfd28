// SPDX-License-Identifier: GPL-2.0
#include "experiment/check.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/json_writer.h"
#include "experiment/experiment.h"
#include "measure/kvm_system.h"
#include "output/units.h"
#include "model/verdict.h"
#include "stats/holm.h"
#include "stats/sample_stats.h"
#include "util/clock.h"
#include "util/cpulist.h"
#include "util/errbuf.h"
#include "util/interrupt.h"
#include "util/strfmt.h"

/* The per-run values of one scenario x variant x metric, as the check gathers them. */
struct sample {
	const struct scenario *scenario;
	char variant[160];
	const struct metric *metric;
	double *values, *run_delay; /* run_delay: the runs' run-delay shares, for the reason */
	unsigned n, nd, cap, capd;
	bool contended; /* more than one vCPU per VM: a lock holder can be preempted */
};

/*
 * The least share of the CPU time the vCPUs had when the baseline was
 * recorded that they must have now for a contended scenario's drop to be
 * evidence: on a busier host the holder (or the next ticket's owner) is
 * preempted by foreign work while the others spin on their CPUs, so even
 * acquisitions per CPU-second fall. Measured here against a quiet
 * baseline with both CPUs loaded by stress-ng: 2 vCPUs on 2 CPUs had 53 %
 * instead of 100 % and fell by 77 %; 4 vCPUs on 1 CPU had 20 % instead of
 * 25 % and fell by 20 %. A drop under such a change is "not comparable",
 * not a regression.
 */
#define COMPARABLE_CPU_SHARE 0.9

/* The metric whose per-run values are the host's interference: kept with each baseline. */
#define RUN_DELAY_METRIC "run_delay_share"

enum comparison_kind { VS_BASELINE, AGAINST_ITSELF };

/* One comparison the check tests: the family Holm corrects over. */
struct tested {
	struct sample *s;
	enum comparison_kind kind;
	struct sample_stats base, cand;
	struct welch_result w;
	double p_adj;
};

struct ctx {
	const struct check_config *c;
	struct check_result *out;
	struct sample *samples;
	unsigned nr_samples, cap_samples;
	bool kvm_ok;
	char kvm_why[256];
	bool pv_yield;
	uint64_t t0;
};

static int push(double **v, unsigned *n, unsigned *cap, double x)
{
	if (*n == *cap) {
		unsigned c = *cap ? 2 * *cap : 16;
		double *g = realloc(*v, c * sizeof(**v));
		if (!g)
			return -1;
		*v = g;
		*cap = c;
	}
	(*v)[(*n)++] = x;
	return 0;
}

static double elapsed_s(const struct ctx *k)
{
	return (double)(monotonic_ns() - k->t0) * 1e-9;
}

/* "kvm ticket pause user 1x4 ple=on pcpus=0": a variant's name in cases and in the store. */
static void variant_label(const struct variant *v, char *buf, size_t len)
{
	char cpus[256];
	cpulist_format(v->pcpus, v->nr_pcpus, cpus, sizeof(cpus));
	(void)pathf(buf, len, "%s %s %s %s %ux%u ple=%s pcpus=%s", backend_name(v->backend),
		    lock_name(v->lock), relax_name(v->relax), ring_name(v->ring), v->vms, v->vcpus,
		    ple_name(v->ple), cpus);
}

static bool has_hw_virt(const struct check_result *r)
{
	return !strcmp(r->host.kvm_module, "kvm_intel") || !strcmp(r->host.kvm_module, "kvm_amd");
}

static bool uses_kvm(const struct run_plan *p)
{
	for (unsigned i = 0; i < p->nr_backends; i++)
		if (p->backends[i] == BACKEND_KVM || p->backends[i] == BACKEND_LIBVIRT)
			return true;
	return false;
}

/* Why the host cannot run @s, or NULL when it can. */
static const char *skip_reason(const struct ctx *k, const struct scenario *s, char *buf, size_t len)
{
	const struct host_info *h = &k->out->host;
	if (uses_kvm(s->plan) && !k->kvm_ok)
		return k->kvm_why;
	if (s->min_cpus > h->cpus) {
		snprintf(buf, len, "needs %u host CPUs, plerig may use %u here", s->min_cpus,
			 h->cpus);
		return buf;
	}
	if (s->requires & (1u << REQUIRE_PLE) && !has_hw_virt(k->out)) {
		snprintf(buf, len, "needs hardware PLE: no PAUSE interception on this host (%s)",
			 h->kvm_module);
		return buf;
	}
	if (s->requires & (1u << REQUIRE_HW_VIRT) && !has_hw_virt(k->out)) {
		snprintf(buf, len, "needs VMX/SVM: guest ring 0 is emulated on %s", h->kvm_module);
		return buf;
	}
	if (s->requires & (1u << REQUIRE_PV_YIELD) && !k->pv_yield) {
		snprintf(
		    buf, len,
		    !strcmp(h->kvm_module, "kvm_pvm")
			? "needs pv-yield: under PVM the guest's hypercall never reaches KVM"
			: "needs pv-yield: KVM here does not offer KVM_FEATURE_PV_SCHED_YIELD");
		return buf;
	}
	return NULL;
}

static const struct metric *const *scenario_metrics(const struct ctx *k, const struct scenario *s,
						    unsigned *n)
{
	*n = s->metrics_given ? s->nr_metrics : k->c->nr_metrics;
	return s->metrics_given ? s->metrics : k->c->metrics;
}

static bool judges_metrics(const struct ctx *k)
{
	return k->c->baseline_loaded || k->c->aa || k->c->record || k->c->no_baseline;
}

static int skip_scenario(struct ctx *k, const struct scenario *s, const char *why)
{
	for (unsigned e = 0; e < EXPECT_COUNT; e++)
		if (s->expects & (1u << e) &&
		    check_result_add(k->out, s->name, expectation_name(e), CHECK_SKIP, "%s", why))
			return -1;
	unsigned nm;
	const struct metric *const *m = scenario_metrics(k, s, &nm);
	for (unsigned i = 0; judges_metrics(k) && i < nm; i++)
		if (check_result_add(k->out, s->name, m[i]->name, CHECK_SKIP, "%s", why))
			return -1;
	k->out->scenarios_skipped++;
	return 0;
}

/* ---- expectations ---- */

struct judging {
	unsigned judged, failed;
	char first_failure[512];
	char skip_why[512];
	char figures[512];
};

static void note_failure(struct judging *j, const char *label, unsigned run, const char *why)
{
	if (!j->failed++)
		(void)pathf(j->first_failure, sizeof(j->first_failure), "%s, run %u: %s", label,
			    run, why);
}

/*
 * A vCPU thread the host let run for less than this can have made no
 * acquisition without anything being wrong: it was never in the lock's
 * queue, or the holder it waited for never ran.
 */
#define PROGRESS_MIN_RUN_NS 10000000ull

static void note_failure_text(struct judging *j, const char *label, const char *why)
{
	if (!j->failed++)
		(void)pathf(j->first_failure, sizeof(j->first_failure), "%s: %s", label, why);
}

/*
 * Progress, over all ok runs of a variant together: the lock of every VM
 * moves, and under a fair lock every vCPU gets it. One run on a loaded
 * host can starve a vCPU, or a whole queue behind a descheduled ticket
 * holder, by scheduling luck alone; all the runs of a variant cannot.
 * Where the host gave the vCPUs too little CPU to tell, it is not judged.
 */
static void judge_progress(const struct series *se, const char *label, struct judging *j)
{
	const struct variant *v = &se->variant;
	unsigned n = v->vms * v->vcpus, runs = 0;
	uint64_t *acq = calloc(2 * (n + v->vms) + 1, sizeof(*acq));
	uint64_t *ran = acq + n, *vm_acq = ran + n, *vm_ran = vm_acq + v->vms;
	char why[400];
	if (!acq)
		return;
	for (unsigned r = 0; r < se->nr_runs; r++) {
		const struct variant_result *res = &se->runs[r];
		if (!res->ok)
			continue;
		runs++;
		for (unsigned i = 0; i < res->nr_records && i < n; i++) {
			const struct vcpu_record *rec = &res->records[i];
			acq[i] += rec->guest.acquisitions;
			ran[i] += rec->sched.run_ns;
			if (rec->vm < v->vms) {
				vm_acq[rec->vm] += rec->guest.acquisitions;
				vm_ran[rec->vm] += rec->sched.run_ns;
			}
		}
	}
	j->judged += runs;
	for (unsigned i = 0; runs && i < n + v->vms; i++) {
		bool vcpu = i < n;
		if (vcpu ? acq[i] || !lock_is_fair(v->lock) : vm_acq[i - n])
			continue;
		if (vcpu)
			snprintf(
			    why, sizeof(why),
			    "vCPU %u of VM %u made 0 acquisitions in %u runs under a fair (%s) "
			    "lock, running %.1f ms in all",
			    i % v->vcpus, i / v->vcpus, runs, lock_name(v->lock),
			    (double)ran[i] * 1e-6);
		else
			snprintf(why, sizeof(why),
				 "VM %u's lock made no acquisition in %u runs, its vCPUs running "
				 "%.1f ms in all",
				 i - n, runs, (double)vm_ran[i - n] * 1e-6);
		if ((vcpu ? ran[i] : vm_ran[i - n]) >= PROGRESS_MIN_RUN_NS)
			note_failure_text(j, label, why);
		else
			(void)pathf(j->skip_why, sizeof(j->skip_why),
				    "the host gave the vCPUs too little CPU to tell: %s", why);
	}
	free(acq);
}

/*
 * Over-commit shows: run-queue delay and stalls, in the runs together.
 * (Not per run: schedstat books a wait when the thread next runs, so a run
 * whose vCPUs the host never scheduled shows no delay at all.)
 */
static void judge_stalls(const struct series *se, const char *label, struct judging *j)
{
	uint64_t stalls = 0;
	double delay_ns = 0.0;
	unsigned runs = 0;
	char why[256];
	for (unsigned r = 0; r < se->nr_runs; r++) {
		struct figures f;
		if (!se->runs[r].ok)
			continue;
		figures_for_variant(&se->runs[r], &f);
		runs++;
		stalls += f.stalls;
		delay_ns += f.run_delay_ns;
	}
	j->judged += runs;
	if (runs && (!stalls || delay_ns <= 0.0)) {
		snprintf(why, sizeof(why), "%" PRIu64 " stalls and %.1f ms of run delay in %u runs",
			 stalls, delay_ns * 1e-6, runs);
		note_failure_text(j, label, why);
	}
}

static uint64_t directed_yields(const struct variant_result *r, bool *valid)
{
	uint64_t n = 0;
	*valid = r->nr_records > 0;
	for (unsigned i = 0; i < r->nr_records; i++) {
		const struct kvm_stats_snapshot *s = &r->records[i].kvm;
		*valid &= s->valid[KVM_STAT_DIRECTED_YIELD_ATTEMPTED];
		n += s->value[KVM_STAT_DIRECTED_YIELD_ATTEMPTED];
	}
	return n;
}

/* One ok run against expectation @e: counted in @j, or a reason not to judge it. */
static void judge_run(const struct ctx *k, enum expectation e, const struct series *se,
		      const struct variant_result *r, unsigned run, const char *label,
		      struct judging *j)
{
	struct figures f;
	char why[512], a[32], b[32];
	bool valid;
	figures_for_variant(r, &f);
	switch (e) {
	case EXPECT_PROGRESS:
	case EXPECT_STALLS:
		return; /* over the runs together: judge_progress, judge_stalls */
	case EXPECT_NO_STALLS:
		if (!strcmp(k->out->host.kvm_module, "kvm_pvm")) {
			snprintf(j->skip_why, sizeof(j->skip_why),
				 "on kvm_pvm every host interrupt is a ~45 us exit, so a host "
				 "tick inside a critical section preempts the holder without "
				 "over-commit (%" PRIu64 " stalls here)",
				 (uint64_t)f.stalls);
			return;
		}
		if (se->variant.vms * se->variant.vcpus > se->variant.nr_pcpus) {
			snprintf(j->skip_why, sizeof(j->skip_why),
				 "over-committed (%u vCPUs on %u CPUs): stalls are expected",
				 se->variant.vms * se->variant.vcpus, se->variant.nr_pcpus);
			return;
		}
		if (f.run_delay_share > 0.001) {
			snprintf(j->skip_why, sizeof(j->skip_why),
				 "the vCPUs waited for a CPU %s of the time (run delay: other "
				 "work on their CPUs), whose preemptions make stalls",
				 units_percent(f.run_delay_share, a, sizeof(a)));
			return;
		}
		j->judged++;
		if (f.stalls) {
			snprintf(why, sizeof(why), "%" PRIu64 " stalls (%s stalled), run delay %s",
				 (uint64_t)f.stalls, units_percent(f.stalled_share, a, sizeof(a)),
				 units_percent(f.run_delay_share, b, sizeof(b)));
			note_failure(j, label, run, why);
		}
		return;
	case EXPECT_PLE_EXITS:
	case EXPECT_NO_PLE_EXITS:
		if (!f.pause_loop_exits_valid) {
			(void)pathf(j->skip_why, sizeof(j->skip_why),
				    "PAUSE-loop exits not countable: %s",
				    r->ple_why[0] ? r->ple_why : "not counted for every vCPU");
			return;
		}
		j->judged++;
		if ((e == EXPECT_PLE_EXITS) != (f.pause_loop_exits > 0)) {
			snprintf(why, sizeof(why), "%" PRIu64 " PAUSE-loop exits",
				 (uint64_t)f.pause_loop_exits);
			note_failure(j, label, run, why);
		}
		return;
	case EXPECT_DIRECTED_YIELDS: {
		uint64_t n = directed_yields(r, &valid);
		if (!valid) {
			snprintf(j->skip_why, sizeof(j->skip_why),
				 "no directed_yield_attempted stat on this kernel");
			return;
		}
		j->judged++;
		if (!n)
			note_failure(j, label, run, "0 directed yields attempted");
		return;
	}
	case EXPECT_COUNT:
		break;
	}
}

/* What passed, in figures: the first variant's first ok run. */
static void describe_pass(enum expectation e, const struct outcome *rep, char *buf, size_t len)
{
	struct figures f;
	char a[32], b[32];
	buf[0] = '\0';
	for (unsigned i = 0; i < rep->nr_series; i++)
		for (unsigned r = 0; r < rep->series[i].nr_runs; r++) {
			const struct variant_result *res = &rep->series[i].runs[r];
			if (!res->ok)
				continue;
			figures_for_variant(res, &f);
			switch (e) {
			case EXPECT_STALLS:
				snprintf(buf, len,
					 "e.g. %" PRIu64 " stalls, %s stalled, run delay %s",
					 (uint64_t)f.stalls, units_percent(f.stalled_share, a, 32),
					 units_percent(f.run_delay_share, b, 32));
				return;
			case EXPECT_PLE_EXITS:
				snprintf(buf, len, "e.g. %" PRIu64 " PAUSE-loop exits",
					 (uint64_t)f.pause_loop_exits);
				return;
			default:
				snprintf(buf, len, "e.g. %s acq/s, %" PRIu64 " stalls",
					 units_count(f.acq_per_s, a, 32), (uint64_t)f.stalls);
				return;
			}
		}
}

static int judge_expectations(struct ctx *k, const struct scenario *s, const struct outcome *rep)
{
	char label[160], pass[256];
	for (unsigned e = 0; e < EXPECT_COUNT; e++) {
		if (!(s->expects & (1u << e)))
			continue;
		struct judging j = {0};
		for (unsigned i = 0; i < rep->nr_series; i++) {
			const struct series *se = &rep->series[i];
			variant_label(&se->variant, label, sizeof(label));
			if (e == EXPECT_PROGRESS)
				judge_progress(se, label, &j);
			else if (e == EXPECT_STALLS)
				judge_stalls(se, label, &j);
			else
				for (unsigned r = 0; r < se->nr_runs; r++)
					if (se->runs[r].ok)
						judge_run(k, e, se, &se->runs[r], r, label, &j);
		}
		const char *name = expectation_name(e);
		int rc;
		if (j.failed)
			rc = check_result_add(k->out, s->name, name, CHECK_FAIL,
					      "failed %u time(s) over %u runs; first: %s", j.failed,
					      j.judged, j.first_failure);
		else if (!j.judged)
			rc = check_result_add(k->out, s->name, name, CHECK_SKIP, "%s",
					      j.skip_why[0] ? j.skip_why : "no ok run to judge");
		else {
			describe_pass(e, rep, pass, sizeof(pass));
			rc = check_result_add(
			    k->out, s->name, name, CHECK_PASS, "held in %u runs; %s%s%s", j.judged,
			    pass, j.skip_why[0] ? "; not judged in some: " : "", j.skip_why);
		}
		if (rc)
			return -1;
	}
	return 0;
}

static int note_failed_runs(struct ctx *k, const struct scenario *s, const struct outcome *rep)
{
	char label[160];
	for (unsigned i = 0; i < rep->nr_series; i++)
		for (unsigned r = 0; r < rep->series[i].nr_runs; r++) {
			const struct variant_result *res = &rep->series[i].runs[r];
			if (res->ok)
				continue;
			variant_label(&rep->series[i].variant, label, sizeof(label));
			return check_result_add(k->out, s->name, "runs", CHECK_FAIL,
						"%s, run %u failed: %s", label, r, res->error);
		}
	return 0;
}

/* ---- figures for the comparisons ---- */

static struct sample *sample_for(struct ctx *k, const struct scenario *s, const char *variant,
				 const struct metric *m)
{
	for (unsigned i = 0; i < k->nr_samples; i++)
		if (k->samples[i].scenario == s && k->samples[i].metric == m &&
		    !strcmp(k->samples[i].variant, variant))
			return &k->samples[i];
	if (k->nr_samples == k->cap_samples) {
		unsigned cap = k->cap_samples ? 2 * k->cap_samples : 16;
		struct sample *g = realloc(k->samples, cap * sizeof(*g));
		if (!g)
			return NULL;
		k->samples = g;
		k->cap_samples = cap;
	}
	struct sample *x = &k->samples[k->nr_samples++];
	memset(x, 0, sizeof(*x));
	x->scenario = s;
	x->metric = m;
	snprintf(x->variant, sizeof(x->variant), "%s", variant);
	return x;
}

static int gather(struct ctx *k, const struct scenario *s, const struct outcome *rep)
{
	unsigned nm;
	const struct metric *const *m = scenario_metrics(k, s, &nm);
	const struct metric *delay = metric_by_name(RUN_DELAY_METRIC);
	char label[160];
	for (unsigned i = 0; i < rep->nr_series; i++) {
		const struct series *se = &rep->series[i];
		double *v = malloc((se->nr_runs + 1) * sizeof(*v));
		if (!v)
			return -1;
		variant_label(&se->variant, label, sizeof(label));
		for (unsigned j = 0; j < nm; j++) {
			struct sample *x = sample_for(k, s, label, m[j]);
			if (!x) {
				free(v);
				return -1;
			}
			x->contended = se->variant.vcpus > 1;
			unsigned n = series_values(se, m[j], v);
			for (unsigned r = 0; r < n; r++)
				if (push(&x->values, &x->n, &x->cap, v[r])) {
					free(v);
					return -1;
				}
			n = series_values(se, delay, v);
			for (unsigned r = 0; r < n; r++)
				if (push(&x->run_delay, &x->nd, &x->capd, v[r])) {
					free(v);
					return -1;
				}
		}
		free(v);
	}
	return 0;
}

/* Even rounds against odd rounds: an A/A pair from one scenario's runs. */
static unsigned split_aa(const struct sample *x, double *a, unsigned *na, double *b)
{
	unsigned nb = 0;
	*na = 0;
	for (unsigned i = 0; i < x->n; i++) {
		if (i % 2)
			b[nb++] = x->values[i];
		else
			a[(*na)++] = x->values[i];
	}
	return nb;
}

/* @t's test: candidate now against the baseline, or odd rounds against even ones. */
static int test_one(const struct ctx *k, struct tested *t)
{
	const struct sample *x = t->s;
	double *a = malloc((x->n + 1) * sizeof(double)), *b = malloc((x->n + 1) * sizeof(double));
	unsigned na, nb;
	if (!a || !b) {
		free(a);
		free(b);
		return -1;
	}
	if (t->kind == AGAINST_ITSELF) {
		nb = split_aa(x, a, &na, b);
	} else {
		const struct baseline_entry *e =
		    baseline_find(k->c->baseline, x->scenario->name, x->variant, x->metric->name);
		double *g = realloc(a, ((e ? e->n : 0) + 1) * sizeof(double));
		if (!g) {
			free(a);
			free(b);
			return -1;
		}
		a = g;
		na = e ? e->n : 0;
		if (e)
			memcpy(a, e->values, na * sizeof(double));
		memcpy(b, x->values, x->n * sizeof(double));
		nb = x->n;
	}
	sample_stats_compute(a, na, &t->base);
	sample_stats_compute(b, nb, &t->cand);
	welch_test(a, na, b, nb, VERDICT_CONFIDENCE, &t->w);
	t->p_adj = t->w.valid ? t->w.p : NAN;
	free(a);
	free(b);
	return 0;
}

/* Without a comparison (recording only): the width of the CI of the mean itself. */
static double mean_ci_width_pct(const struct sample *x)
{
	struct welch_result w;
	if (x->n < 2)
		return INFINITY;
	one_sample_t_test(x->values, x->n, VERDICT_CONFIDENCE, &w);
	double mean = w.diff;
	return w.valid && mean != 0.0 ? 100.0 * (w.ci_high - w.ci_low) / fabs(mean) : INFINITY;
}

/* Is every comparison of @s narrower than the threshold (adaptive repeats stop then)? */
static int scenario_narrow(struct ctx *k, const struct scenario *s, bool *narrow)
{
	*narrow = true;
	for (unsigned i = 0; i < k->nr_samples; i++) {
		struct sample *x = &k->samples[i];
		if (x->scenario != s)
			continue;
		struct tested t = {.s = x, .kind = k->c->aa ? AGAINST_ITSELF : VS_BASELINE};
		double width;
		if (k->c->aa ||
		    (k->c->baseline_loaded &&
		     baseline_find(k->c->baseline, s->name, x->variant, x->metric->name))) {
			if (test_one(k, &t))
				return -1;
			width = verdict_ci_width_pct(&t.w, t.base.mean);
		} else {
			width = mean_ci_width_pct(x);
		}
		if (!(width <= k->c->threshold_pct))
			*narrow = false;
	}
	return 0;
}

static int keep_results(json_object *all, const char *name, const struct outcome *rep)
{
	json_object *doc = json_results_document(rep), *o = json_object_new_object();
	if (!doc || !o) {
		json_object_put(doc);
		json_object_put(o);
		return -1;
	}
	json_object_object_add(o, "scenario", json_object_new_string(name));
	json_object_object_add(o, "results", doc);
	return json_object_array_add(all, o);
}

static int run_scenario(struct ctx *k, const struct scenario *s)
{
	struct run_plan *plan = malloc(sizeof(*plan));
	struct outcome rep;
	char err[512], why[512];
	const struct experiment_output out = {.rows = NULL, .who = "plerig check"};
	uint64_t start = monotonic_ns();
	int rc = 0;

	if (!plan)
		return -1;
	*plan = *s->plan;
	plan->quiet = true;
	const char *skip = skip_reason(k, s, why, sizeof(why));
	if (skip) {
		rc = skip_scenario(k, s, skip);
		if (k->c->progress)
			fprintf(k->c->progress, "check: %-24s skipped: %s\n", s->name, skip);
		goto out;
	}
	if (experiment_check(plan, err, sizeof(err))) {
		rc = check_result_add(k->out, s->name, "runs", CHECK_FAIL, "bad scenario: %s", err);
		goto out;
	}
	for (unsigned round = 0;; round++) {
		if (experiment_run(plan, plan->guest_path ? plan->guest_path : k->c->guest_path,
				   s->options, &out, &rep, err, sizeof(err))) {
			outcome_free(&rep);
			rc = check_result_add(k->out, s->name, "runs", CHECK_FAIL,
					      "could not run: %s", err);
			goto out;
		}
		if (round == 0) {
			k->out->scenarios_run++;
			if (k->c->results && keep_results(k->c->results, s->name, &rep)) {
				outcome_free(&rep);
				rc = -1;
				goto out;
			}
			if (note_failed_runs(k, s, &rep) || judge_expectations(k, s, &rep)) {
				outcome_free(&rep);
				rc = -1;
				goto out;
			}
		}
		rc = judges_metrics(k) ? gather(k, s, &rep) : 0;
		outcome_free(&rep);
		if (rc || interrupt_requested() || k->c->budget_s <= 0.0 || !judges_metrics(k))
			break;
		bool narrow;
		if (scenario_narrow(k, s, &narrow)) {
			rc = -1;
			break;
		}
		if (narrow || elapsed_s(k) >= k->c->budget_s)
			break;
		if (k->c->progress)
			fprintf(k->c->progress,
				"check: %-24s wider than %.3g %%: %u more round(s)\n", s->name,
				k->c->threshold_pct, plan->repeat);
	}
	if (k->c->progress)
		fprintf(k->c->progress, "check: %-24s %.1f s\n", s->name,
			(double)(monotonic_ns() - start) * 1e-9);
out:
	free(plan);
	return rc;
}

/* ---- verdicts on the figures ---- */

static double pct(double v, double base)
{
	return base != 0.0 ? 100.0 * v / fabs(base) : NAN;
}

static double mean_of(const double *v, unsigned n)
{
	double s = 0.0;
	for (unsigned i = 0; i < n; i++)
		s += v[i];
	return n ? s / n : 0.0;
}

/*
 * A contended variant judged against the baseline, whose vCPUs had less
 * than COMPARABLE_CPU_SHARE of the CPU share they had then (both run
 * delays returned). False where either run delay is unknown.
 */
static bool host_busier_than_baseline(const struct ctx *k, const struct tested *t,
				      double *delay_then, double *delay_now)
{
	const struct sample *x = t->s;
	if (t->kind != VS_BASELINE || !x->contended || !x->nd)
		return false;
	const struct baseline_entry *then =
	    baseline_find(k->c->baseline, x->scenario->name, x->variant, RUN_DELAY_METRIC);
	if (!then || !then->n)
		return false;
	*delay_then = mean_of(then->values, then->n);
	*delay_now = mean_of(x->run_delay, x->nd);
	return 1.0 - *delay_now < COMPARABLE_CPU_SHARE * (1.0 - *delay_then);
}

static int emit_verdict(struct ctx *k, const struct tested *t)
{
	const struct sample *x = t->s;
	const double thr = k->c->threshold_pct;
	char name[160], a[32], b[32], delay[32];
	(void)pathf(name, sizeof(name), "%s%s: %s", x->metric->name,
		    t->kind == AGAINST_ITSELF ? " A/A" : " vs baseline", x->variant);
	const char *against =
	    t->kind == AGAINST_ITSELF ? "odd rounds vs even rounds" : "now vs baseline";
	if (t->base.n < 2 || t->cand.n < 2)
		return check_result_add(k->out, x->scenario->name, name, CHECK_SKIP,
					"untestable: %u vs %u ok runs with a value (needs 2 each)",
					t->base.n, t->cand.n);
	const double d = pct(t->w.diff, t->base.mean), lo = pct(t->w.ci_low, t->base.mean),
		     hi = pct(t->w.ci_high, t->base.mean),
		     width = verdict_ci_width_pct(&t->w, t->base.mean);
	char figures[512];
	snprintf(figures, sizeof(figures),
		 "%s: %s %s -> %s (%+.1f %%, 95 %% CI [%+.1f %%, %+.1f %%], p %.3g, Holm %.3g; "
		 "%u vs %u runs, +- %.1f %% / %.1f %%; threshold %.3g %%)",
		 against, x->metric->name, units_count(t->base.mean, a, sizeof(a)),
		 units_count(t->cand.mean, b, sizeof(b)), d, lo, hi, t->w.p, t->p_adj, t->base.n,
		 t->cand.n, 100.0 * t->base.rel, 100.0 * t->cand.rel, thr);
	if (!t->w.valid)
		return check_result_add(k->out, x->scenario->name, name,
					t->w.diff == 0.0 ? CHECK_PASS : CHECK_NOISY,
					"no spread: every run gave the same value (%s -> %s)",
					units_count(t->base.mean, a, sizeof(a)),
					units_count(t->cand.mean, b, sizeof(b)));
	const bool bad = x->metric->better > 0 ? d < 0.0 : d > 0.0;
	const char *scenario = x->scenario->name;
	int rc;
	/*
	 * A regression larger than the threshold, shown: significant after
	 * Holm, and even the favourable end of the 95 % CI beyond the
	 * threshold. A point estimate just past it is what drift between
	 * invocations makes of a few percent.
	 */
	const double near = x->metric->better > 0 ? -hi : lo; /* the smallest harm the CI allows */
	const bool regressed = t->p_adj < VERDICT_ALPHA && bad && near >= thr;
	double delay_then, delay_now;
	if (regressed && host_busier_than_baseline(k, t, &delay_then, &delay_now)) {
		char then[32];
		units_percent(delay_now, delay, sizeof(delay));
		units_percent(delay_then, then, sizeof(then));
		rc = check_result_add(
		    k->out, scenario, name, CHECK_NOISY,
		    "not comparable: the vCPUs waited for a CPU %s of the time now (run delay), "
		    "%s when the baseline was recorded; on a busier host lock holders are "
		    "preempted by other work while the waiters spin, which no per-CPU rate "
		    "subtracts: judge on a host as quiet as the baseline's, or record the baseline "
		    "under the same load; %s",
		    delay, then, figures);
		check_result_brief(k->out, "%+.1f %%, not comparable (run delay %s now, %s then)",
				   d, delay, then);
	} else if (regressed) {
		rc =
		    check_result_add(k->out, scenario, name, CHECK_FAIL, "regression: %s", figures);
	} else if (width > thr) {
		units_percent(mean_of(x->run_delay, x->nd), delay, sizeof(delay));
		rc = check_result_add(k->out, scenario, name, CHECK_NOISY,
				      "too noisy to judge: the CI is %.1f %% wide, wider than the "
				      "threshold; the vCPUs waited for a CPU %s of the time (run "
				      "delay); %s",
				      width, delay, figures);
		check_result_brief(k->out, "%+.1f %%, CI %.1f %% wide > %.3g %% (run delay %s)", d,
				   width, thr, delay);
	} else {
		rc = check_result_add(
		    k->out, scenario, name, CHECK_PASS, "%s%s", figures,
		    t->p_adj < VERDICT_ALPHA && !bad && fabs(d) >= thr ? " (better)" : "");
		check_result_brief(k->out, "%+.1f %%, 95 %% CI [%+.1f %%, %+.1f %%]", d, lo, hi);
	}
	return rc;
}

static int judge_figures(struct ctx *k)
{
	struct tested *t = calloc(2 * k->nr_samples + 1, sizeof(*t));
	double *p = calloc(2 * k->nr_samples + 1, sizeof(*p));
	unsigned n = 0;
	int rc = -1;
	if (!t || !p)
		goto out;
	for (unsigned i = 0; i < k->nr_samples; i++) {
		struct sample *x = &k->samples[i];
		char name[200];
		(void)pathf(name, sizeof(name), "%s vs baseline: %s", x->metric->name, x->variant);
		if (k->c->no_baseline && check_result_add(k->out, x->scenario->name, name,
							  CHECK_SKIP, "%s", k->c->no_baseline))
			goto out;
		if (k->c->baseline_loaded) {
			if (!baseline_find(k->c->baseline, x->scenario->name, x->variant,
					   x->metric->name)) {
				if (check_result_add(k->out, x->scenario->name, name, CHECK_SKIP,
						     "no baseline for this scenario, variant and "
						     "metric on this machine (%s): record one with "
						     "--record",
						     k->out->baseline_key))
					goto out;
			} else {
				t[n] = (struct tested){.s = x, .kind = VS_BASELINE};
				if (test_one(k, &t[n++]))
					goto out;
			}
		}
		if (k->c->aa) {
			t[n] = (struct tested){.s = x, .kind = AGAINST_ITSELF};
			if (test_one(k, &t[n++]))
				goto out;
		}
	}
	for (unsigned i = 0; i < n; i++)
		p[i] = t[i].p_adj;
	holm_adjust(p, n, p);
	for (unsigned i = 0; i < n; i++) {
		t[i].p_adj = p[i];
		if (emit_verdict(k, &t[i]))
			goto out;
	}
	rc = 0;
out:
	free(t);
	free(p);
	return rc;
}

static int record(struct ctx *k)
{
	for (unsigned i = 0; i < k->c->suite->nr_scenarios; i++) {
		const struct scenario *s = &k->c->suite->scenarios[i];
		bool ran = false;
		for (unsigned j = 0; j < k->nr_samples; j++)
			ran |= k->samples[j].scenario == s;
		if (ran)
			baseline_drop_scenario(k->c->baseline, s->name);
	}
	for (unsigned j = 0; j < k->nr_samples; j++) {
		const struct sample *x = &k->samples[j];
		if (baseline_put(k->c->baseline, x->scenario->name, x->variant, x->metric->name,
				 x->values, x->n))
			return -1;
		/* the host's interference then, so that a later check knows whether it compares
		 * like with like */
		if (x->nd && baseline_put(k->c->baseline, x->scenario->name, x->variant,
					  RUN_DELAY_METRIC, x->run_delay, x->nd))
			return -1;
	}
	return 0;
}

static bool selected(const struct check_config *c, const struct scenario *s)
{
	if (!c->groups)
		return true;
	for (const char *const *g = c->groups; *g; g++)
		if (scenario_in_group(s, *g))
			return true;
	return false;
}

/* Cases in the suite's order of scenarios (figures are judged last, together). */
static int order_cases(struct ctx *k)
{
	struct check_result *r = k->out;
	struct check_case *sorted = malloc((r->nr_cases + 1) * sizeof(*sorted));
	unsigned n = 0;
	if (!sorted)
		return -1;
	for (unsigned s = 0; s < k->c->suite->nr_scenarios; s++)
		for (unsigned i = 0; i < r->nr_cases; i++)
			if (!strcmp(r->cases[i].scenario, k->c->suite->scenarios[s].name))
				sorted[n++] = r->cases[i];
	free(r->cases);
	r->cases = sorted;
	r->nr_cases = n;
	r->cap = n + 1;
	return 0;
}

static void probe_kvm(struct ctx *k)
{
	struct kvm_system sys;
	char err[200];
	if (kvm_system_open(&sys, err, sizeof(err))) {
		snprintf(k->kvm_why, sizeof(k->kvm_why), "no usable KVM: %s", err);
		return;
	}
	k->kvm_ok = true;
	k->pv_yield = strcmp(sys.module, "kvm_pvm") &&
		      kvm_feature_supported(&sys, KVM_FEATURE_PV_SCHED_YIELD);
	kvm_system_close(&sys);
}

int check_suite_run(const struct check_config *c, struct check_result *out, char *err,
		    size_t errlen)
{
	struct ctx k = {.c = c, .out = out, .t0 = monotonic_ns()};
	int rc = -1;
	probe_kvm(&k);
	for (unsigned i = 0; i < c->suite->nr_scenarios && !interrupt_requested(); i++) {
		const struct scenario *s = &c->suite->scenarios[i];
		if (selected(c, s) && run_scenario(&k, s))
			goto out;
	}
	out->interrupted = interrupt_requested();
	if (judge_figures(&k) || order_cases(&k) || (c->record && record(&k)))
		goto out;
	out->seconds = elapsed_s(&k);
	rc = 0;
out:
	for (unsigned i = 0; i < k.nr_samples; i++) {
		free(k.samples[i].values);
		free(k.samples[i].run_delay);
	}
	free(k.samples);
	if (rc)
		errbuf_printf(err, errlen, "out of memory");
	return rc;
}
