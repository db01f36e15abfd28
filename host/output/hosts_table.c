// SPDX-License-Identifier: GPL-2.0
#include "output/hosts_table.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "measure/host_info.h"
#include "model/backend_limits.h"
#include "model/metrics.h"
#include "output/units.h"
#include "util/cpulist.h"
#include "util/printable.h"

/* What every host is shown by: its throughput, then what its PLE did per acquisition. */
static const char *const shown[] = {"acq_per_s", "ple_exits_per_acq", "ple_window_updates_per_acq"};
#define NR_SHOWN (sizeof(shown) / sizeof(shown[0]))
#define KEY_MAX	 160

/* "kvm ticket/pause ring kernel PLE on 1x2 on 0": a variant as each host ran it. */
static void variant_key(const struct variant *v, char *buf, size_t len)
{
	char cpus[64], poll[48];
	cpulist_format(v->pcpus, v->nr_pcpus, cpus, sizeof(cpus));
	snprintf(buf, len, "%s %s/%s ring %s PLE %s%s %ux%u on %s", backend_name(v->backend),
		 lock_name(v->lock), relax_name(v->relax), ring_name(v->ring),
		 variant_ple_na(v) ? "n/a" : ple_name(v->ple),
		 halt_poll_label(v, poll, sizeof(poll)), v->vms, v->vcpus, cpus);
}

/* "emulated seconds" of "emulated seconds: Bochs' instruction clock, ...". */
static int clock_len(const char *clock)
{
	return (int)strcspn(clock, ":");
}

/* One host: what it is, its module and PLE parameters, its seconds; or why it is not known. */
static void identity(FILE *f, const struct run_host *h, int width)
{
	const struct host_info *i = &h->info;
	char module[256];
	host_kvm_module_text(i, module, sizeof(module));
	printable_printf(f, "  %-*s  %s; %s: %s", width, h->label,
			 i->hypervisor[0] ? i->hypervisor : i->cpu_model, module,
			 i->ple_params[0] ? i->ple_params : "no PLE parameters");
	if (i->clock[0])
		printable_printf(f, "; times in %.*s", clock_len(i->clock), i->clock);
	if (h->error[0])
		printable_printf(f, "; did not run: %s", h->error);
	fputc('\n', f);
}

/* Do two hosts differ in what they are (CPU, emulated CPU, KVM module)? */
static bool other_hardware(const struct host_info *a, const struct host_info *b)
{
	return strcmp(a->cpu_model, b->cpu_model) || strcmp(a->hypervisor, b->hypervisor) ||
	       strcmp(a->kvm_module, b->kvm_module);
}

/* "different hardware" over the hosts that ran: each one's figures are its own design's. */
static void hardware_note(FILE *f, const struct outcome *rep)
{
	const struct run_host *first = NULL;
	bool differ = false;
	for (unsigned h = 0; h < rep->nr_hosts; h++) {
		if (rep->hosts[h].error[0])
			continue;
		if (first && other_hardware(&first->info, &rep->hosts[h].info))
			differ = true;
		if (!first)
			first = &rep->hosts[h];
	}
	if (differ)
		printable_printf(f,
				 "  different hardware: each host's figures are its own CPU's and "
				 "KVM module's, side by side, not a change of one host (no host is "
				 "another's reference)\n");
}

/* A figure of @s (its mean over the ok runs) as the table shows it. */
static const char *cell(const struct series *s, unsigned m, char *buf, size_t len)
{
	unsigned ok = 0;
	for (unsigned r = 0; r < s->nr_runs; r++)
		ok += s->runs[r].ok;
	if (!ok)
		return s->nr_runs ? "failed" : "not run";
	const struct sample_stats *st = s->stats ? &s->stats[m] : NULL;
	if (!st || !st->n || !isfinite(st->mean))
		return "n/a";
	if (!strcmp(metrics[m].name, "acq_per_s"))
		return units_count(st->mean, buf, len);
	snprintf(buf, len, "%.4g", st->mean);
	return buf;
}

/* The reasons behind the table's n/a cells, each host's and figure's once. */
static void reasons(FILE *f, const struct outcome *rep, const unsigned *idx)
{
	struct {
		const char *why;
		unsigned host, k;
	} *said = calloc(rep->nr_series * NR_SHOWN + 1, sizeof(*said));
	unsigned n = 0;
	for (unsigned i = 0; said && i < rep->nr_series; i++) {
		const struct series *s = &rep->series[i];
		for (unsigned k = 0; k < NR_SHOWN; k++) {
			const struct sample_stats *st = s->stats ? &s->stats[idx[k]] : NULL;
			const char *why = series_metric_why(s, &metrics[idx[k]]);
			if (!why || (st && st->n))
				continue;
			bool again = false;
			for (unsigned j = 0; j < n && !again; j++)
				again = said[j].host == s->variant.host && said[j].k == k &&
					!strcmp(said[j].why, why);
			if (again)
				continue;
			said[n].why = why;
			said[n].host = s->variant.host;
			said[n++].k = k;
			printable_printf(f, "  %s n/a on %s: %s\n", metrics[idx[k]].label,
					 outcome_host_name(rep, &s->variant), why);
		}
	}
	free(said);
}

void hosts_table_print(FILE *f, const struct outcome *rep)
{
	if (rep->nr_hosts < 2)
		return;
	unsigned idx[NR_SHOWN];
	for (unsigned k = 0; k < NR_SHOWN; k++)
		idx[k] = (unsigned)(metric_by_name(shown[k]) - metrics);
	int width = 4;
	for (unsigned h = 0; h < rep->nr_hosts; h++)
		if ((int)strlen(rep->hosts[h].label) > width)
			width = (int)strlen(rep->hosts[h].label);
	printable_printf(f,
			 "\nhosts side by side (each host's mean over its ok runs, in its own "
			 "seconds; ple/acq: PAUSE-loop exits, win/acq: PLE window (kvm_intel) or "
			 "pause filter count (kvm_amd) updates, per lock acquisition)\n");
	for (unsigned h = 0; h < rep->nr_hosts; h++)
		identity(f, &rep->hosts[h], width);
	hardware_note(f, rep);
	/* each variant once, its hosts under it in --connect order */
	char(*keys)[KEY_MAX] = calloc(rep->nr_series + 1, sizeof(*keys));
	if (!keys)
		return;
	int kw = 7;
	for (unsigned i = 0; i < rep->nr_series; i++) {
		variant_key(&rep->series[i].variant, keys[i], sizeof(keys[i]));
		if ((int)strlen(keys[i]) > kw)
			kw = (int)strlen(keys[i]);
	}
	printable_printf(f, "  %-*s  %-*s", kw, "variant", width, "host");
	for (unsigned k = 0; k < NR_SHOWN; k++)
		printable_printf(f, "  %9s", metrics[idx[k]].label);
	fputc('\n', f);
	for (unsigned i = 0; i < rep->nr_series; i++) {
		bool before = false;
		for (unsigned j = 0; j < i && !before; j++)
			before = !strcmp(keys[j], keys[i]);
		if (before)
			continue;
		for (unsigned h = 0; h < rep->nr_hosts; h++)
			for (unsigned j = i; j < rep->nr_series; j++) {
				const struct series *s = &rep->series[j];
				if (s->variant.host != h || strcmp(keys[j], keys[i]))
					continue;
				printable_printf(f, "  %-*s  %-*s", kw, j == i ? keys[i] : "",
						 width, rep->hosts[h].label);
				for (unsigned k = 0; k < NR_SHOWN; k++) {
					char b[UNITS_BUF_SIZE];
					printable_printf(f, "  %9s", cell(s, idx[k], b, sizeof(b)));
				}
				fputc('\n', f);
			}
	}
	free(keys);
	reasons(f, rep, idx);
}
