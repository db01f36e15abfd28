/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What QEMU's monitor says about the vCPUs, parsed from its QMP replies
 * (libvirt hands them over as text): query-cpus-fast for each vCPU's host
 * thread and QOM path, query-stats for KVM's binary statistics of each.
 */
#ifndef PLERIG_QMP_STATS_H
#define PLERIG_QMP_STATS_H

#include <stddef.h>
#include <sys/types.h>

#include "measure/kvm_stats.h"

#define QMP_QOM_PATH_MAX 96

struct qmp_vcpu {
	pid_t tid;
	char qom_path[QMP_QOM_PATH_MAX];
};

/* The query-stats command for the stats plerig reports (KVM's names). */
const char *qmp_query_stats_command(void);

/*
 * From a query-cpus-fast reply: @vcpus[cpu-index] for each of @nr vCPUs.
 * 0, or -1 with @err saying what was missing.
 */
int qmp_parse_cpus_fast(const char *reply, struct qmp_vcpu *vcpus, unsigned nr, char *err,
			size_t errlen);

/*
 * From a query-stats reply: @out[i] for the vCPU whose QOM path is
 * @vcpus[i].qom_path; a stat the reply lacks stays invalid (TCG has none).
 * 0, or -1 with @err for a reply that is not one.
 */
int qmp_parse_stats(const char *reply, const struct qmp_vcpu *vcpus, unsigned nr,
		    struct kvm_stats_snapshot *out, char *err, size_t errlen);

#endif
