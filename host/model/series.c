// SPDX-License-Identifier: GPL-2.0
#include "model/series.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

unsigned series_values(const struct series *s, const struct metric *m, double *out)
{
	unsigned n = 0;
	for (unsigned i = 0; i < s->nr_runs; i++) {
		if (!s->runs[i].ok)
			continue;
		struct figures f;
		figures_for_variant(&s->runs[i], &f);
		double v = m->get(&f);
		if (!isnan(v))
			out[n++] = v;
	}
	return n;
}

int series_compute_stats(struct series *s)
{
	double *values = calloc(s->nr_runs ? s->nr_runs : 1, sizeof(*values));
	free(s->stats);
	s->stats = calloc(nr_metrics, sizeof(*s->stats));
	if (!values || !s->stats) {
		free(values);
		return -1;
	}
	for (unsigned m = 0; m < nr_metrics; m++)
		sample_stats_compute(values, series_values(s, &metrics[m], values), &s->stats[m]);
	free(values);
	return 0;
}

void series_free(struct series *s)
{
	for (unsigned i = 0; i < s->nr_runs; i++)
		variant_result_free(&s->runs[i]);
	free(s->runs);
	free(s->stats);
	s->runs = NULL;
	s->stats = NULL;
	s->nr_runs = 0;
}

static void read_cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 2;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

/* The PLE knobs of kvm_intel / kvm_amd, as the host has them now. */
static void read_ple_params(const char *module, char *buf, size_t len)
{
	static const char *const intel[] = {"ple_gap",	       "ple_window",
					    "ple_window_grow", "ple_window_shrink",
					    "ple_window_max",  NULL};
	static const char *const amd[] = {"pause_filter_count",	     "pause_filter_thresh",
					  "pause_filter_count_grow", "pause_filter_count_shrink",
					  "pause_filter_count_max",  NULL};
	const char *const *names = !strcmp(module, "kvm_intel") ? intel
				   : !strcmp(module, "kvm_amd") ? amd
								: NULL;
	size_t used = 0;
	buf[0] = '\0';
	for (unsigned i = 0; names && names[i]; i++) {
		char path[128], value[64];
		snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", module, names[i]);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(value, sizeof(value), f)) {
			value[strcspn(value, "\n")] = '\0';
			int n = snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "",
					 names[i], value);
			if (n > 0 && (size_t)n < len - used)
				used += (size_t)n;
		}
		fclose(f);
	}
}

void host_info_collect(struct host_info *h, const char *kvm_module)
{
	struct utsname u;
	cpu_set_t set;
	memset(h, 0, sizeof(*h));
	snprintf(h->kernel, sizeof(h->kernel), "%s", uname(&u) == 0 ? u.release : "unknown");
	snprintf(h->kvm_module, sizeof(h->kvm_module), "%s", kvm_module ? kvm_module : "none");
	read_cpu_model(h->cpu_model, sizeof(h->cpu_model));
	CPU_ZERO(&set);
	h->cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? (unsigned)CPU_COUNT(&set) : 0;
	h->cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
	read_ple_params(h->kvm_module, h->ple_params, sizeof(h->ple_params));
}

void report_free(struct report *r)
{
	for (unsigned i = 0; i < r->nr_series; i++)
		series_free(&r->series[i]);
	free(r->series);
	free(r->comparisons);
	r->series = NULL;
	r->comparisons = NULL;
	r->nr_series = r->nr_comparisons = 0;
}
