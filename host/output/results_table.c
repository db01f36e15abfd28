// SPDX-License-Identifier: GPL-2.0
#include "output/results_table.h"

#include <math.h>

#include "model/backend_limits.h"
#include "output/units.h"
#include "util/printable.h"

/*
 * Widths fit the widest value each column can hold ("pvqspin", "rep-pause",
 * "64x64/1024", units_* output), so rows stay aligned whatever they show.
 */
enum column {
	COL_BACKEND,
	COL_LOCK,
	COL_RELAX,
	COL_RING,
	COL_PLE,
	COL_HALT_POLL,
	COL_PLACEMENT,
	COL_ACQ,
	COL_WAIT_P50,
	COL_WAIT_P99,
	COL_WAIT_MAX,
	COL_STALLS,
	COL_STALLED,
	COL_LHP,
	COL_RUN_DELAY,
	COL_EXITS,
	COL_PLE_EXITS,
	COL_COUNT
};

/* Identity columns read left to right, figures align on their units. */
#define LEFT  1
#define RIGHT 0

static const struct {
	const char *head;
	int width;
	int left;
	const char *legend;
} columns[COL_COUNT] = {
    [COL_BACKEND] = {"backend", 16, LEFT,
		     "VMM running the guests (kvm: plerig's own, on /dev/kvm; libvirt: QEMU; "
		     "libvirt-emulated: QEMU's TCG, no KVM: emulated timings)"},
    [COL_LOCK] =
	{"lock", 7, LEFT,
	 "spin lock: ticket (fair FIFO), tas (test-and-test-and-set), mcs (queued), pvqspin "
	 "(queued, halts and is kicked)"},
    [COL_RELAX] = {"relax", 9, LEFT,
		   "spin-loop body: pause, nop, rep-pause, none, or pv-yield (PAUSE, and every "
		   "--pv-yield-spins a yield to the vCPU waited for: KVM_HC_SCHED_YIELD, "
		   "natively sched_yield); PAUSE is what PLE counts"},
    [COL_RING] = {"ring", 6, LEFT, "guest privilege level the lock storm runs at"},
    [COL_PLE] = {"ple", 3, LEFT,
		 "hardware PAUSE interception of the VM: on (host settings) or off (this VM "
		 "only); n/a where nothing intercepts PAUSE, with the reason below"},
    [COL_HALT_POLL] = {"halt-poll", 9, LEFT,
		       "KVM's halt polling of the VM (--halt-poll): host = kvm.halt_poll_ns as the "
		       "host has it; n/a where there is no KVM, with the reason below"},
    [COL_PLACEMENT] = {"placement", 10, LEFT,
		       "VMSxVCPUS/PCPUS: VMs x vCPUs per VM on that many host CPUs "
		       "(1x4/1: 4 vCPUs share 1 CPU)"},
    [COL_ACQ] = {"acq/s", 6, RIGHT, "lock acquisitions per second, all vCPUs of all VMs"},
    [COL_WAIT_P50] = {"wait-p50", 8, RIGHT,
		      "median wait from first try to holding the lock (all vCPUs merged), "
		      "2 significant digits: read from histogram buckets up to 12.5 % wide "
		      "(the JSON has each percentile's bucket)"},
    [COL_WAIT_P99] = {"wait-p99", 8, RIGHT, "99th percentile of that wait, likewise"},
    [COL_WAIT_MAX] = {"wait-max", 8, RIGHT, "longest single wait"},
    [COL_STALLS] = {"stalls", 6, RIGHT, "waits longer than --stall-us"},
    [COL_STALLED] = {"stalled", 7, RIGHT,
		     "share of vCPU time spent in those stalled waits; it includes the waiter's "
		     "own time off the CPU, so with more vCPUs than CPUs it is at least about "
		     "the run-delay share"},
    [COL_LHP] = {"lhp", 6, RIGHT,
		 "lock-holder preemptions: holds longer than --stall-us, as when "
		 "the holder's vCPU is descheduled"},
    [COL_RUN_DELAY] = {"run-delay", 9, RIGHT,
		       "share of vCPU-thread time runnable but waiting for a host CPU "
		       "(schedstat)"},
    [COL_EXITS] =
	{"exits", 6, RIGHT,
	 "KVM exits of all vCPUs while measuring (n/a where they cannot be had, "
	 "with the reason below); on PVM (kvm_pvm) these are host interrupts taken while the guest "
	 "ran (timer ticks, IPIs: exits = irq_exits + 1 per vCPU, irq_exits in the "
	 "JSON), nothing the lock storm itself does"},
    [COL_PLE_EXITS] = {"ple-exits", 9, RIGHT,
		       "PAUSE-loop exits of all vCPUs while measuring (kvm:kvm_exit with the PAUSE "
		       "reason); n/a where this host cannot count them, with the reason below"},
};

static void cell(FILE *f, enum column c, const char *text)
{
	int w = columns[c].width;

	printable_printf(f, "%s%*s", c ? "  " : "", columns[c].left ? -w : w, text);
}

void results_table_header(FILE *f)
{
	for (int c = 0; c < COL_COUNT; c++)
		cell(f, (enum column)c, columns[c].head);
	fputc('\n', f);
}

static void identity_cells(FILE *f, const struct variant *v)
{
	char placement[48], poll[UNITS_BUF_SIZE];

	snprintf(placement, sizeof(placement), "%ux%u/%u", v->vms, v->vcpus, v->nr_pcpus);
	cell(f, COL_BACKEND, backend_name(v->backend));
	cell(f, COL_LOCK, lock_name(v->lock));
	cell(f, COL_RELAX, relax_name(v->relax));
	cell(f, COL_RING, ring_name(v->ring));
	/* a setting the backend does not have is n/a, not "on" (ple_notes.c says why) */
	cell(f, COL_PLE, variant_ple_na(v) ? "n/a" : ple_name(v->ple));
	cell(f, COL_HALT_POLL,
	     variant_halt_poll_na(v) ? "n/a"
	     : v->halt_poll_ns == HALT_POLL_HOST
		 ? "host"
		 : units_duration_ns((double)v->halt_poll_ns, poll, sizeof(poll)));
	cell(f, COL_PLACEMENT, placement);
}

static void figure_cells(FILE *f, const struct figures *fig)
{
	char b[UNITS_BUF_SIZE];

	cell(f, COL_ACQ, units_count(fig->acq_per_s, b, sizeof(b)));
	/* from buckets up to 12.5 % wide: a third digit would be noise */
	cell(f, COL_WAIT_P50, units_duration_ns_2sig(fig->wait_p50_ns, b, sizeof(b)));
	cell(f, COL_WAIT_P99, units_duration_ns_2sig(fig->wait_p99_ns, b, sizeof(b)));
	cell(f, COL_WAIT_MAX, units_duration_ns(fig->wait_max_ns, b, sizeof(b)));
	cell(f, COL_STALLS, units_count((double)fig->stalls, b, sizeof(b)));
	cell(f, COL_STALLED, units_percent(fig->stalled_share, b, sizeof(b)));
	cell(f, COL_LHP, units_count((double)fig->holder_preemptions, b, sizeof(b)));
	cell(f, COL_RUN_DELAY, units_percent(fig->run_delay_share, b, sizeof(b)));
	cell(f, COL_EXITS,
	     fig->exits_valid ? units_count((double)fig->exits, b, sizeof(b)) : "n/a");
	cell(f, COL_PLE_EXITS,
	     fig->pause_loop_exits_valid ? units_count((double)fig->pause_loop_exits, b, sizeof(b))
					 : "n/a");
}

void results_table_row(FILE *f, const struct variant_result *r)
{
	struct figures fig;

	identity_cells(f, &r->variant);
	if (!r->ok) {
		printable_printf(f, "  FAILED: %s\n", r->error[0] ? r->error : "unknown error");
		return;
	}
	figures_for_variant(r, &fig);
	figure_cells(f, &fig);
	fputc('\n', f);
}

void results_table_legend(FILE *f)
{
	for (int c = 0; c < COL_COUNT; c++)
		printable_printf(f, "  %-10s %s\n", columns[c].head, columns[c].legend);
}

void results_table_host_legend(FILE *f)
{
	printable_printf(
	    f, "  %-10s %s\n", "host",
	    "the machine the variant ran on (--connect LIST): its name, or name(N) where two "
	    "share one; the JSON's hosts has each one's identity");
}

void results_table_clock_legend(FILE *f, const struct outcome *rep)
{
	for (unsigned i = 0; i < rep->nr_hosts; i++)
		if (rep->hosts[i].info.clock[0])
			printable_printf(
			    f, "  %-10s on host %s every time and rate (acq/s, waits) is in %s\n",
			    "seconds", rep->hosts[i].label, rep->hosts[i].info.clock);
}

void results_table_host(FILE *f, const char *host)
{
	/* outcome labels are up to 63 bytes; most host names fit in 16 */
	printable_printf(f, "%-16s  ", host);
}
