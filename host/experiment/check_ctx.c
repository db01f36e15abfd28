// SPDX-License-Identifier: GPL-2.0
#include "experiment/check_ctx.h"

#include "experiment/host_identity.h"
#include "model/connect_list.h"
#include "util/cpulist.h"
#include "util/errbuf.h"
#include "util/strfmt.h"

void check_variant_label(const struct variant *v, char *buf, size_t len)
{
	char cpus[256];
	cpulist_format(v->pcpus, v->nr_pcpus, cpus, sizeof(cpus));
	char poll[48];
	(void)pathf(buf, len, "%s %s %s %s %ux%u ple=%s%s pcpus=%s", backend_name(v->backend),
		    lock_name(v->lock), relax_name(v->relax), ring_name(v->ring), v->vms, v->vcpus,
		    ple_name(v->ple), halt_poll_label(v, poll, sizeof(poll)), cpus);
}

const struct metric *const *check_scenario_metrics(const struct check_ctx *k,
						   const struct scenario *s, unsigned *n)
{
	*n = s->metrics_given ? s->nr_metrics : k->c->nr_metrics;
	return s->metrics_given ? s->metrics : k->c->metrics;
}

bool check_judges_metrics(const struct check_ctx *k)
{
	return k->c->baseline_loaded || k->c->aa || k->c->record || k->c->no_baseline;
}

void check_scenario_place(const struct check_ctx *k, const struct scenario *s,
			  struct check_place *p)
{
	struct connect_list hosts;
	char err[ERRBUF_SIZE];
	if (k->c->on_host) {
		/* check --connect runs every scenario there, whatever its own --connect */
		p->elsewhere = !host_is_this_machine(k->c->connect_uri);
		p->here = p->elsewhere ? 0 : k->c->hosts_here;
		return;
	}
	/* checked when the suite was read */
	if (connect_list_parse(s->plan->connect_uri, &hosts, err, sizeof(err)) || !hosts.nr) {
		*p = (struct check_place){.here = 1};
		return;
	}
	p->here = 0;
	for (unsigned i = 0; i < hosts.nr; i++)
		p->here += host_is_this_machine(connect_list_uri(&hosts, i));
	p->elsewhere = p->here < hosts.nr;
}
