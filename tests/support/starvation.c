// SPDX-License-Identifier: GPL-2.0
#include "support/starvation.h"

#include <check.h>
#include <stdio.h>

uint64_t unit_progress(const struct plerig_vcpu_result *g)
{
	return g->acquisitions + g->unmeasured_acquisitions;
}

int starved_unit(const struct variant_result *r, char *why, size_t len)
{
	for (unsigned i = 0; i < r->nr_records; i++) {
		const struct vcpu_record *rec = &r->records[i];
		if (unit_progress(&rec->guest) > 0)
			continue;
		snprintf(why, len,
			 "VM %u vCPU %u (CPU %d) never got the lock: %.1f ms on its CPU, %.1f ms "
			 "waiting for it in the %.2f s interval",
			 rec->vm, rec->vcpu, rec->host_cpu, rec->sched.run_ns / 1e6,
			 rec->sched.wait_ns / 1e6, r->interval_s);
		return (int)i;
	}
	return -1;
}

void assert_fair_lock_starves_nobody(const struct variant *v, checked_run_fn run)
{
	char why[160];
	for (unsigned attempt = 1; attempt <= STARVATION_RUNS; attempt++) {
		struct variant_result r;
		run(v, &r);
		const int starved = starved_unit(&r, why, sizeof(why));
		variant_result_free(&r);
		if (starved < 0)
			return;
		fprintf(stderr, "%s/%s, run %u of %d: %s\n", lock_name(v->lock),
			relax_name(v->relax), attempt, STARVATION_RUNS, why);
	}
	ck_abort_msg("%s/%s: a fair lock starved a vCPU in %d runs in a row (the last: %s)",
		     lock_name(v->lock), relax_name(v->relax), STARVATION_RUNS, why);
}
