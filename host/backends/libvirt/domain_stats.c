// SPDX-License-Identifier: GPL-2.0
#include "backends/libvirt/domain_stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/libvirt/connection.h"
#include "util/errbuf.h"

static bool as_u64(const virTypedParameter *p, uint64_t *out)
{
	switch (p->type) {
	case VIR_TYPED_PARAM_ULLONG:
		*out = p->value.ul;
		return true;
	case VIR_TYPED_PARAM_LLONG:
		*out = p->value.l >= 0 ? (uint64_t)p->value.l : 0;
		return p->value.l >= 0;
	case VIR_TYPED_PARAM_UINT:
		*out = p->value.ui;
		return true;
	default:
		return false;
	}
}

/* "NAME.sum" of a KVM stat plerig reports, or -1. */
static int kvm_stat_of(const char *field)
{
	for (int s = 0; s < KVM_STAT_COUNT; s++) {
		const char *name = kvm_stat_name((enum kvm_vcpu_stat)s);
		const size_t n = strlen(name);
		if (!strncmp(field, name, n) && !strcmp(field + n, ".sum"))
			return s;
	}
	return -1;
}

void lv_stats_parse(const virTypedParameter *params, int nparams, unsigned nr,
		    struct lv_vcpu_stats *out)
{
	memset(out, 0, nr * sizeof(out[0]));
	for (int i = 0; i < nparams; i++) {
		const virTypedParameter *p = &params[i];
		unsigned vcpu;
		int used = 0;
		uint64_t v;
		if (sscanf(p->field, "vcpu.%u.%n", &vcpu, &used) != 1 || !used || vcpu >= nr ||
		    !as_u64(p, &v))
			continue;
		const char *field = p->field + used;
		struct lv_vcpu_stats *o = &out[vcpu];
		int s;
		if (!strcmp(field, "delay")) {
			o->delay_ns = v;
			o->delay_valid = true;
		} else if (!strcmp(field, "time")) {
			o->time_ns = v;
			o->time_valid = true;
		} else if ((s = kvm_stat_of(field)) >= 0) {
			o->kvm.value[s] = v;
			o->kvm.valid[s] = true;
		}
	}
}

int lv_stats_read(virDomainPtr *doms, unsigned n, unsigned nr_vcpus, struct lv_vcpu_stats *out,
		  char *err, size_t errlen)
{
	virDomainPtr *list = calloc(n + 1, sizeof(*list));
	virDomainStatsRecordPtr *recs = NULL;
	if (!list)
		return errbuf_printf(err, errlen, "out of memory for %u domains", n);
	memcpy(list, doms, n * sizeof(*list));
	memset(out, 0, (size_t)n * nr_vcpus * sizeof(out[0]));
	const int got = virDomainListGetStats(list, VIR_DOMAIN_STATS_VCPU, &recs, 0);
	free(list);
	if (got < 0)
		return errbuf_printf(err, errlen, "libvirt's vCPU stats: %s", lv_last_error());
	/* records come back in no promised order: match them by name */
	for (int r = 0; r < got; r++) {
		const char *name = virDomainGetName(recs[r]->dom);
		for (unsigned d = 0; name && d < n; d++)
			if (!strcmp(name, virDomainGetName(doms[d])))
				lv_stats_parse(recs[r]->params, recs[r]->nparams, nr_vcpus,
					       &out[d * nr_vcpus]);
	}
	virDomainStatsRecordListFree(recs);
	return 0;
}
