// SPDX-License-Identifier: GPL-2.0
#include "model/tune_figures.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/halt_path.h"
#include "util/strfmt.h"

void tune_shape_of(const struct variant *v, struct tune_shape *out)
{
	char poll[48];
	memset(out, 0, sizeof(*out));
	snprintf(out->family, sizeof(out->family), "%s %s %s %s%s", backend_name(v->backend),
		 lock_name(v->lock), relax_name(v->relax), ring_name(v->ring),
		 halt_poll_label(v, poll, sizeof(poll)));
	out->ratio = v->nr_pcpus ? (double)(v->vms * v->vcpus) / v->nr_pcpus : NAN;
	out->pinned = v->pin_each;
	char where[96];
	snprintf(where, sizeof(where), " %ux%u on %u CPU%s (%.3gx%s)", v->vms, v->vcpus,
		 v->nr_pcpus, v->nr_pcpus == 1 ? "" : "s", out->ratio,
		 v->pin_each ? ", pinned" : "");
	/* a long label is cut: it is only for people */
	str_copy(out->label, sizeof(out->label), out->family);
	size_t n = strlen(out->label);
	str_copy(out->label + n, sizeof(out->label) - n, where);
}

/* The sum of a KVM stat over the vCPUs, NaN where one of them lacks it. */
static double kvm_sum(const struct variant_result *r, enum kvm_vcpu_stat st)
{
	double sum = 0.0;
	for (unsigned i = 0; i < r->nr_records; i++) {
		if (!r->records[i].kvm.valid[st])
			return NAN;
		sum += (double)r->records[i].kvm.value[st];
	}
	return r->nr_records ? sum : NAN;
}

static void one_run(const struct variant_result *r, const struct metric *m, double *y, double *fig)
{
	struct figures f;
	struct halt_path hp;
	figures_for_variant(r, &f);
	halt_path_for_variant(r, &hp);
	const double t = r->interval_s > 0.0 ? r->interval_s : NAN;
	*y = m->get(&f);
	fig[TUNE_FIG_ACQ_PER_S] = f.acq_per_s;
	fig[TUNE_FIG_WAIT_P99_NS] = f.wait_p99_ns;
	fig[TUNE_FIG_LHP_PER_S] = (double)f.holder_preemptions / t;
	fig[TUNE_FIG_PLE_EXITS_PER_S] =
	    f.pause_loop_exits_valid ? (double)f.pause_loop_exits / t : NAN;
	fig[TUNE_FIG_YIELDS_ATTEMPTED_PER_S] = kvm_sum(r, KVM_STAT_DIRECTED_YIELD_ATTEMPTED) / t;
	fig[TUNE_FIG_YIELDS_SUCCESSFUL_PER_S] = kvm_sum(r, KVM_STAT_DIRECTED_YIELD_SUCCESSFUL) / t;
	fig[TUNE_FIG_HALTS_PER_S] = hp.valid ? (double)hp.halts / t : NAN;
	fig[TUNE_FIG_KICKS_PER_S] = hp.valid ? (double)hp.kicks_sent / t : NAN;
}

static void note_once(char *note, size_t len, const char *fmt, const char *what)
{
	if (note && len && !note[0] && what && what[0])
		snprintf(note, len, fmt, what);
}

void tune_visit_figures(const struct series *s, const struct metric *m, unsigned k,
			struct tune_visit *v, char *note, size_t notelen)
{
	double sum_y = 0.0, sum[TUNE_FIG_COUNT] = {0};
	unsigned n_y = 0, n[TUNE_FIG_COUNT] = {0};
	v->ok[k] = false;
	for (unsigned i = 0; i < s->nr_runs; i++) {
		const struct variant_result *r = &s->runs[i];
		double y, fig[TUNE_FIG_COUNT];
		if (!r->ok) {
			if (!v->error[0])
				str_copy(v->error, sizeof(v->error),
					 r->error[0] ? r->error : "run failed");
			continue;
		}
		v->ok[k] = true;
		one_run(r, m, &y, fig);
		if (!isnan(y)) {
			sum_y += y;
			n_y++;
		}
		for (int f = 0; f < TUNE_FIG_COUNT; f++)
			if (!isnan(fig[f])) {
				sum[f] += fig[f];
				n[f]++;
			}
		if (r->variant.lock == PLERIG_LOCK_PVQSPIN && !r->pv_unhalt)
			note_once(note, notelen, "ran as test-and-set: %s",
				  r->pv_why[0] ? r->pv_why : "pvqspin did not halt");
		note_once(note, notelen, "PAUSE-loop exits n/a: %s", r->ple_why);
	}
	v->y[k] = n_y ? sum_y / n_y : NAN;
	for (int f = 0; f < TUNE_FIG_COUNT; f++)
		v->fig[k][f] = n[f] ? sum[f] / n[f] : NAN;
	/* a run without the objective measured nothing the search can use */
	if (v->ok[k] && !n_y) {
		v->ok[k] = false;
		if (!v->error[0])
			snprintf(v->error, sizeof(v->error), "%s n/a in every run", m->name);
	}
}
