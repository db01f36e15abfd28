// SPDX-License-Identifier: GPL-2.0
#include "model/exit_time_figures.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double ratio(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

static int by_time(const void *a, const void *b)
{
	const struct exit_reason_time *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return x->reason < y->reason ? -1 : x->reason > y->reason;
}

/* Sums of @n vCPUs' exit times: the table of reasons merged, the top ones kept. */
static void sum(const struct variant_result *r, const struct vcpu_record *recs, unsigned n,
		struct exit_time_figures *out)
{
	struct exit_reason_time merged[EXIT_TIMES_REASONS * 2];
	unsigned nr = 0;

	memset(out, 0, sizeof(*out));
	out->valid = n > 0;
	for (unsigned i = 0; i < n; i++) {
		const struct exit_times *t = &recs[i].exit_times;
		out->valid &= t->valid;
		out->exits += t->exits;
		out->ns += (double)t->ns;
		out->seen += t->seen;
		out->cut += t->cut;
		out->unpaired += t->unpaired;
		out->lost += t->lost;
		for (unsigned k = 0; k < t->nr_reasons; k++) {
			unsigned j = 0;
			while (j < nr && merged[j].reason != t->reason[k].reason)
				j++;
			if (j == nr) {
				if (nr == sizeof(merged) / sizeof(merged[0]))
					continue; /* only in the top list: the totals hold it */
				merged[nr++] = (struct exit_reason_time){t->reason[k].reason, 0, 0};
			}
			merged[j].count += t->reason[k].count;
			merged[j].ns += t->reason[k].ns;
		}
	}
	if (!out->valid) {
		memset(out, 0, sizeof(*out));
		out->mean_ns = out->ple_mean_ns = out->share = out->ple_share = NAN;
		return;
	}
	qsort(merged, nr, sizeof(merged[0]), by_time);
	out->nr_top = nr < EXIT_FIGURES_TOP ? nr : EXIT_FIGURES_TOP;
	memcpy(out->top, merged, out->nr_top * sizeof(merged[0]));
	const double measured_ns = (double)n * r->interval_s * 1e9;
	out->mean_ns = ratio(out->ns, (double)out->exits);
	out->share = ratio(out->ns, measured_ns);
	out->ple_valid = r->ple_exit_reason != 0;
	out->ple_mean_ns = out->ple_share = NAN;
	if (!out->ple_valid)
		return;
	for (unsigned j = 0; j < nr; j++)
		if (merged[j].reason == r->ple_exit_reason) {
			out->ple_exits = merged[j].count;
			out->ple_ns = (double)merged[j].ns;
		}
	out->ple_mean_ns = ratio(out->ple_ns, (double)out->ple_exits);
	out->ple_share = ratio(out->ple_ns, measured_ns);
}

void exit_time_figures_for_vcpu(const struct variant_result *r, const struct vcpu_record *rec,
				struct exit_time_figures *out)
{
	sum(r, rec, 1, out);
}

void exit_time_figures_for_variant(const struct variant_result *r, struct exit_time_figures *out)
{
	sum(r, r->records, r->nr_records, out);
}

const char *exit_time_figures_why(const struct variant_result *r, const struct exit_time_figures *f)
{
	if (f->valid)
		return NULL;
	if (!r->variant.exit_times)
		return "not measured: run with --exit-times";
	return r->exit_times_why[0] ? r->exit_times_why : "not measured for every vCPU";
}

const char *exit_time_figures_ple_why(const struct variant_result *r,
				      const struct exit_time_figures *f)
{
	if (!f->valid || f->ple_valid)
		return NULL;
	return r->ple_why[0] ? r->ple_why : "this host has no PAUSE-loop exit reason";
}

struct reason_name {
	uint32_t reason;
	const char *name;
};

/* As kvm_exit's print fmt names them (arch/x86/include/uapi/asm/{vmx,svm}.h). */
static const struct reason_name vmx_names[] = {
    {0, "EXCEPTION_NMI"},
    {1, "EXTERNAL_INTERRUPT"},
    {7, "INTERRUPT_WINDOW"},
    {10, "CPUID"},
    {12, "HLT"},
    {18, "VMCALL"},
    {28, "CR_ACCESS"},
    {30, "IO_INSTRUCTION"},
    {31, "MSR_READ"},
    {32, "MSR_WRITE"},
    {40, "PAUSE_INSTRUCTION"},
    {44, "APIC_ACCESS"},
    {45, "EOI_INDUCED"},
    {48, "EPT_VIOLATION"},
    {49, "EPT_MISCONFIG"},
    {52, "PREEMPTION_TIMER"},
    {56, "APIC_WRITE"},
};
static const struct reason_name svm_names[] = {
    {0x04e, "PF excp"},
    {0x060, "interrupt"},
    {0x061, "nmi"},
    {0x064, "vintr"},
    {0x072, "cpuid"},
    {0x077, "pause"},
    {0x078, "hlt"},
    {0x07b, "io"},
    {0x07c, "msr"},
    {0x081, "hypercall"},
    {0x400, "npf"},
    {0x401, "avic_incomplete_ipi"},
    {0x402, "avic_unaccelerated_access"},
};

const char *exit_reason_name(const struct variant_result *r, uint32_t reason)
{
	const struct reason_name *t = NULL;
	size_t n = 0;
	if (r->ple_exit_reason == PLE_EXIT_REASON_VMX) {
		t = vmx_names;
		n = sizeof(vmx_names) / sizeof(vmx_names[0]);
	} else if (r->ple_exit_reason == PLE_EXIT_REASON_SVM) {
		t = svm_names;
		n = sizeof(svm_names) / sizeof(svm_names[0]);
	}
	for (size_t i = 0; i < n; i++)
		if (t[i].reason == reason)
			return t[i].name;
	return NULL;
}
