// SPDX-License-Identifier: GPL-2.0
/*
 * `plerig run` option parsing. Every error names the option, the bad value
 * and what would have been accepted: the command line is a contract that
 * scripts are written against, so a typo must never silently become a
 * different experiment.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_* */
#endif
#include "cli/run_options.h"

#include "model/names.h"

#include "util/cpulist.h"

#include "util/comma_list.h"
#include "util/errbuf.h"
#include "util/strfmt.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SEE_HELP "see `plerig run --help`"

#define MAX_SECONDS  3600.0
#define MAX_CYCLES   1000000000ull
#define MAX_STALL_US 1e9

/*
 * The CPUs this process may run on. Pinning a vCPU thread elsewhere would
 * fail at run time, deep inside a VM boot, so --pcpus is checked against
 * this up front.
 */
static void allowed_cpus(cpu_set_t *set)
{
	CPU_ZERO(set);
	if (sched_getaffinity(0, sizeof(*set), set) == 0 && CPU_COUNT(set) > 0)
		return;
	/* more CPUs than a cpu_set_t holds: fall back to what is online */
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	if (n > CPU_SETSIZE)
		n = CPU_SETSIZE;
	for (long i = 0; i < n; i++)
		CPU_SET((int)i, set);
}

/* ---- numbers ---------------------------------------------------------- */

static int parse_u64(const char *opt, const char *s, unsigned long long min, unsigned long long max,
		     unsigned long long *out, char *err, size_t errlen)
{
	if (!*s)
		return errbuf_printf(err, errlen, "%s: empty value (allowed: %llu..%llu)", opt, min,
				     max);
	/* a negative number is a number, just not an allowed one */
	if (s[0] == '-' && str_all_digits(s + 1))
		return errbuf_printf(err, errlen, "%s: '%s' out of range (%llu..%llu)", opt, s, min,
				     max);
	if (!str_all_digits(s))
		return errbuf_printf(err, errlen,
				     "%s: '%s' is not a whole number (allowed: %llu..%llu)", opt, s,
				     min, max);
	errno = 0;
	unsigned long long v = strtoull(s, NULL, 10);
	if (errno == ERANGE || v < min || v > max)
		return errbuf_printf(err, errlen, "%s: '%s' out of range (%llu..%llu)", opt, s, min,
				     max);
	*out = v;
	return 0;
}

static int parse_unsigned(const char *opt, const char *s, unsigned min, unsigned max, unsigned *out,
			  char *err, size_t errlen)
{
	unsigned long long v;

	if (parse_u64(opt, s, min, max, &v, err, errlen))
		return -1;
	*out = (unsigned)v;
	return 0;
}

/*
 * Plain decimal only ("2", "0.5", "1e-3"): strtod would also take "inf",
 * "nan" and hex floats, none of which is a sane duration.
 */
static bool decimal_chars(const char *s)
{
	if (!isdigit((unsigned char)s[0]) && s[0] != '.' && s[0] != '-')
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s) && !strchr(".eE+-", *s))
			return false;
	return true;
}

struct real_range {
	double min;
	bool min_open; /* min itself is not allowed */
	double max;
	const char *text; /* "> 0, at most 3600" */
};

static int parse_real(const char *opt, const char *s, const struct real_range *r, double *out,
		      char *err, size_t errlen)
{
	char *end;

	if (!*s)
		return errbuf_printf(err, errlen, "%s: empty value (allowed: %s)", opt, r->text);
	errno = 0;
	double v = decimal_chars(s) ? strtod(s, &end) : NAN;
	if (isnan(v) || *end)
		return errbuf_printf(err, errlen, "%s: '%s' is not a number (allowed: %s)", opt, s,
				     r->text);
	if (errno == ERANGE || !isfinite(v) || v < r->min || (r->min_open && v == r->min) ||
	    v > r->max)
		return errbuf_printf(err, errlen, "%s: '%s' out of range (%s)", opt, s, r->text);
	*out = v;
	return 0;
}

/* ---- named axes -------------------------------------------------------- */

/* A named axis (--backend, --lock, --relax): enum values 0..count-1. */
struct name_axis {
	const char *opt;
	const char *what;
	unsigned count;
	const char *(*name)(unsigned v);
};

static const char *backend_name_u(unsigned v)
{
	return backend_name((enum backend_kind)v);
}

static const char *lock_name_u(unsigned v)
{
	return lock_name((enum plerig_lock_kind)v);
}

static const char *relax_name_u(unsigned v)
{
	return relax_name((enum plerig_relax_kind)v);
}

static const char *ple_name_u(unsigned v)
{
	return ple_name((enum ple_mode)v);
}

static const struct name_axis ple_axis = {
    .opt = "--ple",
    .what = "PLE mode",
    .count = PLE_COUNT,
    .name = ple_name_u,
};
static const struct name_axis backend_axis = {
    .opt = "--backend",
    .what = "backend",
    .count = BACKEND_COUNT,
    .name = backend_name_u,
};
static const struct name_axis lock_axis = {
    .opt = "--lock",
    .what = "lock",
    .count = PLERIG_LOCK_COUNT,
    .name = lock_name_u,
};
static const struct name_axis relax_axis = {
    .opt = "--relax",
    .what = "relax",
    .count = PLERIG_RELAX_COUNT,
    .name = relax_name_u,
};

static void axis_allowed(const struct name_axis *a, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < a->count && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", a->name(i));
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static int axis_lookup(const struct name_axis *a, const char *item, unsigned *out)
{
	for (unsigned i = 0; i < a->count; i++) {
		if (strcmp(a->name(i), item) == 0) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

static int parse_name_list(const struct name_axis *a, const char *value, unsigned *out,
			   unsigned *nr, char *err, size_t errlen)
{
	char allowed[128], item[LIST_ITEM_MAX];
	bool seen[64] = {false};
	const char *p = value;
	unsigned n = 0;
	int rc;

	axis_allowed(a, allowed, sizeof(allowed));
	while ((rc = list_next(&p, item, sizeof(item))) > 0) {
		unsigned v;
		if (axis_lookup(a, item, &v))
			return errbuf_printf(err, errlen, "%s: unknown %s '%s' (allowed: %s)",
					     a->opt, a->what, item, allowed);
		if (seen[v])
			return errbuf_printf(err, errlen, "%s: '%s' listed twice in '%s'", a->opt,
					     item, value);
		seen[v] = true;
		out[n++] = v;
	}
	if (rc < 0)
		return list_item_error(a->opt, value, rc, allowed, err, errlen);
	*nr = n;
	return 0;
}

static int parse_backends(const char *value, struct run_plan *o, char *err, size_t errlen)
{
	unsigned v[BACKEND_COUNT], n;

	if (parse_name_list(&backend_axis, value, v, &n, err, errlen))
		return -1;
	for (unsigned i = 0; i < n; i++)
		o->backends[i] = (enum backend_kind)v[i];
	o->nr_backends = n;
	return 0;
}

static int parse_locks(const char *value, struct run_plan *o, char *err, size_t errlen)
{
	unsigned v[PLERIG_LOCK_COUNT], n;

	if (parse_name_list(&lock_axis, value, v, &n, err, errlen))
		return -1;
	for (unsigned i = 0; i < n; i++)
		o->locks[i] = (enum plerig_lock_kind)v[i];
	o->nr_locks = n;
	return 0;
}

static int parse_relaxes(const char *value, struct run_plan *o, char *err, size_t errlen)
{
	unsigned v[PLERIG_RELAX_COUNT], n;

	if (parse_name_list(&relax_axis, value, v, &n, err, errlen))
		return -1;
	for (unsigned i = 0; i < n; i++)
		o->relaxes[i] = (enum plerig_relax_kind)v[i];
	o->nr_relaxes = n;
	return 0;
}

static int parse_ples(const char *value, struct run_plan *o, char *err, size_t errlen)
{
	unsigned v[PLE_COUNT], n;

	if (parse_name_list(&ple_axis, value, v, &n, err, errlen))
		return -1;
	for (unsigned i = 0; i < n; i++)
		o->ples[i] = (enum ple_mode)v[i];
	o->nr_ples = n;
	return 0;
}

/* --vcpus keeps the order given: it is the order the variants run in. */
static int parse_vcpu_counts(const char *value, struct run_plan *o, char *err, size_t errlen)
{
	char item[LIST_ITEM_MAX];
	unsigned counts[PLAN_MAX_VCPU_COUNTS];
	const char *p = value;
	unsigned n = 0;
	int rc;

	while ((rc = list_next(&p, item, sizeof(item))) > 0) {
		unsigned v;
		if (n == PLAN_MAX_VCPU_COUNTS)
			return errbuf_printf(err, errlen, "--vcpus: more than %u values in '%s'",
					     PLAN_MAX_VCPU_COUNTS, value);
		if (parse_unsigned("--vcpus", item, 1, PLERIG_MAX_VCPUS, &v, err, errlen))
			return -1;
		for (unsigned i = 0; i < n; i++)
			if (counts[i] == v)
				return errbuf_printf(
				    err, errlen, "--vcpus: '%s' listed twice in '%s'", item, value);
		counts[n++] = v;
	}
	if (rc < 0)
		return list_item_error("--vcpus", value, rc, "1..64, e.g. 2,4", err, errlen);
	memcpy(o->vcpu_counts, counts, n * sizeof(counts[0]));
	o->nr_vcpu_counts = n;
	return 0;
}

static int parse_pcpus(const char *value, struct run_plan *o, char *err, size_t errlen)
{
	char why[256], allowed_text[256];
	cpu_set_t allowed;

	if (cpulist_parse(value, o->common.pcpus, PLERIG_MAX_PCPUS, &o->common.nr_pcpus, why,
			  sizeof(why)))
		return errbuf_printf(err, errlen, "--pcpus: %s", why);
	allowed_cpus(&allowed);
	for (unsigned i = 0; i < o->common.nr_pcpus; i++) {
		unsigned list[PLERIG_MAX_PCPUS];
		if (CPU_ISSET(o->common.pcpus[i], &allowed))
			continue;
		cpulist_format(list, cpulist_from_set(&allowed, list, PLERIG_MAX_PCPUS),
			       allowed_text, sizeof(allowed_text));
		return errbuf_printf(
		    err, errlen, "--pcpus: CPU %u is not available to this process (allowed: %s)",
		    o->common.pcpus[i], allowed_text);
	}
	return 0;
}

static int parse_ring(const char *value, struct run_plan *o, char *err, size_t errlen)
{
	if (strcmp(value, "auto") == 0)
		o->ring = RING_CHOICE_AUTO;
	else if (strcmp(value, "user") == 0)
		o->ring = RING_CHOICE_USER;
	else if (strcmp(value, "kernel") == 0)
		o->ring = RING_CHOICE_KERNEL;
	else
		return errbuf_printf(
		    err, errlen, "--ring: unknown ring '%s' (allowed: user, kernel, auto)", value);
	return 0;
}

static int parse_pin(const char *value, struct run_plan *o, char *err, size_t errlen)
{
	if (strcmp(value, "each") == 0)
		o->common.pin_each = true;
	else if (strcmp(value, "float") == 0)
		o->common.pin_each = false;
	else
		return errbuf_printf(err, errlen,
				     "--pin: unknown placement '%s' (allowed: each, float)", value);
	return 0;
}

static int parse_path(const char *opt, const char *value, const char **out, char *err,
		      size_t errlen)
{
	if (!*value)
		return errbuf_printf(err, errlen, "%s: empty file name", opt);
	*out = value;
	return 0;
}

static int parse_inject(const char *value, enum plerig_inject *out, char *err, size_t errlen)
{
	static const char *const names[] = {[PLERIG_INJECT_NONE] = "none",
					    [PLERIG_INJECT_FAULT] = "fault",
					    [PLERIG_INJECT_HANG] = "hang"};
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(value, names[i])) {
			*out = (enum plerig_inject)i;
			return 0;
		}
	return errbuf_printf(err, errlen, "--inject: '%s' is not one of none, fault, hang", value);
}

#define MAX_REPEAT  10000u
#define MAX_DISCARD 100u

static int parse_order(const char *value, enum run_order *out, char *err, size_t errlen)
{
	static const char *const names[] = {[ORDER_INTERLEAVE] = "interleave",
					    [ORDER_SHUFFLE] = "shuffle",
					    [ORDER_SEQUENTIAL] = "sequential"};
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(value, names[i])) {
			*out = (enum run_order)i;
			return 0;
		}
	return errbuf_printf(err, errlen,
			     "--order: '%s' is not one of interleave, shuffle, sequential", value);
}

/* AXIS=VALUE: the value every compared variant is measured against. */
static int parse_baseline(const char *value, struct run_plan *o, char *err, size_t errlen)
{
	static const struct name_table *const values[] = {
	    [BASELINE_BACKEND] = &backend_names,
	    [BASELINE_LOCK] = &lock_names,
	    [BASELINE_RELAX] = &relax_names,
	    [BASELINE_PLE] = &ple_names,
	};
	char axis_name[16], allowed[128];
	const char *eq = strchr(value, '=');
	if (!eq)
		return errbuf_printf(
		    err, errlen, "--baseline: '%s' is not AXIS=VALUE (e.g. relax=pause)", value);
	const size_t len = (size_t)(eq - value);
	const char *v = eq + 1;
	snprintf(axis_name, sizeof(axis_name), "%.*s", (int)(len < 15 ? len : 15), value);
	int axis = len < 15 ? name_lookup(&baseline_axis_names, axis_name) : -1;
	if (axis < 0)
		return errbuf_printf(err, errlen, "--baseline: axis '%.*s' is not one of %s",
				     (int)len, value,
				     name_list(&baseline_axis_names, allowed, sizeof(allowed)));
	o->baseline_axis = (enum baseline_axis)axis;
	if (axis == BASELINE_VCPUS)
		return parse_unsigned("--baseline vcpus", v, 1, PLERIG_MAX_VCPUS,
				      &o->baseline_value, err, errlen);
	int n = name_lookup(values[axis], v);
	if (n < 0)
		return errbuf_printf(err, errlen, "--baseline: '%s' is not a value of %s", v,
				     axis_name);
	o->baseline_value = (unsigned)n;
	return 0;
}

static int parse_accel(const char *value, struct run_plan *o, char *err, size_t errlen)
{
	if (strcmp(value, "kvm") == 0)
		o->accel = ACCEL_KVM;
	else if (strcmp(value, "tcg") == 0)
		o->accel = ACCEL_TCG;
	else
		return errbuf_printf(
		    err, errlen, "--accel: unknown accelerator '%s' (allowed: kvm, tcg)", value);
	o->accel_given = true;
	return 0;
}

/* --accel tcg turns the libvirt backend into its emulated twin, named so in every output. */
static int apply_accel(struct run_plan *o, char *err, size_t errlen)
{
	bool libvirt = false;
	for (unsigned i = 0; i < o->nr_backends; i++) {
		if (o->backends[i] != BACKEND_LIBVIRT && o->backends[i] != BACKEND_LIBVIRT_TCG)
			continue;
		libvirt = true;
		if (o->accel == ACCEL_TCG)
			o->backends[i] = BACKEND_LIBVIRT_TCG;
	}
	for (unsigned i = 0; i < o->nr_backends; i++)
		for (unsigned j = 0; j < i; j++)
			if (o->backends[i] == o->backends[j])
				return errbuf_printf(err, errlen,
						     "--accel tcg: --backend lists libvirt and "
						     "libvirt-emulated, which are then the same");
	if (o->accel_given && !libvirt)
		return errbuf_printf(err, errlen,
				     "--accel: only --backend libvirt has a choice of "
				     "accelerator");
	return 0;
}

/* ---- getopt ----------------------------------------------------------- */

enum {
	OPT_BACKEND = 256, /* above any char: long-only options */
	OPT_VMS,
	OPT_VCPUS,
	OPT_PCPUS,
	OPT_LOCK,
	OPT_RELAX,
	OPT_RING,
	OPT_PLE,
	OPT_PIN,
	OPT_DURATION,
	OPT_WARMUP,
	OPT_TIMEOUT,
	OPT_STALL_US,
	OPT_CS_CYCLES,
	OPT_THINK_CYCLES,
	OPT_JSON,
	OPT_GUEST,
	OPT_INJECT,
	OPT_REPEAT,
	OPT_DISCARD_ROUNDS,
	OPT_ORDER,
	OPT_SEED,
	OPT_BASELINE,
	OPT_CSV,
	OPT_PV_YIELD_SPINS,
	OPT_CONNECT,
	OPT_ACCEL,
	OPT_CACHE_DIR,
};

static const struct option long_options[] = {
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"vms", required_argument, NULL, OPT_VMS},
    {"vcpus", required_argument, NULL, OPT_VCPUS},
    {"pcpus", required_argument, NULL, OPT_PCPUS},
    {"lock", required_argument, NULL, OPT_LOCK},
    {"relax", required_argument, NULL, OPT_RELAX},
    {"ring", required_argument, NULL, OPT_RING},
    {"ple", required_argument, NULL, OPT_PLE},
    {"pin", required_argument, NULL, OPT_PIN},
    {"duration", required_argument, NULL, OPT_DURATION},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"stall-us", required_argument, NULL, OPT_STALL_US},
    {"cs-cycles", required_argument, NULL, OPT_CS_CYCLES},
    {"think-cycles", required_argument, NULL, OPT_THINK_CYCLES},
    {"json", required_argument, NULL, OPT_JSON},
    {"guest", required_argument, NULL, OPT_GUEST},
    {"inject", required_argument, NULL, OPT_INJECT},
    {"repeat", required_argument, NULL, OPT_REPEAT},
    {"discard-rounds", required_argument, NULL, OPT_DISCARD_ROUNDS},
    {"order", required_argument, NULL, OPT_ORDER},
    {"seed", required_argument, NULL, OPT_SEED},
    {"baseline", required_argument, NULL, OPT_BASELINE},
    {"csv", required_argument, NULL, OPT_CSV},
    {"pv-yield-spins", required_argument, NULL, OPT_PV_YIELD_SPINS},
    {"connect", required_argument, NULL, OPT_CONNECT},
    {"accel", required_argument, NULL, OPT_ACCEL},
    {"cache-dir", required_argument, NULL, OPT_CACHE_DIR},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static const struct real_range duration_range = {0.0, true, MAX_SECONDS, "> 0, at most 3600"};
static const struct real_range warmup_range = {0.0, false, MAX_SECONDS, ">= 0, at most 3600"};
static const struct real_range timeout_range = {0.0, true, MAX_SECONDS, "> 0, at most 3600"};
static const struct real_range stall_range = {0.0, true, MAX_STALL_US, "> 0, at most 1000000000"};

static int apply_option(int c, const char *arg, struct run_plan *o, bool *vcpus_given, char *err,
			size_t errlen)
{
	switch (c) {
	case OPT_BACKEND:
		return parse_backends(arg, o, err, errlen);
	case OPT_VMS:
		return parse_unsigned("--vms", arg, 1, PLERIG_MAX_VMS, &o->common.vms, err, errlen);
	case OPT_VCPUS:
		*vcpus_given = true;
		return parse_vcpu_counts(arg, o, err, errlen);
	case OPT_PCPUS:
		return parse_pcpus(arg, o, err, errlen);
	case OPT_LOCK:
		return parse_locks(arg, o, err, errlen);
	case OPT_RELAX:
		return parse_relaxes(arg, o, err, errlen);
	case OPT_PLE:
		return parse_ples(arg, o, err, errlen);
	case OPT_RING:
		return parse_ring(arg, o, err, errlen);
	case OPT_PIN:
		return parse_pin(arg, o, err, errlen);
	case OPT_DURATION:
		return parse_real("--duration", arg, &duration_range, &o->common.duration_s, err,
				  errlen);
	case OPT_WARMUP:
		return parse_real("--warmup", arg, &warmup_range, &o->common.warmup_s, err, errlen);
	case OPT_TIMEOUT:
		return parse_real("--timeout", arg, &timeout_range, &o->common.timeout_s, err,
				  errlen);
	case OPT_STALL_US:
		return parse_real("--stall-us", arg, &stall_range, &o->common.stall_us, err,
				  errlen);
	case OPT_CS_CYCLES:
	case OPT_THINK_CYCLES: {
		unsigned long long n;
		if (parse_u64(c == OPT_CS_CYCLES ? "--cs-cycles" : "--think-cycles", arg, 0,
			      MAX_CYCLES, &n, err, errlen))
			return -1;
		*(c == OPT_CS_CYCLES ? &o->common.cs_cycles : &o->common.think_cycles) = n;
		return 0;
	}
	case OPT_JSON:
		return parse_path("--json", arg, &o->json_path, err, errlen);
	case OPT_GUEST:
		return parse_path("--guest", arg, &o->guest_path, err, errlen);
	case OPT_INJECT:
		return parse_inject(arg, &o->common.inject, err, errlen);
	case OPT_REPEAT:
		return parse_unsigned("--repeat", arg, 1, MAX_REPEAT, &o->repeat, err, errlen);
	case OPT_DISCARD_ROUNDS: {
		unsigned n;
		if (parse_unsigned("--discard-rounds", arg, 0, MAX_DISCARD, &n, err, errlen))
			return -1;
		o->discard_rounds = (int)n;
		return 0;
	}
	case OPT_ORDER:
		return parse_order(arg, &o->order, err, errlen);
	case OPT_SEED:
		o->seed_given = true;
		return parse_u64("--seed", arg, 0, ULLONG_MAX, &o->seed, err, errlen);
	case OPT_BASELINE:
		return parse_baseline(arg, o, err, errlen);
	case OPT_PV_YIELD_SPINS:
		return parse_unsigned("--pv-yield-spins", arg, 1, 100000000,
				      &o->common.pv_yield_spins, err, errlen);
	case OPT_CSV:
		return parse_path("--csv", arg, &o->csv_path, err, errlen);
	case OPT_CONNECT:
		return parse_path("--connect", arg, &o->connect_uri, err, errlen);
	case OPT_ACCEL:
		return parse_accel(arg, o, err, errlen);
	case OPT_CACHE_DIR:
		return parse_path("--cache-dir", arg, &o->cache_dir, err, errlen);
	case 'q':
		o->quiet = true;
		return 0;
	}
	return errbuf_printf(err, errlen, "internal error: option %d not handled", c);
}

/* Exact name or unique abbreviation, as getopt_long itself matches. */
static const struct option *find_long(const char *name, size_t len)
{
	const struct option *found = NULL;

	for (const struct option *lo = long_options; lo->name; lo++) {
		if (strncmp(lo->name, name, len) != 0)
			continue;
		if (strlen(lo->name) == len)
			return lo;
		if (found)
			return NULL;
		found = lo;
	}
	return found;
}

/*
 * getopt's own messages are off (opterr = 0) so that errors come back in
 * @err like all others; rebuild them here. @arg is the argv element getopt
 * consumed last: the long option itself, or the cluster a short one is in
 * (or even the element before it), so a short option is named by optopt.
 */
static int getopt_error(int c, const char *arg, char *err, size_t errlen)
{
	bool is_long = strncmp(arg, "--", 2) == 0;
	size_t len = is_long ? strcspn(arg, "=") : 0;
	const struct option *lo = is_long ? find_long(arg + 2, len - 2) : NULL;

	if (c == '?' && optopt > 0 && optopt < 256 && !(lo && lo->val == optopt))
		return errbuf_printf(err, errlen, "unknown option '-%c' (%s)", optopt, SEE_HELP);
	if (c == ':')
		return errbuf_printf(err, errlen, "%.*s needs a value (%s)", (int)len, arg,
				     SEE_HELP);
	if (lo && lo->has_arg == no_argument && arg[len] == '=')
		return errbuf_printf(err, errlen, "%.*s does not take a value (%s)", (int)len, arg,
				     SEE_HELP);
	return errbuf_printf(err, errlen, "unknown or ambiguous option '%s' (%s)", arg, SEE_HELP);
}

enum run_options_status run_options_parse(int argc, char **argv, struct run_plan *o, char *err,
					  size_t errlen)
{
	bool vcpus_given = false;
	int c;

	run_plan_defaults(o);
	if (errlen)
		err[0] = '\0';
	/* 0, not 1: glibc then reinitialises fully, so parsing twice works */
	optind = 0;
	opterr = 0;
	/* '+': stop at the first operand instead of permuting the caller's argv */
	while ((c = getopt_long(argc, argv, "+:qh", long_options, NULL)) != -1) {
		if (c == 'h') {
			run_options_usage(stdout);
			return RUN_OPTIONS_HELP;
		}
		if (c == '?' || c == ':') {
			getopt_error(c, argv[optind - 1], err, errlen);
			return RUN_OPTIONS_ERROR;
		}
		if (apply_option(c, optarg, o, &vcpus_given, err, errlen))
			return RUN_OPTIONS_ERROR;
	}
	if (optind < argc) {
		errbuf_printf(err, errlen, "unexpected argument '%s' (%s)", argv[optind], SEE_HELP);
		return RUN_OPTIONS_ERROR;
	}
	/* without --vcpus, size the axis to the CPUs actually used */
	if (!vcpus_given)
		run_plan_default_vcpus(o);
	if (apply_accel(o, err, errlen))
		return RUN_OPTIONS_ERROR;
	return RUN_OPTIONS_OK;
}
