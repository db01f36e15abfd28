// SPDX-License-Identifier: GPL-2.0
#include "model/tune_space.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/errbuf.h"
#include "util/strfmt.h"

#define U32_MAX 4294967295ull
#define U16_MAX 65535ull

/*
 * The tuning anchors (shared/DESIGN.md): Linux's defaults and what they
 * rest on. Windows span 2^8..2^20, where a spin loop ends in 100 ns to a
 * millisecond on any CPU of the last 15 years: below it every short
 * critical section exits, above it the window outlasts a host timeslice.
 */
static const struct tune_param_info params[] = {
    {"ple_window", "kvm_intel", 4096,
     "Linux 2009: 'most spinlocks are held for less than 2^12 cycles', one +2 % kernel build", 8,
     20, 2, 0.5, U32_MAX, NULL, "TSC cycles", true},
    {"ple_gap", "kvm_intel", 128, "Linux 2009, with ple_window", 4, 10, 1, 0.5, U32_MAX,
     "PAUSE-loop exiting off for every VM (tuned's realtime-virtual-host)", "TSC cycles", false},
    {"ple_window_grow", "kvm_intel", 2, "the dynamic window, Linux 2014, no benchmark", 0, 4, 1, 1,
     U32_MAX, "the window never grows", "factor", false},
    {"ple_window_shrink", "kvm_intel", 0, "the dynamic window, Linux 2014, no benchmark", 0, 4, 1,
     1, U32_MAX, "back to ple_window at once", "divisor", false},
    {"ple_window_max", "kvm_intel", U32_MAX, "the dynamic window, Linux 2014, no benchmark", 12, 32,
     2, 0.5, U32_MAX, NULL, "TSC cycles", true},
    {"pause_filter_count", "kvm_amd", 3000, "Linux 2009, one +1 % kernbench", 8, 16, 2, 0.5,
     U16_MAX, NULL, "PAUSEs", true},
    {"pause_filter_thresh", "kvm_amd", 128, "Linux 2009, with pause_filter_count", 4, 10, 1, 0.5,
     U16_MAX,
     "PAUSE exiting off for every VM (kvm_amd lets PAUSE run in the guest without a threshold)",
     "cycles", false},
    {"pause_filter_count_grow", "kvm_amd", 2, "the dynamic window, Linux 2018, no benchmark", 0, 4,
     1, 1, U16_MAX, "the count never grows", "factor", false},
    {"pause_filter_count_shrink", "kvm_amd", 0, "the dynamic window, Linux 2018, no benchmark", 0,
     4, 1, 1, U16_MAX, "back to pause_filter_count at once", "divisor", false},
    {"pause_filter_count_max", "kvm_amd", U16_MAX, "the dynamic window, Linux 2018, no benchmark",
     8, 16, 2, 0.5, U16_MAX, NULL, "PAUSEs", true},
    {"halt_poll_ns", "kvm", 200000, "KVM's x86 default (the guest-side haltpoll: 200 us)", 10, 22,
     2, 0.5, U32_MAX, "no polling: a halted vCPU sleeps at once", "ns", false},
    {"halt_poll_ns_grow", "kvm", 2, "Linux default", 0, 4, 1, 1, U32_MAX,
     "the poll time never grows", "factor", false},
    {"halt_poll_ns_grow_start", "kvm", 10000, "Linux default", 10, 20, 1, 0.5, U32_MAX, NULL, "ns",
     false},
    {"halt_poll_ns_shrink", "kvm", 2, "Linux default since 2024 (0 before)", 0, 4, 1, 1, U32_MAX,
     "back to 0 at once", "divisor", false},
};

const struct tune_param_info *tune_param_info(const char *name)
{
	for (size_t i = 0; i < sizeof(params) / sizeof(params[0]); i++)
		if (!strcmp(params[i].name, name))
			return &params[i];
	return NULL;
}

const char *tune_params_known(void)
{
	static char text[512];
	if (!text[0]) {
		size_t used = 0;
		for (size_t i = 0; i < sizeof(params) / sizeof(params[0]) && used < sizeof(text);
		     i++)
			used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%s",
						 i ? ", " : "", params[i].name);
	}
	return text;
}

int tune_space_init(struct tune_space *s, const char *name, char *err, size_t errlen)
{
	const struct tune_param_info *p = tune_param_info(name);
	memset(s, 0, sizeof(*s));
	if (!p)
		return errbuf_printf(err, errlen, "tune cannot search %s: it searches %s", name,
				     tune_params_known());
	str_copy(s->param, sizeof(s->param), name);
	s->info = p;
	s->lo = p->lo;
	s->hi = p->hi;
	s->coarse = p->coarse;
	s->fine = p->fine;
	s->max = p->max;
	s->zero = p->zero != NULL;
	s->kernel_default = p->kernel_default;
	return 0;
}

int tune_space_set_range(struct tune_space *s, uint64_t lo, uint64_t hi, char *err, size_t errlen)
{
	if (lo < 1 || lo >= hi || hi > s->max)
		return errbuf_printf(err, errlen,
				     "%s=%llu..%llu: the range needs 1 <= LO < HI <= %llu (%s's "
				     "largest value)",
				     s->param, (unsigned long long)lo, (unsigned long long)hi,
				     (unsigned long long)s->max, s->info->module);
	s->lo = log2((double)lo);
	s->hi = log2((double)hi);
	/* a narrow range still gets a coarse grid of at least three values */
	if ((s->hi - s->lo) / s->coarse < 2.0)
		s->coarse = (s->hi - s->lo) / 2.0;
	if (s->fine > s->coarse)
		s->fine = s->coarse;
	return 0;
}

uint64_t tune_space_value(const struct tune_space *s, double e)
{
	double v = round(exp2(e));
	if (v >= (double)s->max)
		return s->max;
	return v < 1.0 ? 1 : (uint64_t)v;
}
