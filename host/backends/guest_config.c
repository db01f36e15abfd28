// SPDX-License-Identifier: GPL-2.0
#include "backends/guest_config.h"

#include <string.h>

void guest_config_fill(struct plerig_config *cfg, const struct variant *v)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->magic = PLERIG_ABI_MAGIC;
	cfg->abi_version = PLERIG_ABI_VERSION;
	cfg->nr_vcpus = v->vcpus;
	cfg->lock = v->lock;
	cfg->relax = v->relax;
	cfg->ring = v->ring;
	cfg->inject = v->inject;
	cfg->pv_yield_spins = v->pv_yield_spins;
	cfg->pv_spin_threshold = v->pv_spin_threshold;
	cfg->cs_cycles = v->cs_cycles;
	cfg->think_cycles = v->think_cycles;
}

void guest_config_set_tsc(struct plerig_config *cfg, const struct variant *v, uint64_t tsc_khz)
{
	/* one threshold for both: a wait or a hold that long is a preemption, not the lock */
	const uint64_t stall = (uint64_t)(v->stall_us * (double)tsc_khz / 1000.0);
	cfg->tsc_khz = tsc_khz;
	cfg->stall_cycles = stall;
	cfg->hold_preempt_cycles = stall;
}
