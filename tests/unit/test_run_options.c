// SPDX-License-Identifier: GPL-2.0
/* `plerig run` options: the command line is a contract, so pin it down. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cpulist.h"
#include "cli/run_options.h"
#include "experiment/matrix.h"
#include "support/check_main.h"
#include "support/scratch_dir.h"

static const enum plerig_ring ring_user[BACKEND_COUNT] = {PLERIG_RING_USER, PLERIG_RING_USER};
static const enum plerig_ring ring_kernel[BACKEND_COUNT] = {PLERIG_RING_KERNEL, PLERIG_RING_KERNEL};

#define MAX_ARGS 64

static struct run_plan opts;
static char err[512];

/* parse("--vms", "2", NULL): argv[0] is "run", as the dispatcher passes it. */
static enum run_options_status parse(const char *first, ...)
{
	char *argv[MAX_ARGS + 1];
	int argc = 0;
	va_list ap;

	argv[argc++] = (char *)"run";
	va_start(ap, first);
	for (const char *a = first; a; a = va_arg(ap, const char *)) {
		ck_assert_int_lt(argc, MAX_ARGS);
		argv[argc++] = (char *)a;
	}
	va_end(ap);
	argv[argc] = NULL;
	memset(err, 0, sizeof(err));
	return run_options_parse(argc, argv, &opts, err, sizeof(err));
}

static unsigned allowed_list(unsigned *cpus)
{
	cpu_set_t set;
	unsigned nr = 0;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	for (unsigned c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpus[nr++] = c;
	return nr;
}

/* ---- defaults and good input ------------------------------------------ */

START_TEST(test_defaults)
{
	unsigned cpus[CPU_SETSIZE];
	unsigned n = allowed_list(cpus);

	ck_assert_int_eq(parse(NULL), RUN_OPTIONS_OK);
	ck_assert_str_eq(err, "");
	ck_assert_uint_eq(opts.nr_backends, 1);
	ck_assert_int_eq(opts.backends[0], BACKEND_KVM);
	ck_assert_uint_eq(opts.common.vms, 1);
	ck_assert_uint_eq(opts.common.nr_pcpus, n);
	for (unsigned i = 0; i < n; i++)
		ck_assert_uint_eq(opts.common.pcpus[i], cpus[i]);
	if (n < 32) {
		ck_assert_uint_eq(opts.nr_vcpu_counts, 2);
		ck_assert_uint_eq(opts.vcpu_counts[0], n);
		ck_assert_uint_eq(opts.vcpu_counts[1], 2 * n);
	}
	ck_assert_uint_eq(opts.nr_locks, 1);
	ck_assert_int_eq(opts.locks[0], PLERIG_LOCK_TICKET);
	ck_assert_uint_eq(opts.nr_relaxes, 2);
	ck_assert_int_eq(opts.relaxes[0], PLERIG_RELAX_PAUSE);
	ck_assert_int_eq(opts.relaxes[1], PLERIG_RELAX_NOP);
	ck_assert_int_eq(opts.ring, RING_CHOICE_AUTO);
	ck_assert(opts.common.pin_each);
	ck_assert_double_eq(opts.common.duration_s, 3.0);
	ck_assert_double_eq(opts.common.warmup_s, 0.2);
	ck_assert_double_eq(opts.common.timeout_s, 10.0);
	ck_assert_double_eq(opts.common.stall_us, 50.0);
	ck_assert_uint_eq(opts.common.cs_cycles, 100);
	ck_assert_uint_eq(opts.common.think_cycles, 100);
	ck_assert_ptr_null(opts.json_path);
	ck_assert_ptr_null(opts.guest_path);
	ck_assert(!opts.quiet);
}
END_TEST

START_TEST(test_defaults_function_matches_parse)
{
	struct run_plan *d = malloc(sizeof(*d));

	ck_assert_ptr_nonnull(d);
	run_plan_defaults(d);
	ck_assert_int_eq(parse(NULL), RUN_OPTIONS_OK);
	ck_assert_int_eq(memcmp(d, &opts, sizeof(*d)), 0);
	free(d);
}
END_TEST

/* The example from the issue, on CPU 0 (or the first CPU we may use). */
START_TEST(test_issue_example)
{
	unsigned cpus[CPU_SETSIZE];
	char cpu[16];

	allowed_list(cpus);
	snprintf(cpu, sizeof(cpu), "%u", cpus[0]);
	ck_assert_int_eq(parse("--vms", "1", "--vcpus", "4", "--pcpus", cpu, "--lock", "ticket",
			       "--relax", "pause,nop", "--duration", "2", NULL),
			 RUN_OPTIONS_OK);
	ck_assert_uint_eq(opts.common.vms, 1);
	ck_assert_uint_eq(opts.nr_vcpu_counts, 1);
	ck_assert_uint_eq(opts.vcpu_counts[0], 4);
	ck_assert_uint_eq(opts.common.nr_pcpus, 1);
	ck_assert_uint_eq(opts.common.pcpus[0], cpus[0]);
	ck_assert_uint_eq(opts.nr_locks, 1);
	ck_assert_int_eq(opts.locks[0], PLERIG_LOCK_TICKET);
	ck_assert_uint_eq(opts.nr_relaxes, 2);
	ck_assert_int_eq(opts.relaxes[0], PLERIG_RELAX_PAUSE);
	ck_assert_int_eq(opts.relaxes[1], PLERIG_RELAX_NOP);
	ck_assert_double_eq(opts.common.duration_s, 2.0);
	/* untouched options keep their defaults */
	ck_assert_uint_eq(opts.nr_backends, 1);
	ck_assert_int_eq(opts.ring, RING_CHOICE_AUTO);
	ck_assert(opts.common.pin_each);
	ck_assert_double_eq(opts.common.warmup_s, 0.2);
}
END_TEST

START_TEST(test_every_option)
{
	unsigned cpus[CPU_SETSIZE];
	char cpu[16];

	allowed_list(cpus);
	snprintf(cpu, sizeof(cpu), "%u", cpus[0]);
	ck_assert_int_eq(parse("--backend", "kvm", "--vms=3", "--vcpus", "8,2,64", "--pcpus", cpu,
			       "--lock", "mcs,tas,ticket", "--relax", "none,rep-pause", "--ring",
			       "kernel", "--pin", "float", "--duration", "0.5", "--warmup", "0",
			       "--timeout", "2.5", "--stall-us", "12.5", "--cs-cycles", "0",
			       "--think-cycles", "1000000000", "--json", "-", "--guest", "g.elf",
			       "-q", NULL),
			 RUN_OPTIONS_OK);
	ck_assert_uint_eq(opts.common.vms, 3);
	ck_assert_uint_eq(opts.nr_vcpu_counts, 3);
	/* given order is run order */
	ck_assert_uint_eq(opts.vcpu_counts[0], 8);
	ck_assert_uint_eq(opts.vcpu_counts[1], 2);
	ck_assert_uint_eq(opts.vcpu_counts[2], 64);
	ck_assert_uint_eq(opts.nr_locks, 3);
	ck_assert_int_eq(opts.locks[0], PLERIG_LOCK_MCS);
	ck_assert_int_eq(opts.locks[1], PLERIG_LOCK_TAS);
	ck_assert_int_eq(opts.locks[2], PLERIG_LOCK_TICKET);
	ck_assert_uint_eq(opts.nr_relaxes, 2);
	ck_assert_int_eq(opts.relaxes[0], PLERIG_RELAX_NONE);
	ck_assert_int_eq(opts.relaxes[1], PLERIG_RELAX_REP_PAUSE);
	ck_assert_int_eq(opts.ring, RING_CHOICE_KERNEL);
	ck_assert(!opts.common.pin_each);
	ck_assert_double_eq(opts.common.duration_s, 0.5);
	ck_assert_double_eq(opts.common.warmup_s, 0.0);
	ck_assert_double_eq(opts.common.timeout_s, 2.5);
	ck_assert_double_eq(opts.common.stall_us, 12.5);
	ck_assert_uint_eq(opts.common.cs_cycles, 0);
	ck_assert_uint_eq(opts.common.think_cycles, 1000000000ull);
	ck_assert_str_eq(opts.json_path, "-");
	ck_assert_str_eq(opts.guest_path, "g.elf");
	ck_assert(opts.quiet);

	ck_assert_int_eq(parse("--ring", "user", "--pin", "each", "--quiet", NULL), RUN_OPTIONS_OK);
	ck_assert_int_eq(opts.ring, RING_CHOICE_USER);
	ck_assert(opts.common.pin_each);
	ck_assert(opts.quiet);
}
END_TEST

/* Without --vcpus the axis follows --pcpus: still 1x and 2x over-commit. */
START_TEST(test_default_vcpus_follow_pcpus)
{
	unsigned cpus[CPU_SETSIZE];
	char cpu[16];

	allowed_list(cpus);
	snprintf(cpu, sizeof(cpu), "%u", cpus[0]);
	ck_assert_int_eq(parse("--pcpus", cpu, NULL), RUN_OPTIONS_OK);
	ck_assert_uint_eq(opts.nr_vcpu_counts, 2);
	ck_assert_uint_eq(opts.vcpu_counts[0], 1);
	ck_assert_uint_eq(opts.vcpu_counts[1], 2);
}
END_TEST

START_TEST(test_reparse)
{
	/* getopt state must not leak from one parse into the next */
	ck_assert_int_eq(parse("--bogus", NULL), RUN_OPTIONS_ERROR);
	ck_assert_int_eq(parse("-q", "--vms", "2", NULL), RUN_OPTIONS_OK);
	ck_assert_uint_eq(opts.common.vms, 2);
	ck_assert_int_eq(parse("-q", "--vms", "5", NULL), RUN_OPTIONS_OK);
	ck_assert_uint_eq(opts.common.vms, 5);
	/* and every parse starts from the defaults */
	ck_assert_int_eq(parse(NULL), RUN_OPTIONS_OK);
	ck_assert_uint_eq(opts.common.vms, 1);
	ck_assert(!opts.quiet);
}
END_TEST

START_TEST(test_help)
{
	ck_assert_int_eq(parse("--help", NULL), RUN_OPTIONS_HELP);
	ck_assert_int_eq(parse("--vms", "2", "-h", NULL), RUN_OPTIONS_HELP);
}
END_TEST

/* Every option and its default is in the help text, plus the example. */
START_TEST(test_usage_text)
{
	static const char *const want[] = {
	    "--backend",
	    "--vms",
	    "--vcpus",
	    "--pcpus",
	    "--lock",
	    "--relax",
	    "--ring",
	    "--pin",
	    "--duration",
	    "--warmup",
	    "--timeout",
	    "--stall-us",
	    "--cs-cycles",
	    "--think-cycles",
	    "--json",
	    "--guest",
	    "--quiet",
	    "--help",
	    "--ple",
	    "--pv-yield-spins",
	    "default: 3",
	    "default: 0.2",
	    "default: 10",
	    "default: 50",
	    "default: 100",
	    "default: pause,nop",
	    ("plerig run --vms 1 --vcpus 4 --pcpus 0 --lock ticket --relax pause,nop "
	     "--duration 2"),
	};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	run_options_usage(f);
	fclose(f);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(strstr(text, want[i]), "usage lacks '%s'", want[i]);
	free(text);
}
END_TEST

/* ---- bad input -------------------------------------------------------- */

struct bad_case {
	const char *args[4];
	const char *want[3]; /* substrings of the message */
};

static const struct bad_case bad_cases[] = {
    {{"--vms", "0"}, {"--vms", "'0'", "1..64"}},
    {{"--vms", "65"}, {"--vms", "'65'", "out of range (1..64)"}},
    {{"--vms", "-1"}, {"--vms", "'-1'", "1..64"}},
    {{"--vms", "2x"}, {"--vms", "'2x'", "1..64"}},
    {{"--vms", ""}, {"--vms", "empty", "1..64"}},
    {{"--vms", " 2"}, {"--vms", "' 2'"}},
    {{"--vms", "+2"}, {"--vms", "'+2'"}},
    {{"--vms", "0x2"}, {"--vms", "'0x2'"}},
    {{"--vms", "99999999999999999999999"}, {"--vms", "out of range"}},
    {{"--vcpus", "0"}, {"--vcpus: '0' out of range (1..64)"}},
    {{"--vcpus", "65"}, {"--vcpus", "'65'", "(1..64)"}},
    {{"--vcpus", "4,4"}, {"--vcpus", "'4'", "twice"}},
    {{"--vcpus", ""}, {"--vcpus", "empty list"}},
    {{"--vcpus", "2,,4"}, {"--vcpus", "empty item", "'2,,4'"}},
    {{"--vcpus", "2,"}, {"--vcpus", "empty item"}},
    {{"--vcpus", ",2"}, {"--vcpus", "empty item"}},
    {{"--vcpus", "two"}, {"--vcpus", "'two'", "1..64"}},
    {{"--vcpus", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"}, {"--vcpus", "more than 16"}},
    {{"--backend", "qemu"}, {"--backend", "'qemu'", "allowed: kvm"}},
    {{"--backend", "kvm,kvm"}, {"--backend", "'kvm'", "twice"}},
    {{"--backend", ""}, {"--backend", "empty list"}},
    {{"--lock", "spin"}, {"--lock", "unknown lock 'spin'", "allowed: ticket, tas, mcs"}},
    {{"--lock", "tas,tas"}, {"--lock", "'tas' listed twice"}},
    {{"--lock", "ticket,"}, {"--lock", "empty item"}},
    {{"--lock", ""}, {"--lock", "empty list"}},
    {{"--lock", "TICKET"}, {"--lock", "'TICKET'"}},
    {{"--pv-yield-spins", "0"}, {"--pv-yield-spins", "'0'"}},

    {{"--relax", "mwait"}, {"--relax", "'mwait'", "pause, nop, rep-pause, none"}},
    {{"--relax", "nop,pause,nop"}, {"--relax", "'nop' listed twice"}},
    {{"--relax", ""}, {"--relax", "empty list"}},
    {{"--ring", "hypervisor"}, {"--ring", "'hypervisor'", "allowed: auto, user, kernel"}},
    {{"--inject", "crash"}, {"--inject", "unknown injection 'crash'", "none, fault, hang"}},
    {{"--pv-yield-spins", "100000001"}, {"--pv-yield-spins", "(1..100000000)"}},
    {{"--ple", "maybe"}, {"--ple", "'maybe'", "on, off"}},
    {{"--ple", "on,on"}, {"--ple", "'on' listed twice"}},
    {{"--halt-poll", "fast"}, {"--halt-poll", "'fast'", "kept or 0..1000000000"}},
    {{"--halt-poll", "0,kept,0"}, {"--halt-poll", "'0' listed twice"}},
    /* kept's old name is kept too: the same value, so twice is twice */
    {{"--halt-poll", "kept,host"}, {"--halt-poll", "'host' listed twice"}},
    {{"--halt-poll", "1000000001"}, {"--halt-poll", "0..1000000000"}},
    {{"--pv-spin-threshold", "0"}, {"--pv-spin-threshold", "'0'"}},
    {{"--repeat", "0"}, {"--repeat", "'0'", "1..10000"}},
    {{"--order", "random"}, {"--order", "'random'", "interleave, shuffle, sequential"}},
    {{"--seed", "x"}, {"--seed", "'x'"}},
    {{"--discard-rounds", "101"}, {"--discard-rounds", "0..100"}},
    {{"--reference", "relax"}, {"--reference", "AXIS=VALUE"}},
    {{"--reference", "colour=red"}, {"--reference", "'colour'"}},
    {{"--reference", "relax=mwait"}, {"--reference", "'mwait'"}},
    /* the old name still parses, and its errors name the option by its new one */
    {{"--baseline", "relax=mwait"}, {"--reference", "'mwait'"}},
    {{"--ring", ""}, {"--ring", "''"}},
    {{"--pin", "some"}, {"--pin", "'some'", "each, float"}},
    {{"--pcpus", "3-1"}, {"--pcpus", "'3-1'", "backwards"}},
    {{"--pcpus", "1,,2"}, {"--pcpus", "empty item", "'1,,2'"}},
    {{"--pcpus", "a"}, {"--pcpus", "'a'"}},
    {{"--pcpus", "-1"}, {"--pcpus", "'-1'"}},
    {{"--pcpus", ""}, {"--pcpus", "empty"}},
    {{"--pcpus", "0-100000"}, {"--pcpus", "'0-100000'", "1023"}},
    {{"--pcpus", "1024"}, {"--pcpus", "'1024'"}},
    {{"--pcpus", "0,0"}, {"--pcpus", "CPU 0 listed twice"}},
    {{"--duration", "0"}, {"--duration", "'0'", "> 0, at most 3600"}},
    {{"--duration", "-1"}, {"--duration", "'-1'", "out of range"}},
    {{"--duration", "3601"}, {"--duration", "'3601'", "at most 3600"}},
    {{"--duration", "1s"}, {"--duration", "'1s'", "not a number"}},
    {{"--duration", "inf"}, {"--duration", "'inf'"}},
    {{"--duration", "nan"}, {"--duration", "'nan'"}},
    {{"--duration", "0x10"}, {"--duration", "'0x10'"}},
    {{"--duration", ""}, {"--duration", "empty"}},
    {{"--duration", "1e999"}, {"--duration", "'1e999'"}},
    {{"--warmup", "-0.1"}, {"--warmup", "'-0.1'", ">= 0"}},
    {{"--warmup", "x"}, {"--warmup", "'x'"}},
    {{"--timeout", "0"}, {"--timeout", "'0'", "> 0"}},
    {{"--stall-us", "0"}, {"--stall-us", "'0'", "> 0"}},
    {{"--stall-us", "-5"}, {"--stall-us", "'-5'"}},
    {{"--cs-cycles", "1000000001"}, {"--cs-cycles", "'1000000001'", "0..1000000000"}},
    {{"--cs-cycles", "-1"}, {"--cs-cycles", "'-1'"}},
    {{"--think-cycles", "1.5"}, {"--think-cycles", "'1.5'"}},
    {{"--json", ""}, {"--json", "empty"}},
    {{"--guest", ""}, {"--guest", "empty"}},
    {{"--bogus"}, {"'--bogus'", "plerig run --help"}},
    {{"--bogus=1"}, {"'--bogus=1'", "plerig run --help"}},
    {{"--d", "1"}, {"ambiguous option '--d'"}},
    {{"-x"}, {"'-x'", "plerig run --help"}},
    {{"-qx"}, {"'-x'", "plerig run --help"}},
    {{"--quiet", "-xq"}, {"'-x'"}},
    {{"--quiet=1"}, {"--quiet", "does not take a value"}},
    {{"--vms"}, {"--vms", "needs a value"}},
    {{"--duration"}, {"--duration", "needs a value"}},
    {{"stray"}, {"'stray'", "plerig run --help"}},
    {{"--vms", "2", "stray"}, {"'stray'"}},
    {{"--", "--vms"}, {"'--vms'", "unexpected"}},
};

START_TEST(test_bad_input)
{
	const struct bad_case *c = &bad_cases[_i];
	const char *a[4] = {NULL};

	memcpy(a, c->args, sizeof(a));
	ck_assert_msg(parse(a[0], a[1], a[2], a[3], NULL) == RUN_OPTIONS_ERROR,
		      "case %d (%s %s) was accepted", _i, a[0], a[1] ? a[1] : "");
	for (int w = 0; w < 3 && c->want[w]; w++)
		ck_assert_msg(strstr(err, c->want[w]), "case %d: '%s' lacks '%s'", _i, err,
			      c->want[w]);
}
END_TEST

/* A CPU outside the affinity mask: restrict ourselves to one CPU to know it. */
START_TEST(test_cpu_not_in_affinity)
{
	cpu_set_t saved, one;
	unsigned cpus[CPU_SETSIZE];
	char arg[16], want[128];

	allowed_list(cpus);
	ck_assert_int_eq(sched_getaffinity(0, sizeof(saved), &saved), 0);
	CPU_ZERO(&one);
	CPU_SET(cpus[0], &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);

	snprintf(arg, sizeof(arg), "%u", cpus[0] + 1);
	ck_assert_int_eq(parse("--pcpus", arg, NULL), RUN_OPTIONS_ERROR);
	snprintf(want, sizeof(want),
		 "--pcpus: CPU %u is not available to this process (allowed: %u)", cpus[0] + 1,
		 cpus[0]);
	ck_assert_str_eq(err, want);
	/* and the defaults follow the mask */
	ck_assert_int_eq(parse(NULL), RUN_OPTIONS_OK);
	ck_assert_uint_eq(opts.common.nr_pcpus, 1);
	ck_assert_uint_eq(opts.common.pcpus[0], cpus[0]);
	ck_assert_uint_eq(opts.nr_vcpu_counts, 2);
	ck_assert_uint_eq(opts.vcpu_counts[0], 1);
	ck_assert_uint_eq(opts.vcpu_counts[1], 2);

	ck_assert_int_eq(sched_setaffinity(0, sizeof(saved), &saved), 0);
}
END_TEST

/* The message lists the mask compressed, e.g. "allowed: 0-1". */
START_TEST(test_cpu_not_in_affinity_full_mask)
{
	unsigned cpus[CPU_SETSIZE];
	unsigned n = allowed_list(cpus);
	char arg[16], allowed[256], want[512];
	unsigned missing = CPU_SETSIZE;

	for (unsigned c = 0, i = 0; c < CPU_SETSIZE; c++) {
		if (i < n && cpus[i] == c) {
			i++;
			continue;
		}
		missing = c;
		break;
	}
	if (missing == CPU_SETSIZE)
		return; /* every possible CPU is ours: nothing to refuse */
	cpulist_format(cpus, n, allowed, sizeof(allowed));
	snprintf(arg, sizeof(arg), "%u", missing);
	ck_assert_int_eq(parse("--pcpus", arg, NULL), RUN_OPTIONS_ERROR);
	snprintf(want, sizeof(want),
		 "--pcpus: CPU %u is not available to this process (allowed: %s)", missing,
		 allowed);
	ck_assert_str_eq(err, want);
}
END_TEST

/* ---- CPU lists -------------------------------------------------------- */

static void check_cpulist(const char *in, const unsigned *want, unsigned nr_want,
			  const char *formatted)
{
	unsigned cpus[PLERIG_MAX_PCPUS], nr = 12345;
	char buf[256], why[256] = "";

	ck_assert_msg(cpulist_parse(in, cpus, PLERIG_MAX_PCPUS, &nr, why, sizeof(why)) == 0,
		      "'%s': %s", in, why);
	ck_assert_uint_eq(nr, nr_want);
	for (unsigned i = 0; i < nr; i++)
		ck_assert_uint_eq(cpus[i], want[i]);
	cpulist_format(cpus, nr, buf, sizeof(buf));
	ck_assert_str_eq(buf, formatted);
}

START_TEST(test_cpulist_round_trip)
{
	static const unsigned a[] = {0, 1, 2, 3, 8, 10, 11};
	static const unsigned b[] = {1, 2, 5};
	static const unsigned c[] = {7};
	static const unsigned d[] = {0, 2, 4};
	static const unsigned e[] = {1022, 1023};

	check_cpulist("0-3,8,10-11", a, 7, "0-3,8,10-11");
	check_cpulist("5,1-2", b, 3, "1-2,5");
	check_cpulist("7", c, 1, "7");
	check_cpulist("7-7", c, 1, "7");
	check_cpulist("4,2,0", d, 3, "0,2,4");
	check_cpulist("1022-1023", e, 2, "1022-1023");
	check_cpulist("0,1,2,3,8,10,11", a, 7, "0-3,8,10-11");
}
END_TEST

START_TEST(test_cpulist_bad)
{
	static const char *const bad[] = {
	    "3-1",    "1,,2",	      "a",	     "-1",  "",	     "1,", ",1", "1-",	"1-2-3",
	    "0-1024", "0-4294967295", "99999999999", "0,0", "0-3,2", " 1", "1 ", "1-a", "0x1",
	};
	unsigned cpus[PLERIG_MAX_PCPUS], nr = 77;
	char why[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		ck_assert_msg(
		    cpulist_parse(bad[i], cpus, PLERIG_MAX_PCPUS, &nr, why, sizeof(why)) == -1,
		    "'%s' accepted", bad[i]);
		ck_assert_msg(why[0], "'%s': no message", bad[i]);
		ck_assert_uint_eq(nr, 77);
	}
	ck_assert_int_eq(cpulist_parse(NULL, cpus, PLERIG_MAX_PCPUS, &nr, why, sizeof(why)), -1);
	/* more CPUs than the caller has room for */
	ck_assert_int_eq(cpulist_parse("0-9", cpus, 4, &nr, why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "at most 4"));
}
END_TEST

START_TEST(test_cpulist_format_edges)
{
	static const unsigned a[] = {0, 1, 2, 3, 8, 10, 11};
	char buf[6];

	cpulist_format(a, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");
	/* too small a buffer truncates but stays a string */
	memset(buf, 'x', sizeof(buf));
	cpulist_format(a, 7, buf, sizeof(buf));
	ck_assert_uint_lt(strlen(buf), sizeof(buf));
	ck_assert_str_eq(buf, "0-3,8");
	cpulist_format(a, 7, buf, 0); /* must not write */
}
END_TEST

/* ---- matrix ----------------------------------------------------------- */

START_TEST(test_matrix_ple_axis)
{
	struct variant *v;
	unsigned nr;

	ck_assert_int_eq(parse("--backend", "kvm,native", "--vcpus", "2", "--relax", "pause,nop",
			       "--ple", "on,off", "--repeat", "5", "--order", "shuffle", "--seed",
			       "42", "--baseline", "ple=on", NULL),
			 RUN_OPTIONS_OK);
	ck_assert_uint_eq(opts.repeat, 5);
	ck_assert_int_eq(opts.order, ORDER_SHUFFLE);
	ck_assert_uint_eq(opts.seed, 42);
	ck_assert_int_eq(opts.reference_axis, REFERENCE_PLE);
	ck_assert_uint_eq(opts.reference_value, PLE_ON);
	ck_assert_int_eq(plan_expand(&opts, ring_user, &v, &nr), 0);
	/* kvm: 2 PLE modes x 2 relaxes; native: PLE on only (no VM to switch it off in) */
	ck_assert_uint_eq(nr, 4 + 2);
	static const enum ple_mode ples[] = {PLE_ON, PLE_ON, PLE_OFF, PLE_OFF, PLE_ON, PLE_ON};
	for (unsigned i = 0; i < nr; i++) {
		ck_assert_int_eq(v[i].ple, ples[i]);
		ck_assert_int_eq(v[i].relax, i % 2 ? PLERIG_RELAX_NOP : PLERIG_RELAX_PAUSE);
		ck_assert_int_eq(v[i].backend, i < 4 ? BACKEND_KVM : BACKEND_NATIVE);
	}
	free(v);
}
END_TEST

/*
 * --reference AXIS=VALUE (issue 25, item 15: "baseline" is check's stored
 * figures only); --baseline, its old name, is still accepted for scripts.
 */
START_TEST(test_reference_and_its_old_name)
{
	static const char *const names[] = {"--reference", "--baseline", "--reference=relax=nop",
					    "--baseline=relax=nop"};
	for (unsigned i = 0; i < 4; i++) {
		const bool joined = strchr(names[i], '=') != NULL;
		ck_assert_int_eq(joined
				     ? parse("--relax", "pause,nop", names[i], NULL)
				     : parse("--relax", "pause,nop", names[i], "relax=nop", NULL),
				 RUN_OPTIONS_OK);
		ck_assert_int_eq(opts.reference_axis, REFERENCE_RELAX);
		ck_assert_uint_eq(opts.reference_value, PLERIG_RELAX_NOP);
	}
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	run_options_usage(f);
	fclose(f);
	ck_assert_msg(strstr(text, "--reference AXIS=VALUE") && strstr(text, "(--baseline,") &&
			  strstr(text, "old"),
		      "%s", text);
	free(text);
}
END_TEST

START_TEST(test_matrix_order)
{
	struct variant *v;
	unsigned nr;
	unsigned cpus[CPU_SETSIZE];
	unsigned n = allowed_list(cpus);

	ck_assert_int_eq(parse("--vcpus", "2,4", "--lock", "ticket,mcs", "--relax",
			       "pause,nop,none", "--vms", "3", "--cs-cycles", "7", "--think-cycles",
			       "9", "--stall-us", "20", "--warmup", "0.5", "--duration", "1.5",
			       "--timeout", "4", "--pin", "float", NULL),
			 RUN_OPTIONS_OK);
	ck_assert_int_eq(plan_expand(&opts, ring_user, &v, &nr), 0);
	ck_assert_uint_eq(nr, 1 * 2 * 2 * 3);
	static const unsigned vcpus[] = {2, 4};
	static const enum plerig_lock_kind locks[] = {PLERIG_LOCK_TICKET, PLERIG_LOCK_MCS};
	static const enum plerig_relax_kind relaxes[] = {PLERIG_RELAX_PAUSE, PLERIG_RELAX_NOP,
							 PLERIG_RELAX_NONE};
	unsigned i = 0;
	for (unsigned c = 0; c < 2; c++)
		for (unsigned l = 0; l < 2; l++)
			for (unsigned r = 0; r < 3; r++, i++) {
				ck_assert_int_eq(v[i].backend, BACKEND_KVM);
				ck_assert_uint_eq(v[i].vcpus, vcpus[c]);
				ck_assert_int_eq(v[i].lock, locks[l]);
				ck_assert_int_eq(v[i].relax, relaxes[r]);
				ck_assert_int_eq(v[i].ring, PLERIG_RING_USER);
				ck_assert_uint_eq(v[i].vms, 3);
				ck_assert_uint_eq(v[i].nr_pcpus, n);
				ck_assert_uint_eq(v[i].pcpus[n - 1], cpus[n - 1]);
				ck_assert_int_eq(v[i].pin_each, 0);
				ck_assert_uint_eq(v[i].cs_cycles, 7);
				ck_assert_uint_eq(v[i].think_cycles, 9);
				ck_assert_double_eq(v[i].stall_us, 20.0);
				ck_assert_double_eq(v[i].warmup_s, 0.5);
				ck_assert_double_eq(v[i].duration_s, 1.5);
				ck_assert_double_eq(v[i].timeout_s, 4.0);
			}
	free(v);
}
END_TEST

/*
 * --halt-poll is an axis, innermost; the native backend runs only "kept"
 * (no VM, no halt polling); lock pvqspin at ring auto gets guest ring 0
 * on a VM backend, whatever the backend's default.
 */
START_TEST(test_matrix_halt_poll_and_pvqspin_ring)
{
	struct variant *v;
	unsigned nr;

	ck_assert_int_eq(parse("--backend", "kvm,native", "--vcpus", "2", "--lock", "pvqspin",
			       "--relax", "pause", "--halt-poll", "kept,0,200000", NULL),
			 RUN_OPTIONS_OK);
	ck_assert_int_eq(plan_expand(&opts, ring_user, &v, &nr), 0);
	ck_assert_uint_eq(nr, 3 + 1);
	ck_assert_int_eq(v[0].halt_poll_ns, HALT_POLL_HOST);
	ck_assert_int_eq(v[1].halt_poll_ns, 0);
	ck_assert_int_eq(v[2].halt_poll_ns, 200000);
	for (unsigned i = 0; i < 3; i++) {
		ck_assert_int_eq(v[i].backend, BACKEND_KVM);
		ck_assert_int_eq(v[i].ring, PLERIG_RING_KERNEL);
		ck_assert_uint_eq(v[i].pv_spin_threshold, 1u << 15);
	}
	ck_assert_int_eq(v[3].backend, BACKEND_NATIVE);
	ck_assert_int_eq(v[3].halt_poll_ns, HALT_POLL_HOST);
	ck_assert_int_eq(v[3].ring, PLERIG_RING_USER);
	free(v);

	/* an explicit ring is kept: the backend refuses pvqspin at ring 3 with the reason */
	ck_assert_int_eq(parse("--vcpus", "2", "--lock", "pvqspin,ticket", "--relax", "pause",
			       "--ring", "user", NULL),
			 RUN_OPTIONS_OK);
	ck_assert_int_eq(plan_expand(&opts, ring_user, &v, &nr), 0);
	ck_assert_uint_eq(nr, 2);
	ck_assert_int_eq(v[0].ring, PLERIG_RING_USER);
	free(v);
}
END_TEST

START_TEST(test_matrix_ring)
{
	struct variant *v;
	unsigned nr;

	ck_assert_int_eq(parse("--ring", "kernel", "--vcpus", "2", "--relax", "pause", NULL),
			 RUN_OPTIONS_OK);
	ck_assert_int_eq(plan_expand(&opts, ring_user, &v, &nr), 0);
	ck_assert_uint_eq(nr, 1);
	ck_assert_int_eq(v[0].ring, PLERIG_RING_KERNEL);
	ck_assert_int_eq(v[0].pin_each, 1);
	free(v);

	ck_assert_int_eq(parse(NULL), RUN_OPTIONS_OK);
	ck_assert_int_eq(plan_expand(&opts, ring_kernel, &v, &nr), 0);
	ck_assert_uint_eq(nr, opts.nr_vcpu_counts * 2);
	ck_assert_int_eq(v[0].ring, PLERIG_RING_KERNEL);
	/* relax innermost: the first two differ only in relax */
	ck_assert_uint_eq(v[0].vcpus, v[1].vcpus);
	ck_assert_int_eq(v[0].relax, PLERIG_RELAX_PAUSE);
	ck_assert_int_eq(v[1].relax, PLERIG_RELAX_NOP);
	free(v);

	/* an empty axis is an empty matrix, not a crash */
	opts.nr_locks = 0;
	ck_assert_int_eq(plan_expand(&opts, ring_kernel, &v, &nr), 0);
	ck_assert_uint_eq(nr, 0);
	ck_assert_ptr_null(v);
}
END_TEST

/*
 * Options of the libvirt backend alone are refused, not ignored, without it.
 * The cache directory is a scratch one: it is made as it is checked (as
 * root /tmp/c was, and then refused to any other user as another's).
 */
START_TEST(test_libvirt_options_need_libvirt)
{
	char cache[SCRATCH_DIR_LEN];
	scratch_dir(cache, sizeof(cache), "c");
	ck_assert_int_eq(parse("--connect", "qemu:///system", NULL), RUN_OPTIONS_ERROR);
	ck_assert_msg(strstr(err, "--connect: only --backend libvirt"), "%s", err);
	ck_assert_int_eq(parse("--backend", "kvm,native", "--cache-dir", cache, NULL),
			 RUN_OPTIONS_ERROR);
	ck_assert_msg(strstr(err, "--cache-dir: only --backend libvirt"), "%s", err);
	ck_assert_int_eq(parse("--backend", "kvm,libvirt", "--cache-dir", cache, "--connect",
			       "qemu:///system", NULL),
			 RUN_OPTIONS_OK);
}
END_TEST

/*
 * Every backend x setting: one that no backend of the run can take is
 * refused with the backend's reason and the fix (--backend native --ple off
 * printed an empty table and exited 0), one it can take is not.
 */
START_TEST(test_a_setting_no_backend_can_take_is_refused)
{
	static const struct {
		const char *args[4];
		enum backend_setting setting;
	} settings[] = {
	    {{"--ple", "off"}, SETTING_PLE_OFF},
	    {{"--halt-poll", "0"}, SETTING_HALT_POLL},
	    {{"--ring", "kernel"}, SETTING_RING_KERNEL},
	};
	static const struct {
		enum backend_kind kind;
		const char *args[4];
	} backends[] = {
	    {BACKEND_KVM, {"--backend", "kvm"}},
	    {BACKEND_NATIVE, {"--backend", "native"}},
	    {BACKEND_LIBVIRT, {"--backend", "libvirt"}},
	    {BACKEND_LIBVIRT_TCG, {"--backend", "libvirt", "--accel", "tcg"}},
	};
	unsigned refused = 0;
	for (unsigned b = 0; b < sizeof(backends) / sizeof(backends[0]); b++)
		for (unsigned s = 0; s < sizeof(settings) / sizeof(settings[0]); s++) {
			const char *const *x = backends[b].args, *const *y = settings[s].args;
			const char *why = backend_cannot(backends[b].kind, settings[s].setting);
			enum run_options_status st =
			    parse(x[0], x[1], y[0], y[1], x[2] ? x[2] : NULL, x[3], NULL);
			if (!why) {
				ck_assert_msg(st == RUN_OPTIONS_OK, "%s %s %s: %s", x[1], y[0],
					      y[1], err);
				continue;
			}
			refused++;
			ck_assert_msg(st == RUN_OPTIONS_ERROR, "%s %s %s accepted", x[1], y[0],
				      y[1]);
			ck_assert_msg(strstr(err, y[0]) && strstr(err, why) &&
					  strstr(err, backend_setting_fix(settings[s].setting)),
				      "%s", err);
		}
	/* native: all three; libvirt: halt polling; TCG: PLE off and halt polling */
	ck_assert_uint_eq(refused, 3 + 1 + 2);

	/* several backends that cannot: each says why */
	ck_assert_int_eq(parse("--backend", "libvirt,native", "--accel", "tcg", "--halt-poll",
			       "host,5000", NULL),
			 RUN_OPTIONS_ERROR);
	ck_assert_msg(strstr(err, "--halt-poll 5000") && strstr(err, "native: ") &&
			  strstr(err, "libvirt-emulated: "),
		      "%s", err);
	/* one backend that can is enough: the others' variants are left out, and said */
	ck_assert_int_eq(parse("--backend", "native,kvm", "--ple", "off", "--halt-poll", "0",
			       "--ring", "kernel", NULL),
			 RUN_OPTIONS_OK);
}
END_TEST

/* What plan_expand leaves out, plan_left_out says: once per backend and value, with why. */
START_TEST(test_matrix_left_out_is_said)
{
	struct variant *v;
	struct left_out lo[8];
	unsigned nr;

	ck_assert_int_eq(parse("--backend", "kvm,libvirt,native", "--vcpus", "2", "--relax",
			       "pause", "--ple", "on,off", "--halt-poll", "host,0", NULL),
			 RUN_OPTIONS_OK);
	ck_assert_int_eq(plan_expand(&opts, ring_user, &v, &nr), 0);
	/* kvm: 2 x 2; libvirt: PLE on and off, host's halt polling; native: on, host */
	ck_assert_uint_eq(nr, 4 + 2 + 1);
	free(v);
	ck_assert_uint_eq(plan_left_out(&opts, lo, 8), 3);
	ck_assert_int_eq(lo[0].backend, BACKEND_LIBVIRT);
	ck_assert_str_eq(lo[0].what, "--halt-poll 0");
	ck_assert_str_eq(lo[0].why, backend_cannot(BACKEND_LIBVIRT, SETTING_HALT_POLL));
	ck_assert_int_eq(lo[1].backend, BACKEND_NATIVE);
	ck_assert_str_eq(lo[1].what, "--ple off");
	ck_assert_str_eq(lo[1].why, backend_cannot(BACKEND_NATIVE, SETTING_PLE_OFF));
	ck_assert_int_eq(lo[2].backend, BACKEND_NATIVE);
	ck_assert_str_eq(lo[2].what, "--halt-poll 0");
	ck_assert_uint_eq(plan_left_out(&opts, lo, 1), 1);
}
END_TEST

/* One results file describes one machine: another host's libvirt runs alone. */
START_TEST(test_remote_libvirt_does_not_mix_with_local_backends)
{
	ck_assert_int_eq(
	    parse("--backend", "native,libvirt", "--connect", "qemu+ssh://root@hostA/system", NULL),
	    RUN_OPTIONS_ERROR);
	ck_assert_msg(strstr(err, "--connect names another host") && strstr(err, "native"), "%s",
		      err);
	ck_assert_int_eq(
	    parse("--backend", "libvirt", "--connect", "qemu+ssh://root@hostA/system", NULL),
	    RUN_OPTIONS_OK);
}
END_TEST

/*
 * --connect LIST: only libvirt runs on several hosts; another host's CPUs are
 * its own, not this process's (libvirt checks them there).
 */
START_TEST(test_hosts_axis)
{
	ck_assert_int_eq(
	    parse("--backend", "kvm,libvirt", "--connect", "embedded,qemu:///system", NULL),
	    RUN_OPTIONS_ERROR);
	ck_assert_msg(strstr(err, "several hosts") && strstr(err, "kvm"), "%s", err);
	ck_assert_int_eq(parse("--backend", "libvirt", "--connect", "qemu:///system,", NULL),
			 RUN_OPTIONS_ERROR);
	ck_assert_msg(strstr(err, "empty URI"), "%s", err);
	ck_assert_int_eq(parse("--backend", "libvirt", "--pcpus", "1000-1003", "--connect",
			       "qemu+ssh://root@hostA/system,qemu+ssh://root@hostB/system", NULL),
			 RUN_OPTIONS_OK);
	ck_assert_uint_eq(opts.common.nr_pcpus, 4);
	ck_assert(opts.pcpus_given);
	ck_assert(!opts.vcpus_given);
	/* here, the same CPUs are checked against this process's mask, wherever --connect is */
	ck_assert_int_eq(parse("--backend", "libvirt", "--pcpus", "1000-1003", NULL),
			 RUN_OPTIONS_ERROR);
	ck_assert_msg(strstr(err, "not available to this process"), "%s", err);
	ck_assert_int_eq(parse("--pcpus", "1000-1003", "--backend", "libvirt", "--connect",
			       "qemu:///system", NULL),
			 RUN_OPTIONS_ERROR);
}
END_TEST

static Suite *run_options_suite(void)
{
	Suite *s = suite_create("run_options");
	TCase *t = tcase_create("parse");

	tcase_add_test(t, test_defaults);
	tcase_add_test(t, test_defaults_function_matches_parse);
	tcase_add_test(t, test_issue_example);
	tcase_add_test(t, test_every_option);
	tcase_add_test(t, test_default_vcpus_follow_pcpus);
	tcase_add_test(t, test_reparse);
	tcase_add_test(t, test_help);
	tcase_add_test(t, test_usage_text);
	tcase_add_test(t, test_remote_libvirt_does_not_mix_with_local_backends);
	tcase_add_test(t, test_hosts_axis);
	tcase_add_loop_test(t, test_bad_input, 0, (int)(sizeof(bad_cases) / sizeof(bad_cases[0])));
	tcase_add_test(t, test_cpu_not_in_affinity);
	tcase_add_test(t, test_cpu_not_in_affinity_full_mask);
	tcase_add_test(t, test_libvirt_options_need_libvirt);
	tcase_add_test(t, test_a_setting_no_backend_can_take_is_refused);
	tcase_add_test(t, test_matrix_left_out_is_said);
	suite_add_tcase(s, t);

	t = tcase_create("cpulist");
	tcase_add_test(t, test_cpulist_round_trip);
	tcase_add_test(t, test_cpulist_bad);
	tcase_add_test(t, test_cpulist_format_edges);
	suite_add_tcase(s, t);

	t = tcase_create("matrix");
	tcase_add_test(t, test_matrix_order);
	tcase_add_test(t, test_matrix_ple_axis);
	tcase_add_test(t, test_reference_and_its_old_name);
	tcase_add_test(t, test_matrix_ring);
	tcase_add_test(t, test_matrix_halt_poll_and_pvqspin_ring);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(run_options_suite)
