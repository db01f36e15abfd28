// SPDX-License-Identifier: GPL-2.0
/*
 * `plerig run`'s options: this table is the only place one is declared.
 * getopt, --help, the man page and the range checks are all made from
 * it, so adding an option is one entry.
 */
#include "cli/run_options.h"

#include <limits.h>
#include <stdlib.h>

#include "cli/emulated_cli.h"
#include "cli/metric_options.h"
#include "cli/option_table.h"
#include "cli/run_option_parsers.h"
#include "model/names.h"
#include "model/verdict.h"
#include "util/errbuf.h"

#define SEE_HELP "see `plerig run --help`"

#define MAX_SECONDS	      3600.0
#define MAX_CYCLES	      1000000000ull
#define MAX_STALL_US	      1e9
#define MAX_REPEAT	      10000u
#define MAX_DISCARD	      100u
#define MAX_YIELD_SPIN	      100000000u
#define MAX_PV_SPIN_THRESHOLD 100000000u
#define MAX_HALT_POLL_NS      1000000000u /* 1 s: KVM keeps it in an unsigned int */

static const struct real_range positive_seconds = {0.0, true, MAX_SECONDS};
static const struct real_range seconds = {0.0, false, MAX_SECONDS};
static const struct real_range stall_range = {0.0, true, MAX_STALL_US};

#define UNSIGNED(f, lo, hi) OPT_UNSIGNED_FIELD(struct run_plan, f, lo, hi)
#define U64(f, lo, hi)	    OPT_U64_FIELD(struct run_plan, f, lo, hi)
#define REAL(f, range)	    OPT_REAL_FIELD(struct run_plan, f, range)
#define PATH(f)		    OPT_PATH_FIELD(struct run_plan, f)
#define FLAG(f)		    OPT_FLAG_FIELD(struct run_plan, f)
#define NAME(f, table)	    OPT_NAME_FIELD(struct run_plan, f, table)
#define NAMES(f, nr, table) OPT_NAME_LIST_FIELD(struct run_plan, f, nr, table)
#define CUSTOM(fn)	    .kind = OPT_CUSTOM, .parse = (fn)
#define HEADING(text)	    .kind = OPT_HEADING, .help = (text)

/* In --help order. */
static const struct opt_entry run_table[] = {
    {HEADING("Placement:")},
    {.name = "backend",
     .metavar = "LIST",
     NAMES(backends, nr_backends, backend_names),
     .help = "kvm: plerig's own VMM on /dev/kvm; native: the same storm on host threads, the "
	     "comparison without virtualisation; libvirt: QEMU through libvirt"},
    {.name = "connect",
     .metavar = "LIST",
     PATH(connect_uri),
     .help = "the connections, each to a host: libvirt URIs for --backend libvirt, e.g. "
	     "qemu:///system or "
	     "qemu+ssh://root@hostA/system,embedded (embedded: plerig's own embedded driver), "
	     "and emulated: an Intel CPU with VMX and PAUSE-loop exiting under Bochs, booting "
	     "--kernel with the real kvm_intel, where the kvm and native variants run (no "
	     "/dev/kvm needed; times in emulated seconds; emulated:amd: an AMD CPU with SVM and "
	     "the pause filter under Bochs 3.1, kvm_amd; emulated,emulated:amd: both side by "
	     "side on one kernel, one Bochs at a time). An axis of hosts, each running the "
	     "variants it can in its own schedule, all at once, with its own CPUs as the "
	     "--pcpus and --vcpus defaults; a host that cannot be reached is a failed row. auto "
	     "(alone, as make run gives it): this machine where /dev/kvm opens, else emulated",
     .def = "libvirt's embedded QEMU driver, no daemon, state in --cache-dir"},
    {.name = "accel",
     .metavar = "kvm|tcg",
     CUSTOM(parse_accel),
     .names = &accel_names,
     .help = "libvirt backend: QEMU with KVM, or its emulator TCG where there is no /dev/kvm; "
	     "TCG runs show as backend libvirt-emulated",
     .def = "kvm"},
    {.name = "cache-dir",
     .metavar = "DIR",
     PATH(cache_dir),
     .help = "where the embedded driver keeps its state and QEMU's capabilities between runs, "
	     "and the emulated host its kernels and L1 media",
     .def = "~/.cache/plerig"},
    {.name = "kernel",
     .metavar = "FILE",
     PATH(kernel_path),
     .help = "--connect emulated: the kernel L1 boots and loads kvm_intel from, a linux-image "
	     "*.deb or a bzImage (then --modules, unless KVM is built in)",
     .def = "the kernel Debian's linux-image-amd64 depends on, downloaded once per version"},
    {.name = "modules",
     .metavar = "DIR",
     PATH(modules_path),
     .help = "--connect emulated with a bzImage: its modules, the INSTALL_MOD_PATH of make "
	     "modules_install (DIR/lib/modules/VERSION)"},
    {.name = "module-params",
     .metavar = "'NAME=VALUE ...'",
     CUSTOM(emulated_cli_module_params),
     OPT_OFF(struct run_plan, module_params, const char *),
     .help = EMULATED_MODULE_PARAMS_HELP},
    {.name = "vms",
     .metavar = "N",
     UNSIGNED(common.vms, 1, PLERIG_MAX_VMS),
     .help = "VMs per variant, {range}, each with its own lock, all running at once"},
    {.name = "vcpus",
     .metavar = "LIST",
     CUSTOM(parse_vcpu_counts),
     .min = 1,
     .max = PLERIG_MAX_VCPUS,
     .help = "vCPUs per VM, each {range}, e.g. 2,4",
     .def = "the number of CPUs in --pcpus and twice that: no over-commit, then 2x"},
    {.name = "pcpus",
     .metavar = "CPULIST",
     CUSTOM(parse_pcpus),
     .help = "host CPUs for the vCPU threads, taskset -c syntax like 0-3,8; each must be in "
	     "this process's affinity mask where the VMs run here (another host checks its own)",
     .def = "every CPU in the affinity mask"},
    {.name = "pin",
     .metavar = "each|float",
     CUSTOM(parse_pin),
     .names = &pin_names,
     .help = "each: vCPU i of a run on the i-th CPU of --pcpus, wrapping around; float: every "
	     "vCPU may run on any of them",
     .def = "each"},

    {HEADING("Lock:")},
    {.name = "lock",
     .metavar = "LIST",
     NAMES(locks, nr_locks, lock_names),
     .help = "{names} (pvqspin: Linux's pv queued spinlock, whose waiters halt after "
	     "--pv-spin-threshold relaxes and are kicked by KVM_HC_KICK_CPU)"},
    {.name = "relax",
     .metavar = "LIST",
     NAMES(relaxes, nr_relaxes, relax_names),
     .help = "spin-loop body: pause, nop, rep-pause, none, or pv-yield (PAUSE, and a "
	     "KVM_HC_SCHED_YIELD to the vCPU it waits for every --pv-yield-spins PAUSEs; needs "
	     "--ring kernel)"},
    {.name = "pv-yield-spins",
     .metavar = "N",
     UNSIGNED(common.pv_yield_spins, 1, MAX_YIELD_SPIN),
     .help = "relax pv-yield: PAUSEs between two yields, {range}"},
    {.name = "pv-spin-threshold",
     .metavar = "N",
     UNSIGNED(common.pv_spin_threshold, 1, MAX_PV_SPIN_THRESHOLD),
     .help = "lock pvqspin: relaxes a waiter spins before it halts (Linux's SPIN_THRESHOLD), "
	     "{range}"},
    {.name = "ple",
     .metavar = "LIST",
     NAMES(ples, nr_ples, ple_names),
     .help = "hardware PAUSE interception per VM: on (as the host is set up) or off "
	     "(KVM_CAP_X86_DISABLE_EXITS, PAUSE bit); an axis; where nothing intercepts PAUSE "
	     "(native, libvirt-emulated) the ple column is n/a and off is refused, or left out "
	     "(said on stderr) beside a backend that has it"},
    {.name = "halt-poll",
     .metavar = "LIST",
     CUSTOM(parse_halt_polls),
     .min = 0,
     .max = MAX_HALT_POLL_NS,
     .help = "KVM's halt polling per VM in ns (KVM_CAP_HALT_POLL, Linux >= 5.19; no module "
	     "parameter touched), or kept (kvm.halt_poll_ns as the machine has it; host, its old "
	     "name, is still accepted); an axis; each {range}; native, libvirt and "
	     "libvirt-emulated run only kept (no KVM, or neither libvirt nor QEMU sets it per "
	     "domain): another value is refused, or left out (said on stderr) beside kvm",
     .def = "kept"},
    {.name = "ring",
     .metavar = "user|kernel|auto",
     NAME(ring, ring_choice_names),
     .help = "privilege level of the storm; auto picks what the backend supports best"},
    {.name = "cs-cycles",
     .metavar = "N",
     U64(common.cs_cycles, 0, MAX_CYCLES),
     .help = "TSC cycles inside each critical section, {range}"},
    {.name = "think-cycles",
     .metavar = "N",
     U64(common.think_cycles, 0, MAX_CYCLES),
     .help = "TSC cycles between release and the next attempt, {range}"},
    {.name = "stall-us",
     .metavar = "US",
     REAL(common.stall_us, &stall_range),
     .help = "a wait (or hold) longer than this counts as a stall or a lock-holder "
	     "preemption, {range}"},

    {HEADING("Timing:")},
    {.name = "duration",
     .metavar = "SECONDS",
     REAL(common.duration_s, &positive_seconds),
     .help = "measured interval per variant, {range}"},
    {.name = "warmup",
     .metavar = "SECONDS",
     REAL(common.warmup_s, &seconds),
     .help = "storm before measuring, {range}"},
    {.name = "timeout",
     .metavar = "SECONDS",
     REAL(common.timeout_s, &positive_seconds),
     .help = "watchdog slack for boot and stop on top of warmup and duration, {range}"},
    {.name = "exit-times",
     FLAG(common.exit_times),
     .help = "time every KVM exit of every vCPU, from kvm:kvm_exit to the next kvm:kvm_entry "
	     "per exit reason (as perf kvm stat): time in PAUSE-loop exits and in all exits. Off "
	     "by default: sampling every exit and entry costs the vCPU threads time inside the "
	     "measured interval. kvm and libvirt (local QEMU) backends; needs perf tracepoint "
	     "access"},

    {HEADING("Output:")},
    {.name = "json",
     .metavar = "FILE",
     PATH(json_path),
     .help = "also write every figure, histogram and counter as JSON; - for stdout"},
    {.name = "guest",
     .metavar = "FILE",
     PATH(guest_path),
     .help = "guest image",
     .def = "$PLERIG_GUEST, else the one built next to plerig, else the installed one in "
	    "PREFIX/share/plerig"},
    {.name = "quiet", .letter = 'q', FLAG(quiet), .help = "no progress lines on stderr"},
    {.name = "csv",
     .metavar = "FILE",
     PATH(csv_path),
     .help = "one row per variant x repeat x vCPU; - for stdout"},
    {.name = "report",
     .metavar = "FILE",
     PATH(report_path),
     .help = "also draw the results as one self-contained HTML page (as plerig report)"},

    {HEADING("Repeats and statistics:")},
    {.name = "repeat",
     .metavar = "N",
     UNSIGNED(repeat, 1, MAX_REPEAT),
     .help = "measured runs of every variant, {range}; with N >= 2 plerig prints mean +- "
	     "stddev per metric and compares variants: a paired t-test by round (on the per-round "
	     "differences, every round kept) where runs are interleaved or shuffled and every "
	     "run has its partner, else Welch's t-test"},
    {.name = "order",
     .metavar = "interleave|shuffle|sequential",
     NAME(order, order_names),
     .help = "interleave: A B C A B C ..., so machine drift lands on every variant alike; "
	     "shuffle: a new order each round (--seed); sequential: A A A B B B"},
    {.name = "seed",
     .metavar = "N",
     CUSTOM(parse_seed),
     .min = 0,
     .max = ULLONG_MAX,
     .help = "seed of --order shuffle",
     .def = "from the clock, printed"},
    {.name = "discard-rounds",
     .metavar = "N",
     CUSTOM(parse_discard),
     .min = 0,
     .max = MAX_DISCARD,
     .help = "rounds over all variants run first and thrown away, {range}",
     .def = "1 when --repeat >= 2, else 0"},
    {.name = "reference",
     .alias = "baseline",
     .metavar = "AXIS=VALUE",
     CUSTOM(parse_reference),
     .names = &reference_axis_names,
     .help = "compare every variant with the one that differs only in AXIS ({names}) being "
	     "VALUE",
     .def = "backend=native if both are run, else the first value of the first axis with "
	    "several"},
    {.name = "threshold",
     .metavar = "PCT",
     OPT_THRESHOLD_FIELD(struct run_plan, threshold_pct),
     .def = VERDICT_DEFAULT_THRESHOLD_TEXT,
     .help = "smallest change the comparisons count, in % of the reference's mean (the "
	     "verdicts' rule above; as plerig compare)"},

    {HEADING("Testing plerig:")},
    {.name = "inject",
     .metavar = "fault|hang|garbage",
     NAME(common.inject, inject_names),
     .help = "for testing plerig itself: the guest takes an exception (fault), never stops "
	     "(hang), or reports impossible figures after its storm (garbage)"},
    OPT_HELP_ENTRY,
    {.kind = OPT_END},
};

static bool has_relax(const struct run_plan *o, enum plerig_relax_kind r)
{
	for (unsigned i = 0; i < o->nr_relaxes; i++)
		if (o->relaxes[i] == r)
			return true;
	return false;
}

static bool has_lock(const struct run_plan *o, enum plerig_lock_kind l)
{
	for (unsigned i = 0; i < o->nr_locks; i++)
		if (o->locks[i] == l)
			return true;
	return false;
}

/* An option that another one makes meaningless: refused with the reason, not ignored. */
static int refuse_ignored(const struct run_plan *o, char *err, size_t errlen)
{
	if (option_table_given(run_table, "seed") && o->order != ORDER_SHUFFLE)
		return errbuf_printf(err, errlen,
				     "--seed: only --order shuffle draws an order from a seed (add "
				     "--order shuffle, or leave --seed out)");
	if (option_table_given(run_table, "pv-yield-spins") && !has_relax(o, PLERIG_RELAX_PV_YIELD))
		return errbuf_printf(err, errlen,
				     "--pv-yield-spins: only --relax pv-yield yields (add pv-yield "
				     "to --relax, or leave --pv-yield-spins out)");
	if (option_table_given(run_table, "pv-spin-threshold") && !has_lock(o, PLERIG_LOCK_PVQSPIN))
		return errbuf_printf(err, errlen,
				     "--pv-spin-threshold: only --lock pvqspin halts its waiters "
				     "(add pvqspin to --lock, or leave --pv-spin-threshold out)");
	return 0;
}

static void no_usage(FILE *out)
{
	(void)out;
}

static enum run_options_status parse_plan(int argc, char **argv, struct run_plan *o,
					  void (*usage)(FILE *out), char *err, size_t errlen)
{
	int next;

	run_plan_defaults(o);
	/* stays 0 unless --vcpus fills it: then the default is sized to --pcpus below */
	o->nr_vcpu_counts = 0;
	const int outcome = option_table_outcome(
	    option_table_parse(run_table, argc, argv, o, SEE_HELP, &next, err, errlen), usage);
	if (outcome)
		return outcome;
	if (next < argc) {
		errbuf_printf(err, errlen, "unexpected argument '%s' (%s)", argv[next], SEE_HELP);
		return RUN_OPTIONS_ERROR;
	}
	resolve_connect_auto(o);
	o->vcpus_given = o->nr_vcpu_counts != 0;
	if (!o->nr_vcpu_counts)
		run_plan_default_vcpus(o);
	if (refuse_ignored(o, err, errlen) || apply_accel(o, err, errlen) ||
	    check_backend_settings(o, err, errlen) || check_pcpus_here(o, err, errlen))
		return RUN_OPTIONS_ERROR;
	return RUN_OPTIONS_OK;
}

enum run_options_status run_options_parse(int argc, char **argv, struct run_plan *o, char *err,
					  size_t errlen)
{
	return parse_plan(argc, argv, o, run_options_usage, err, errlen);
}

enum run_options_status run_options_read(int argc, char **argv, struct run_plan *o, char *err,
					 size_t errlen)
{
	return parse_plan(argc, argv, o, no_usage, err, errlen);
}

void run_options_usage(FILE *out)
{
	struct run_plan *defaults = malloc(sizeof(*defaults));

	fputs("Usage: plerig run [OPTIONS]\n"
	      "\n"
	      "Boot tiny VMs whose vCPUs fight over one spin lock and report how the lock\n"
	      "behaves: wait times, stalls, lock-holder preemptions, host run-queue delay\n"
	      "and KVM exits. Options that take a LIST are axes of the experiment matrix:\n"
	      "every combination of backend x vcpus x lock x relax x ple x halt-poll is one\n"
	      "variant.\n"
	      "\n" VERDICT_RULE_HELP,
	      out);
	if (defaults)
		run_plan_defaults(defaults);
	option_table_usage(run_table, defaults, out);
	free(defaults);
	fputs("\n"
	      "Examples:\n"
	      "  # one VM with 4 vCPUs squeezed onto CPU 0: PAUSE against NOP\n"
	      "  plerig run --vms 1 --vcpus 4 --pcpus 0 --lock ticket --relax pause,nop "
	      "--duration 2\n"
	      "\n"
	      "  # ticket, tas and mcs at 1x and 2x over-commit of CPUs 0-3, results as JSON\n"
	      "  plerig run --vcpus 4,8 --pcpus 0-3 --lock ticket,tas,mcs --json results.json\n"
	      "\n"
	      "Exit status: 0 every run of every variant was ok; 1 a run failed (its row\n"
	      "says why), an output file could not be written, or this host cannot run\n"
	      "VMs; 2 bad command line; 128+N on signal N, after the runs done so far.\n",
	      out);
}
