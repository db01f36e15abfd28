// SPDX-License-Identifier: GPL-2.0
#include "output/halt_path_writer.h"

#include <math.h>

#include "output/json_util.h"
#include "output/units.h"
#include "util/printable.h"

json_object *halt_path_json(const struct variant_result *r, const struct halt_path *h)
{
	json_object *o = json_object_new_object();
	json_object *kvm = json_object_new_object();
	bool kvm_missing = false;
	/* a count that cannot be had is null with its reason, never a 0 */
	json_add_count(o, "halts", h->valid, h->halts);
	json_add_count(o, "kicks_sent", h->valid, h->kicks_sent);
	json_add_count(o, "kicks_received", h->valid, h->kicks_received);
	json_add_count(o, "spurious_wakeups", h->valid, h->spurious_wakeups);
	json_add_count(o, "early_halts", h->early_halts_valid, h->early_halts);
	json_add_double(o, "kick_latency_p50_ns", h->kick_p50_ns);
	json_add_double(o, "kick_latency_p99_ns", h->kick_p99_ns);
	json_add_double(o, "kick_latency_max_ns", h->kick_max_ns);
	json_add_count(o, "kicks_timed", h->valid, h->kicks_timed);
	if (!h->valid)
		json_add_str(o, "unavailable", h->why);
	else if (!h->early_halts_valid)
		json_add_str(o, "early_halts_unavailable",
			     "no steal time: the guest cannot see a preempted vCPU");
	/* beside unavailable too: the reason the kick_latency_* metrics read (model/metrics.c) */
	if (h->kick_why)
		json_add_str(o, "kick_latency_unavailable", h->kick_why);
	for (unsigned s = 0; s < HALT_STAT_COUNT; s++) {
		json_add_count(kvm, halt_stat_name((enum halt_stat)s), h->kvm_valid[s], h->kvm[s]);
		kvm_missing |= !h->kvm_valid[s];
	}
	json_add(o, "kvm", kvm);
	if (kvm_missing)
		json_add_str(o, "kvm_unavailable", halt_stat_why(r));
	return o;
}

static void print_kvm(FILE *out, const struct variant_result *r, const struct halt_path *h)
{
	const char *sep = "; KVM: ";
	bool missing = false;
	unsigned have = 0;
	for (unsigned s = 0; s < HALT_STAT_COUNT; s++)
		have += h->kvm_valid[s];
	if (!have) {
		printable_printf(out, "; KVM halt stats n/a (%s)", halt_stat_why(r));
		return;
	}
	for (unsigned s = 0; s < HALT_STAT_COUNT; s++) {
		if (!h->kvm_valid[s]) {
			missing = true;
			continue;
		}
		printable_printf(out, "%s%s %llu", sep, halt_stat_name((enum halt_stat)s),
				 (unsigned long long)h->kvm[s]);
		sep = ", ";
	}
	if (missing)
		printable_printf(out, "%sothers n/a (%s)", sep, halt_stat_why(r));
}

static void print_halt_path(FILE *out, const struct variant_result *r, const struct halt_path *h)
{
	char a[32], b[32], c[32];
	fprintf(out, "%llu halts, %llu kicks sent, %llu received, %llu spurious wake-ups, ",
		(unsigned long long)h->halts, (unsigned long long)h->kicks_sent,
		(unsigned long long)h->kicks_received, (unsigned long long)h->spurious_wakeups);
	if (h->early_halts_valid)
		fprintf(out, "%llu early halts (preempted predecessor)",
			(unsigned long long)h->early_halts);
	else
		fprintf(out, "early halts n/a (no steal time)");
	if (h->kick_why)
		printable_printf(out, "; kick-to-running n/a (%s)", h->kick_why);
	else
		printable_printf(out, "; kick-to-running p50 %s p99 %s max %s",
				 units_duration_ns(h->kick_p50_ns, a, sizeof(a)),
				 units_duration_ns(h->kick_p99_ns, b, sizeof(b)),
				 units_duration_ns(h->kick_max_ns, c, sizeof(c)));
	print_kvm(out, r, h);
}

void halt_path_print(FILE *out, const struct outcome *rep)
{
	for (unsigned i = 0; i < rep->nr_series; i++) {
		const struct series *s = &rep->series[i];
		if (s->variant.lock != PLERIG_LOCK_PVQSPIN || !s->nr_runs || !s->runs[0].ok)
			continue;
		const struct variant_result *r = &s->runs[0];
		const struct variant *v = &s->variant;
		struct halt_path h;
		halt_path_for_variant(r, &h);
		printable_printf(out, "halt-path (%s %s %s %ux%u/%u%s): ", backend_name(v->backend),
				 lock_name(v->lock), relax_name(v->relax), v->vms, v->vcpus,
				 v->nr_pcpus, s->nr_runs > 1 ? ", first run" : "");
		if (h.valid)
			print_halt_path(out, r, &h);
		else
			printable_printf(out, "n/a: %s", h.why);
		fputc('\n', out);
	}
}
