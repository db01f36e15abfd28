/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-vCPU figures from libvirt's bulk domain stats (the vCPU group of
 * virDomainListGetStats): on any host libvirt reaches, local or remote,
 * and without a QEMU monitor passthrough, which would taint the domain.
 *   vcpu.N.delay      run-queue wait of the vCPU thread, ns (its schedstat)
 *   vcpu.N.time       CPU time of the vCPU thread, in whole scheduler ticks
 *                     (/proc's utime + stime, 10 ms at USER_HZ 100)
 *   vcpu.N.NAME.sum   KVM's binary stats of the vCPU (QEMU's query-stats,
 *                     which libvirt asks for; libvirt >= 8.9)
 */
#ifndef PLERIG_LV_DOMAIN_STATS_H
#define PLERIG_LV_DOMAIN_STATS_H

#include <libvirt/libvirt.h>
#include <stdbool.h>
#include <stdint.h>

#include "measure/kvm_stats.h"

struct lv_vcpu_stats {
	bool delay_valid, time_valid;
	uint64_t delay_ns, time_ns;
	struct kvm_stats_snapshot kvm; /* a stat the host lacks stays invalid */
};

/* @out[i] for vCPU i < @nr from one domain's typed parameters; the rest cleared. */
void lv_stats_parse(const virTypedParameter *params, int nparams, unsigned nr,
		    struct lv_vcpu_stats *out);

/*
 * The vCPU group of @n domains in one call (one round trip on a remote
 * connection): @out[d * @nr_vcpus + i] for vCPU i of @doms[d]. 0, or -1
 * with @err saying what failed.
 */
int lv_stats_read(virDomainPtr *doms, unsigned n, unsigned nr_vcpus, struct lv_vcpu_stats *out,
		  char *err, size_t errlen);

#endif
