// SPDX-License-Identifier: GPL-2.0
/* The JSON results file (schema 2): written whole, read back, every schema field there. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plerig/histogram.h"
#include "output/json_util.h"
#include "output/json_writer.h"
#include "support/fixtures.h"
#include "support/check_main.h"
#include "support/scratch_dir.h"

#define CMDLINE "plerig run --vcpus 2 --pcpus 0-1 --relax pause,nop --repeat 2 --json out.json"

static struct outcome rep;
static struct series series[2];
static struct comparison comparison;
static char dir[SCRATCH_DIR_LEN];
static char path[SCRATCH_DIR_LEN + 16];
static char err[512];

static struct variant the_variant(enum plerig_relax_kind relax)
{
	static const unsigned cpus[] = {0, 1};
	struct variant v = fixture_variant(BACKEND_KVM, 2, PLERIG_LOCK_TICKET, relax);

	fixture_pin(&v, cpus, 2);
	return v;
}

/* A good run: vCPU 0 pinned with an exit count, vCPU 1 floating without. */
static void good_run(struct variant_result *r, const struct variant *v, uint64_t acq1)
{
	fixture_result(r, v, 2.0);
	r->timing = (struct run_timing){1, 2, 3, 4, 5, 6};
	r->protected_counter[0] = 1000 + acq1 + 20;

	fixture_busy_vcpu(&r->records[0], 1000);
	r->records[0].guest.hist_wait[plerig_hist_bucket(2)] = 600;
	r->records[0].guest.hist_wait[plerig_hist_bucket(6)] = 400;
	r->records[0].guest.hist_hold[plerig_hist_bucket(3)] = 1000;
	r->records[0].kvm.value[KVM_STAT_EXITS] = 1234;
	r->records[0].kvm.valid[KVM_STAT_EXITS] = true;
	r->records[0].kvm.value[KVM_STAT_HALT_EXITS] = 7;
	r->records[0].kvm.valid[KVM_STAT_HALT_EXITS] = true;
	r->records[0].lifetime =
	    (struct vcpu_lifetime){.valid = true,
				   .exits_valid = true,
				   .exits = 2000,
				   .ple = {.pause_exits = 30, .pause_exits_valid = true}};

	fixture_busy_vcpu(&r->records[1], acq1);
	r->records[1].host_cpu = -1;
	r->records[1].guest.hist_wait[plerig_hist_bucket(7)] = acq1;
	r->records[1].guest.hist_hold[plerig_hist_bucket(1000)] = acq1;
}

/*
 * Two variants (pause, nop) x two runs: pause ran twice (4000 and 5000
 * acquisitions), nop once and then failed to boot. One comparison of
 * acq/s, nop against pause, as if Welch had found it 10% lower.
 */
static void setup(void)
{
	struct variant pause = the_variant(PLERIG_RELAX_PAUSE);
	struct variant nop = the_variant(PLERIG_RELAX_NOP);

	memset(&rep, 0, sizeof(rep));
	fixture_series(&series[0], &pause, 2);
	good_run(&series[0].runs[0], &pause, 3000);
	good_run(&series[0].runs[1], &pause, 4000);
	ck_assert_int_eq(series_compute_stats(&series[0]), 0);

	/* no stats: the writer computes them itself */
	fixture_series(&series[1], &nop, 2);
	good_run(&series[1].runs[0], &nop, 3000);
	series[1].runs[1].variant = nop;
	snprintf(series[1].runs[1].error, sizeof(series[1].runs[1].error),
		 "vCPU 0: boot timed out");

	memset(&comparison, 0, sizeof(comparison));
	comparison.reference = 0;
	comparison.candidate = 1;
	comparison.metric = metric_by_name("acq_per_s");
	ck_assert_ptr_nonnull(comparison.metric);
	comparison.base = (struct sample_stats){.n = 3, .mean = 2000.0, .stddev = 20.0};
	comparison.cand = (struct sample_stats){.n = 3, .mean = 1800.0, .stddev = 20.0};
	comparison.welch = (struct welch_result){.valid = true,
						 .diff = -200.0,
						 .rel = -0.1,
						 .p = 0.001,
						 .ci_low = -250.0,
						 .ci_high = -150.0};

	rep.command_line = CMDLINE;
	snprintf(rep.host.kernel, sizeof(rep.host.kernel), "6.1.0-test");
	snprintf(rep.host.kvm_module, sizeof(rep.host.kvm_module), "kvm_intel");
	snprintf(rep.host.cpu_model, sizeof(rep.host.cpu_model), "Test CPU @ 2.00GHz");
	rep.host.cpus = 2;
	rep.host.cpus_online = 4;
	snprintf(rep.host.ple_params, sizeof(rep.host.ple_params),
		 "ple_gap=128 ple_window=4096 ple_window_shrink=0 odd=Y");
	rep.repeat = 2;
	rep.discard_rounds = 1;
	rep.order = ORDER_SHUFFLE;
	rep.seed = 18446744073709551615ull;
	rep.reference = "relax=pause";
	rep.threshold_pct = 2.0;
	rep.series = series;
	rep.nr_series = 2;
	rep.comparisons = &comparison;
	rep.nr_comparisons = 1;

	scratch_dir(dir, sizeof(dir), "json");
	snprintf(path, sizeof(path), "%s/out.json", dir);
	err[0] = '\0';
}

static void teardown(void)
{
	series_free(&series[0]);
	series_free(&series[1]);
	unlink(path);
	rmdir(dir);
}

/* ---- reading it back --------------------------------------------------- */

static json_object *get(json_object *o, const char *key, json_type type)
{
	json_object *v = NULL;

	ck_assert_msg(json_object_object_get_ex(o, key, &v), "no key '%s'", key);
	ck_assert_msg(json_object_is_type(v, type), "'%s' is a %s, not a %s", key,
		      json_type_to_name(json_object_get_type(v)), json_type_to_name(type));
	return v;
}

static const char *get_str(json_object *o, const char *key)
{
	return json_object_get_string(get(o, key, json_type_string));
}

static int64_t get_int(json_object *o, const char *key)
{
	return json_object_get_int64(get(o, key, json_type_int));
}

static double get_double(json_object *o, const char *key)
{
	return json_object_get_double(get(o, key, json_type_double));
}

static bool get_bool(json_object *o, const char *key)
{
	return json_object_get_boolean(get(o, key, json_type_boolean));
}

static json_object *at(json_object *array, size_t i)
{
	ck_assert(json_object_is_type(array, json_type_array));
	ck_assert_uint_lt(i, json_object_array_length(array));
	return json_object_array_get_idx(array, i);
}

static json_object *write_and_read(void)
{
	json_object *root;

	ck_assert_msg(json_results_write(path, &rep, err, sizeof(err)) == 0, "%s", err);
	root = json_object_from_file(path);
	ck_assert_msg(root, "%s", json_util_get_last_err());
	return root;
}

static json_object *variant_at(json_object *root, size_t i)
{
	return at(get(root, "variants", json_type_array), i);
}

static json_object *run_at(json_object *root, size_t v, size_t r)
{
	return at(get(variant_at(root, v), "runs", json_type_array), r);
}

/* Nothing but the result in the directory: no temporary left behind. */
static unsigned dir_entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* ---- tests ------------------------------------------------------------ */

START_TEST(test_top_level)
{
	json_object *root = write_and_read();

	ck_assert_str_eq(get_str(root, "schema"), "plerig-results");
	ck_assert_int_eq(get_int(root, "schema_version"), 2);
	ck_assert_str_ne(get_str(root, "plerig_version"), "");
#ifdef PLERIG_VERSION
	ck_assert_str_eq(get_str(root, "plerig_version"), PLERIG_VERSION);
#endif
	ck_assert_str_eq(get_str(root, "command_line"), CMDLINE);
	ck_assert_int_eq(get_int(root, "repeat"), 2);
	ck_assert_int_eq(get_int(root, "discard_rounds"), 1);
	ck_assert_str_eq(get_str(root, "order"), "shuffle");
	/* the whole 64-bit seed, not a double that lost its low bits */
	ck_assert_uint_eq((uint64_t)json_object_get_uint64(get(root, "seed", json_type_int)),
			  18446744073709551615ull);
	/* --reference's axis=value; "baseline", its old name, still written for older readers */
	ck_assert_str_eq(get_str(root, "reference"), "relax=pause");
	ck_assert_str_eq(get_str(root, "baseline"), "relax=pause");
	ck_assert(!get_bool(root, "interrupted"));
	ck_assert_uint_eq(json_object_array_length(get(root, "variants", json_type_array)), 2);
	ck_assert_uint_eq(json_object_array_length(get(root, "comparisons", json_type_array)), 1);
	ck_assert_uint_eq(dir_entries(), 1);
	json_object_put(root);
}
END_TEST

START_TEST(test_host)
{
	json_object *root = write_and_read();
	json_object *host = get(root, "host", json_type_object);

	ck_assert_str_eq(get_str(host, "kernel"), "6.1.0-test");
	ck_assert_str_eq(get_str(host, "kvm_module"), "kvm_intel");
	ck_assert_str_eq(get_str(host, "cpu_model"), "Test CPU @ 2.00GHz");
	ck_assert_int_eq(get_int(host, "cpus"), 2);
	ck_assert_int_eq(get_int(host, "cpus_online"), 4);
	ck_assert(!json_object_get_boolean(get(host, "smt", json_type_boolean)));
	json_object *ple = get(host, "ple_params", json_type_object);
	ck_assert_int_eq(json_object_object_length(ple), 4);
	ck_assert_int_eq(get_int(ple, "ple_gap"), 128);
	ck_assert_int_eq(get_int(ple, "ple_window"), 4096);
	ck_assert_int_eq(get_int(ple, "ple_window_shrink"), 0);
	ck_assert_str_eq(get_str(ple, "odd"), "Y");
	json_object_put(root);
}
END_TEST

/* Not shuffled: no seed to reproduce; no baseline: nothing compared; no PLE knobs. */
START_TEST(test_nulls_when_not_applicable)
{
	rep.order = ORDER_INTERLEAVE;
	rep.reference = NULL;
	rep.command_line = NULL;
	rep.host.ple_params[0] = '\0';
	rep.host.cpus_online = -1;
	rep.host.smt = -1;
	rep.interrupted = true;
	rep.nr_comparisons = 0;
	json_object *root = write_and_read();

	ck_assert_str_eq(get_str(root, "order"), "interleave");
	get(root, "seed", json_type_null);
	get(root, "reference", json_type_null);
	get(root, "baseline", json_type_null);
	get(root, "command_line", json_type_null);
	ck_assert(get_bool(root, "interrupted"));
	json_object *host = get(root, "host", json_type_object);
	ck_assert_int_eq(json_object_object_length(get(host, "ple_params", json_type_object)), 0);
	get(host, "cpus_online", json_type_null);
	get(host, "smt", json_type_null);
	ck_assert_uint_eq(json_object_array_length(get(root, "comparisons", json_type_array)), 0);
	json_object_put(root);

	rep.order = ORDER_SEQUENTIAL;
	root = write_and_read();
	ck_assert_str_eq(get_str(root, "order"), "sequential");
	get(root, "seed", json_type_null);
	json_object_put(root);
}
END_TEST

START_TEST(test_variant_identity)
{
	json_object *root = write_and_read();
	json_object *v = variant_at(root, 0), *e;

	ck_assert_str_eq(get_str(v, "backend"), "kvm");
	ck_assert_str_eq(get_str(v, "lock"), "ticket");
	ck_assert_str_eq(get_str(v, "relax"), "pause");
	ck_assert_str_eq(get_str(v, "ring"), "kernel");
	ck_assert_int_eq(get_int(v, "vms"), 1);
	ck_assert_int_eq(get_int(v, "vcpus"), 2);
	ck_assert_str_eq(get_str(v, "pcpus"), "0-1");
	ck_assert_str_eq(get_str(v, "pin"), "each");
	ck_assert_int_eq(get_int(v, "cs_cycles"), 100);
	ck_assert_int_eq(get_int(v, "think_cycles"), 50);
	/* whole-valued doubles stay doubles */
	ck_assert_double_eq(get_double(v, "stall_us"), 50.0);
	ck_assert_double_eq(get_double(v, "warmup_s"), 0.2);
	ck_assert_double_eq(get_double(v, "duration_s"), 2.0);
	/* per-run fields live in runs[], not next to the identity */
	ck_assert(!json_object_object_get_ex(v, "ok", &e));
	ck_assert(!json_object_object_get_ex(v, "summary", &e));
	ck_assert_uint_eq(json_object_array_length(get(v, "runs", json_type_array)), 2);
	ck_assert_str_eq(get_str(variant_at(root, 1), "relax"), "nop");
	json_object_put(root);
}
END_TEST

START_TEST(test_run_fields)
{
	json_object *root = write_and_read();
	json_object *r = run_at(root, 0, 1), *e;

	ck_assert_int_eq(get_int(run_at(root, 0, 0), "repeat"), 0);
	ck_assert_int_eq(get_int(r, "repeat"), 1);
	ck_assert(get_bool(r, "ok"));
	ck_assert(!json_object_object_get_ex(r, "error", &e));
	ck_assert_double_eq(get_double(r, "interval_s"), 2.0);
	ck_assert_int_eq(get_int(r, "tsc_khz"), 1000000);

	json_object *t = get(r, "timing", json_type_object);
	ck_assert_int_eq(get_int(t, "created_ns"), 1);
	ck_assert_int_eq(get_int(t, "ready_ns"), 2);
	ck_assert_int_eq(get_int(t, "first_acq_ns"), 3);
	ck_assert_int_eq(get_int(t, "stopped_ns"), 4);
	ck_assert_int_eq(get_int(t, "torn_down_ns"), 5);
	ck_assert_int_eq(get_int(t, "setup_insn_emulated"), 6);
	json_object_put(root);
}
END_TEST

START_TEST(test_summary)
{
	static const char *const doubles[] = {
	    "acq_per_s",     "wait_p50_ns",  "wait_p99_ns",	"wait_max_ns",
	    "wait_mean_ns",  "hold_p50_ns",  "hold_max_ns",	"stalled_ns",
	    "stalled_share", "run_delay_ns", "run_delay_share", "run_time_ns",
	};
	json_object *root = write_and_read();
	json_object *s = get(run_at(root, 0, 0), "summary", json_type_object);

	for (size_t i = 0; i < sizeof(doubles) / sizeof(doubles[0]); i++)
		get(s, doubles[i], json_type_double);
	ck_assert_int_eq(get_int(s, "acquisitions"), 4000);
	ck_assert_double_eq(get_double(s, "acq_per_s"), 2000.0);
	/* merged: 600 x 2, 400 x 6, 3000 x 7: the 2000th sample is a 7 */
	ck_assert_double_eq(get_double(s, "wait_p50_ns"), 7.0);
	ck_assert_double_eq(get_double(s, "wait_p99_ns"), 7.0);
	/* and the bucket it was read from: values 7 exactly, a bucket of width 1 */
	json_object *b = get(s, "wait_p99_bucket_ns", json_type_array);
	ck_assert_uint_eq(json_object_array_length(b), 2);
	ck_assert(json_object_get_double(at(b, 0)) <= 7.0 &&
		  json_object_get_double(at(b, 1)) > 7.0);
	get(s, "wait_p50_bucket_ns", json_type_array);
	get(s, "irq_exits", json_type_null); /* no vCPU had the stat */
	ck_assert_double_eq(get_double(s, "wait_mean_ns"), 4.0);
	ck_assert_int_eq(get_int(s, "stalls"), 6);
	ck_assert_double_eq(get_double(s, "stalled_share"), 0.1);
	ck_assert_int_eq(get_int(s, "holder_preemptions"), 4);
	/* vCPU 1 has no exit count, so neither has the run */
	get(s, "exits", json_type_null);
	ck_assert(!get_bool(s, "exits_valid"));
	ck_assert_double_eq(
	    get_double(get(run_at(root, 0, 1), "summary", json_type_object), "acq_per_s"), 2500.0);
	json_object_put(root);
}
END_TEST

/* Over the ok runs, for every metric of the table, whether or not the runner filled them. */
START_TEST(test_stats)
{
	static const char *const fields[] = {"mean", "stddev", "rel", "min",
					     "max",  "median", "mad"};
	json_object *root = write_and_read();

	for (size_t v = 0; v < 2; v++) {
		json_object *stats = get(variant_at(root, v), "stats", json_type_object);
		ck_assert_int_eq(json_object_object_length(stats), (int)nr_metrics);
		for (unsigned m = 0; m < nr_metrics; m++) {
			json_object *st = get(stats, metrics[m].name, json_type_object);
			int64_t n = get_int(st, "n");
			get(st, "outliers", json_type_int);
			for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++)
				get(st, fields[f], n ? json_type_double : json_type_null);
		}
	}
	json_object *acq =
	    get(get(variant_at(root, 0), "stats", json_type_object), "acq_per_s", json_type_object);
	ck_assert_int_eq(get_int(acq, "n"), 2);
	ck_assert_double_eq(get_double(acq, "mean"), 2250.0);
	ck_assert_double_eq(get_double(acq, "min"), 2000.0);
	ck_assert_double_eq(get_double(acq, "max"), 2500.0);
	ck_assert_double_eq_tol(get_double(acq, "stddev"), 353.5533905932738, 1e-9);
	/* exits: no run has a value, so nothing to average: null, not 0 */
	json_object *exits =
	    get(get(variant_at(root, 0), "stats", json_type_object), "exits", json_type_object);
	ck_assert_int_eq(get_int(exits, "n"), 0);
	get(exits, "mean", json_type_null);
	/* computed by the writer: the one ok run of nop */
	acq =
	    get(get(variant_at(root, 1), "stats", json_type_object), "acq_per_s", json_type_object);
	ck_assert_int_eq(get_int(acq, "n"), 1);
	ck_assert_double_eq(get_double(acq, "mean"), 2000.0);
	ck_assert_double_eq(get_double(acq, "stddev"), 0.0);
	json_object_put(root);
}
END_TEST

static void check_buckets(json_object *hist, const uint64_t (*want)[2], size_t n)
{
	ck_assert_str_eq(get_str(hist, "unit"), "tsc_cycles");
	json_object *b = get(hist, "buckets", json_type_array);
	ck_assert_uint_eq(json_object_array_length(b), n);
	for (size_t i = 0; i < n; i++) {
		json_object *pair = at(b, i);
		ck_assert_uint_eq(json_object_array_length(pair), 2);
		ck_assert_int_eq(json_object_get_int64(at(pair, 0)), (int64_t)want[i][0]);
		ck_assert_int_eq(json_object_get_int64(at(pair, 1)), (int64_t)want[i][1]);
	}
}

START_TEST(test_vms_and_vcpus)
{
	static const uint64_t wait0[][2] = {{2, 600}, {6, 400}};
	static const uint64_t hold1[][2] = {{960, 3000}}; /* 1000 lands in [960, 1024) */
	json_object *root = write_and_read();
	json_object *vms = get(run_at(root, 0, 0), "vm_results", json_type_array);
	json_object *ks;

	ck_assert_uint_eq(json_object_array_length(vms), 1);
	json_object *vm = at(vms, 0);
	ck_assert_int_eq(get_int(vm, "vm"), 0);
	ck_assert_int_eq(get_int(vm, "protected_counter"), 4020);
	json_object *vcpus = get(vm, "vcpus", json_type_array);
	ck_assert_uint_eq(json_object_array_length(vcpus), 2);

	json_object *c = at(vcpus, 0);
	ck_assert_int_eq(get_int(c, "vcpu"), 0);
	ck_assert_int_eq(get_int(c, "host_cpu"), 0);
	ck_assert_int_eq(get_int(c, "tid"), 4242);
	ck_assert_int_eq(get_int(c, "acquisitions"), 1000);
	ck_assert_int_eq(get_int(c, "unmeasured_acquisitions"), 10);
	ck_assert_int_eq(get_int(c, "contended"), 500);
	ck_assert_int_eq(get_int(c, "stalls"), 3);
	ck_assert_double_eq(get_double(c, "stalled_ns"), 2e8);
	ck_assert_double_eq(get_double(c, "wait_p50_ns"), 2.0);
	ck_assert_double_eq(get_double(c, "wait_p99_ns"), 6.0);
	ck_assert_double_eq(get_double(c, "wait_max_ns"), 900.0);
	ck_assert_double_eq(get_double(c, "wait_mean_ns"), 4.0);
	ck_assert_double_eq(get_double(c, "hold_p50_ns"), 3.0);
	ck_assert_double_eq(get_double(c, "hold_max_ns"), 40.0);
	ck_assert_int_eq(get_int(c, "holder_preemptions"), 2);
	ck_assert_double_eq(get_double(c, "run_delay_ns"), 5e8);
	ck_assert_double_eq(get_double(c, "run_time_ns"), 1.5e9);
	ck_assert_int_eq(get_int(c, "timeslices"), 77);
	ck_assert_int_eq(get_int(c, "exits"), 1234);
	ks = get(c, "kvm_stats", json_type_object);
	ck_assert_int_eq(json_object_object_length(ks), 2);
	ck_assert_int_eq(get_int(ks, kvm_stat_name(KVM_STAT_EXITS)), 1234);
	ck_assert_int_eq(get_int(ks, kvm_stat_name(KVM_STAT_HALT_EXITS)), 7);
	check_buckets(get(c, "wait_histogram", json_type_object), wait0, 2);
	json_object *life = get(c, "lifetime", json_type_object);
	ck_assert_int_eq(get_int(life, "exits"), 2000);
	ck_assert_int_eq(get_int(life, "pause_loop_exits"), 30);
	get(life, "ple_window_updates", json_type_null); /* not counted: null, never 0 */

	c = at(vcpus, 1);
	ck_assert_int_eq(get_int(c, "vcpu"), 1);
	get(c, "host_cpu", json_type_null); /* floating */
	get(c, "exits", json_type_null);
	ck_assert(!json_object_object_get_ex(c, "lifetime", NULL)); /* no whole-life counts */
	ck_assert_int_eq(json_object_object_length(get(c, "kvm_stats", json_type_object)), 0);
	check_buckets(get(c, "hold_histogram", json_type_object), hold1, 1);
	json_object_put(root);
}
END_TEST

START_TEST(test_failed_run)
{
	json_object *root = write_and_read();
	json_object *r = run_at(root, 1, 1);

	ck_assert(get_bool(run_at(root, 1, 0), "ok"));
	ck_assert(!get_bool(r, "ok"));
	ck_assert_int_eq(get_int(r, "repeat"), 1);
	ck_assert_str_eq(get_str(r, "error"), "vCPU 0: boot timed out");
	get(r, "summary", json_type_null);
	ck_assert_uint_eq(json_object_array_length(get(r, "vm_results", json_type_array)), 0);
	json_object_put(root);
}
END_TEST

START_TEST(test_comparison)
{
	json_object *root = write_and_read();
	json_object *c = at(get(root, "comparisons", json_type_array), 0);

	ck_assert_int_eq(get_int(c, "reference"), 0);
	ck_assert_int_eq(get_int(c, "baseline"), 0); /* the old name, the same index */
	ck_assert_int_eq(get_int(c, "candidate"), 1);
	ck_assert_str_eq(get_str(c, "metric"), "acq_per_s");
	ck_assert_str_eq(get_str(c, "better"), "higher");
	ck_assert_double_eq(get_double(c, "reference_mean"), 2000.0);
	ck_assert_double_eq(get_double(c, "baseline_mean"), 2000.0);
	ck_assert_double_eq(get_double(c, "candidate_mean"), 1800.0);
	ck_assert_double_eq(get_double(c, "delta"), -200.0);
	ck_assert_double_eq(get_double(c, "delta_pct"), -10.0); /* unpaired: Welch's */
	ck_assert_double_eq(get_double(c, "welch_delta_pct"), -10.0);
	ck_assert_double_eq(get_double(c, "p_value"), 0.001);
	ck_assert_double_eq(get_double(c, "ci95_low"), -250.0);
	ck_assert_double_eq(get_double(c, "ci95_high"), -150.0);
	ck_assert(get_bool(c, "significant"));
	ck_assert_str_eq(get_str(c, "verdict"), "worse");
	json_object_put(root);

	/* lower is better for waits: the same drop is an improvement */
	comparison.metric = metric_by_name("wait_p99_ns");
	root = write_and_read();
	c = at(get(root, "comparisons", json_type_array), 0);
	ck_assert_str_eq(get_str(c, "better"), "lower");
	ck_assert_str_eq(get_str(c, "verdict"), "better");
	json_object_put(root);

	/* paired by round: the per-round differences, in % of the base mean */
	comparison.metric = metric_by_name("acq_per_s");
	comparison.paired = (struct welch_result){
	    .valid = true, .diff = -80.0, .p = 0.001, .ci_low = -100.0, .ci_high = -60.0};
	comparison.paired_n = 5;
	root = write_and_read();
	c = at(get(root, "comparisons", json_type_array), 0);
	ck_assert_str_eq(get_str(c, "test"), "paired");
	ck_assert_double_eq_tol(get_double(c, "delta_pct"), -4.0, 1e-9);
	ck_assert_double_eq(get_double(c, "welch_delta_pct"), -10.0);
	json_object *paired = get(c, "paired", json_type_object);
	ck_assert_double_eq_tol(get_double(paired, "delta_pct"), -4.0, 1e-9);
	ck_assert_double_eq_tol(get_double(paired, "ci95_low_pct"), -5.0, 1e-9);
	ck_assert_double_eq_tol(get_double(paired, "ci95_high_pct"), -3.0, 1e-9);
	json_object_put(root);
	comparison.paired_n = 0;

	/* both means 0: no change, and no % of a base of 0 (null, with why), never 0 % */
	struct comparison saved = comparison;
	comparison.base.mean = comparison.cand.mean = 0.0;
	comparison.welch = (struct welch_result){
	    .valid = true, .diff = 0.0, .p = 1.0, .ci_low = -1.0, .ci_high = 1.0};
	root = write_and_read();
	c = at(get(root, "comparisons", json_type_array), 0);
	ck_assert_double_eq(get_double(c, "delta"), 0.0);
	get(c, "welch_delta_pct", json_type_null);
	get(c, "delta_pct", json_type_null);
	ck_assert_ptr_nonnull(strstr(get_str(c, "delta_pct_why"), "base mean is 0"));
	json_object_put(root);
	comparison = saved;

	/*
	 * Not significant, and the CI ([-12.5 %, -7.5 %], 5 points wide) wider than
	 * the run's threshold: too noisy, by the rule compare and check apply too
	 * (a threshold of 0 once made it "no significant change" in run alone).
	 */
	comparison.welch.p = 0.2;
	root = write_and_read();
	ck_assert_double_eq(get_double(root, "threshold_pct"), 2.0);
	c = at(get(root, "comparisons", json_type_array), 0);
	ck_assert(!get_bool(c, "significant"));
	ck_assert_str_eq(get_str(c, "verdict"), "too noisy to judge");
	json_object_put(root);
	/* a threshold wider than that CI: no change of its size */
	rep.threshold_pct = 10.0;
	root = write_and_read();
	c = at(get(root, "comparisons", json_type_array), 0);
	ck_assert_str_eq(get_str(c, "verdict"), "no significant change");
	json_object_put(root);
	rep.threshold_pct = 2.0;
}
END_TEST

/* Too few runs for Welch: no p, no interval, and it says so. */
START_TEST(test_untestable_comparison)
{
	comparison.cand.n = 1;
	comparison.welch = (struct welch_result){.valid = false, .diff = -200.0, .rel = -0.1};
	json_object *root = write_and_read();
	json_object *c = at(get(root, "comparisons", json_type_array), 0);

	ck_assert_double_eq(get_double(c, "delta"), -200.0);
	get(c, "p_value", json_type_null);
	get(c, "ci95_low", json_type_null);
	get(c, "ci95_high", json_type_null);
	ck_assert(!get_bool(c, "significant"));
	ck_assert_str_eq(get_str(c, "verdict"), "untestable");
	json_object_put(root);

	/* nothing at all on a side: no means either, and no delta */
	comparison.cand.n = 0;
	root = write_and_read();
	c = at(get(root, "comparisons", json_type_array), 0);
	get(c, "candidate_mean", json_type_null);
	get(c, "delta", json_type_null);
	get(c, "delta_pct", json_type_null);
	json_object_put(root);
}
END_TEST

/*
 * A run with no acquisition in its interval: its rate is a measured 0, its
 * waits and holds were never measured: null with the reason, in the
 * summary and per vCPU (they were 0.0 before), and stats over the runs
 * leave it out.
 */
START_TEST(test_no_acquisition_is_null_with_reason)
{
	struct variant_result *r = &series[0].runs[1];
	for (unsigned i = 0; i < r->nr_records; i++) {
		struct plerig_vcpu_result *g = &r->records[i].guest;
		g->acquisitions = g->wait_total_cycles = g->wait_max_cycles = g->hold_max_cycles =
		    0;
		memset(g->hist_wait, 0, sizeof(g->hist_wait));
		memset(g->hist_hold, 0, sizeof(g->hist_hold));
	}
	ck_assert_int_eq(series_compute_stats(&series[0]), 0);
	json_object *root = write_and_read();
	json_object *s = get(run_at(root, 0, 1), "summary", json_type_object);

	ck_assert_double_eq(get_double(s, "acq_per_s"), 0.0);
	static const char *const unmeasured[] = {"wait_p50_ns",	 "wait_p99_ns", "wait_max_ns",
						 "wait_mean_ns", "hold_p50_ns", "hold_max_ns"};
	for (unsigned i = 0; i < sizeof(unmeasured) / sizeof(unmeasured[0]); i++)
		get(s, unmeasured[i], json_type_null);
	ck_assert_str_eq(get_str(s, "wait_unavailable"), "no acquisition in the measured interval");
	ck_assert_str_eq(get_str(s, "hold_unavailable"), "no acquisition in the measured interval");
	json_object *vcpus = get(at(get(run_at(root, 0, 1), "vm_results", json_type_array), 0),
				 "vcpus", json_type_array);
	json_object *v0 = at(vcpus, 0);
	get(v0, "wait_p99_ns", json_type_null);
	ck_assert_str_eq(get_str(v0, "wait_unavailable"),
			 "no acquisition in the measured interval");
	/* the measured run keeps its figures and no reason */
	json_object *s0 = get(run_at(root, 0, 0), "summary", json_type_object);
	ck_assert(get_double(s0, "wait_p99_ns") > 0.0);
	ck_assert(!json_object_object_get_ex(s0, "wait_unavailable", NULL));
	/* the variant's wait statistics rest on the one run that measured waits */
	json_object *stats = get(variant_at(root, 0), "stats", json_type_object);
	ck_assert_int_eq(get_int(get(stats, "wait_p99_ns", json_type_object), "n"), 1);
	ck_assert_int_eq(get_int(get(stats, "acq_per_s", json_type_object), "n"), 2);
	json_object_put(root);
}
END_TEST

/* NaN and infinities are not JSON: null, and the file still parses. */
START_TEST(test_non_finite_is_null)
{
	series[0].runs[0].interval_s = NAN;
	series[0].stats[0].mean = INFINITY;
	comparison.welch.ci_high = -INFINITY;
	comparison.welch.p = NAN;
	json_object *root = write_and_read();

	get(run_at(root, 0, 0), "interval_s", json_type_null);
	json_object *stats = get(variant_at(root, 0), "stats", json_type_object);
	get(get(stats, metrics[0].name, json_type_object), "mean", json_type_null);
	json_object *c = at(get(root, "comparisons", json_type_array), 0);
	get(c, "ci95_high", json_type_null);
	get(c, "p_value", json_type_null);
	ck_assert_double_eq(get_double(c, "ci95_low"), -250.0);
	json_object_put(root);
}
END_TEST

/* Doubles are written in their shortest form, not 0.20000000000000001. */
START_TEST(test_number_text)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	json_object *root = write_and_read();

	json_object_put(root);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(getdelim(&text, &len, '\0', f) > 0, 1);
	fclose(f);
	ck_assert_ptr_null(strstr(text, "0.20000000000000001"));
	ck_assert_ptr_nonnull(strstr(text, "0.2"));
	ck_assert_ptr_null(strstr(text, "\\/")); /* no escaped slashes */
	ck_assert_ptr_nonnull(strstr(text, "--pcpus 0-1"));
	ck_assert_ptr_null(strstr(text, "nan"));
	ck_assert_ptr_null(strstr(text, "inf"));
	free(text);
}
END_TEST

START_TEST(test_overwrite)
{
	json_object *root;
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs("old and much longer content that must vanish entirely ...", f);
	fclose(f);
	rep.nr_series = 1;
	ck_assert_int_eq(json_results_write(path, &rep, err, sizeof(err)), 0);
	root = json_object_from_file(path);
	ck_assert_ptr_nonnull(root);
	ck_assert_uint_eq(json_object_array_length(get(root, "variants", json_type_array)), 1);
	ck_assert_uint_eq(dir_entries(), 1);
	json_object_put(root);
}
END_TEST

START_TEST(test_empty_report)
{
	struct outcome empty;
	json_object *root;

	memset(&empty, 0, sizeof(empty));
	ck_assert_int_eq(json_results_write(path, &empty, err, sizeof(err)), 0);
	root = json_object_from_file(path);
	ck_assert_ptr_nonnull(root);
	ck_assert_uint_eq(json_object_array_length(get(root, "variants", json_type_array)), 0);
	ck_assert_uint_eq(json_object_array_length(get(root, "comparisons", json_type_array)), 0);
	json_object_put(root);
}
END_TEST

static char *slurp(size_t *len)
{
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	static char buf[1 << 20];
	*len = fread(buf, 1, sizeof(buf) - 1, f);
	buf[*len] = '\0';
	fclose(f);
	return strdup(buf);
}

/*
 * In L1 (PLERIG_JSON_COMPACT) the document is one line; made pretty on the
 * host it is, byte for byte, what plerig writes here. Anything but one
 * whole JSON document (what L1 writes is untrusted) is refused.
 */
START_TEST(test_compact_then_pretty)
{
	size_t len, compact_len, pretty_len;
	char *pretty;
	rep.nr_series = 2;
	ck_assert_int_eq(json_results_write(path, &rep, err, sizeof(err)), 0);
	char *want = slurp(&len);
	setenv("PLERIG_JSON_COMPACT", "1", 1);
	ck_assert_int_eq(json_results_write(path, &rep, err, sizeof(err)), 0);
	unsetenv("PLERIG_JSON_COMPACT");
	char *compact = slurp(&compact_len);
	ck_assert_ptr_eq(strchr(compact, '\n'), compact + compact_len - 1); /* one line */
	ck_assert_uint_lt(compact_len, len);
	ck_assert_int_eq(
	    json_text_pretty(compact, compact_len, &pretty, &pretty_len, err, sizeof(err)), 0);
	ck_assert_uint_eq(pretty_len, len);
	ck_assert_str_eq(pretty, want);
	free(pretty);
	ck_assert_int_eq(
	    json_text_pretty(compact, compact_len - 5, &pretty, &pretty_len, err, sizeof(err)), -1);
	ck_assert_int_eq(json_text_pretty("{} {}", 5, &pretty, &pretty_len, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "not one JSON document: text after it"));
	ck_assert_int_eq(json_text_pretty("", 0, &pretty, &pretty_len, err, sizeof(err)), -1);
	free(compact);
	free(want);
}
END_TEST

/* "-" is stdout; catch it in a file to read it back. */
START_TEST(test_stdout)
{
	int saved = dup(STDOUT_FILENO);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	json_object *root;

	ck_assert_int_ge(saved, 0);
	ck_assert_int_ge(fd, 0);
	fflush(stdout);
	ck_assert_int_ge(dup2(fd, STDOUT_FILENO), 0);
	close(fd);
	int rc = json_results_write("-", &rep, err, sizeof(err));
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	ck_assert_msg(rc == 0, "%s", err);

	root = json_object_from_file(path);
	ck_assert_ptr_nonnull(root);
	ck_assert_str_eq(get_str(root, "schema"), "plerig-results");
	ck_assert_uint_eq(json_object_array_length(get(root, "variants", json_type_array)), 2);
	json_object_put(root);
	/* no file called "-" appeared */
	ck_assert_int_ne(access("-", F_OK), 0);
}
END_TEST

START_TEST(test_unwritable)
{
	const char *bad = "/nonexistent-plerig-dir/sub/out.json";
	/* the results then go to fallback files in $TMPDIR: this test's own directory */
	const char *tmpdir = getenv("TMPDIR");
	char *saved = tmpdir ? strdup(tmpdir) : NULL;
	setenv("TMPDIR", dir, 1);

	ck_assert_int_eq(json_results_write(bad, &rep, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, bad), "'%s' does not name the path", err);
	ck_assert_msg(strstr(err, "No such file or directory"), "'%s' lacks the reason", err);

	/* a directory in the way: fails at rename, and cleans up after itself */
	ck_assert_int_eq(json_results_write(dir, &rep, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, dir), "'%s' does not name the path", err);
	char parent_tmp[SCRATCH_DIR_LEN + 32];
	snprintf(parent_tmp, sizeof(parent_tmp), "%s.%ld.0.tmp", dir, (long)getpid());
	ck_assert_int_ne(access(parent_tmp, F_OK), 0);

	ck_assert_int_eq(json_results_write("", &rep, err, sizeof(err)), -1);
	ck_assert_int_eq(json_results_write(NULL, &rep, err, sizeof(err)), -1);
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	unsigned fallbacks = 0;
	for (struct dirent *e; (e = readdir(d));) {
		char f[PATH_MAX];
		if (strncmp(e->d_name, "plerig-json-", 12))
			continue;
		snprintf(f, sizeof(f), "%s/%s", dir, e->d_name);
		unlink(f);
		fallbacks++;
	}
	closedir(d);
	ck_assert_uint_eq(fallbacks, 2); /* one per failed write with results to keep */
}
END_TEST

/* --exit-times: the figures where measured, null with the reason where not. */
static void timed(struct vcpu_record *rec, uint64_t exits, uint64_t ns, uint64_t ple_count,
		  uint64_t ple_ns)
{
	struct exit_times *t = &rec->exit_times;
	t->valid = true;
	t->exits = exits;
	t->ns = ns;
	t->seen = exits + 1;
	t->cut = 1;
	t->nr_reasons = 2;
	t->reason[0] = (struct exit_reason_time){PLE_EXIT_REASON_VMX, ple_count, ple_ns};
	t->reason[1] = (struct exit_reason_time){12, exits - ple_count, ns - ple_ns};
}

START_TEST(test_exit_times)
{
	struct variant_result *r = &series[0].runs[0];
	r->variant.exit_times = series[0].variant.exit_times = true;
	series[0].runs[1].variant.exit_times = true; /* but its records were not timed */
	r->ple_exit_reason = PLE_EXIT_REASON_VMX;
	timed(&r->records[0], 10, 5000, 4, 2000); /* HLT 6 x 3000 ns */
	timed(&r->records[1], 2, 1500, 2, 1500);
	/* the second variant: timed, but this host has no PAUSE exit reason */
	r = &series[1].runs[0];
	r->variant.exit_times = series[1].variant.exit_times = true;
	snprintf(r->ple_why, sizeof(r->ple_why), "no hardware PLE on this host (kvm_pvm)");
	timed(&r->records[0], 3, 300, 0, 0);
	timed(&r->records[1], 3, 300, 0, 0);
	json_object *root = write_and_read();

	json_object *sum = get(run_at(root, 0, 0), "summary", json_type_object);
	json_object *e = get(sum, "exit_times", json_type_object);
	ck_assert_int_eq(get_int(e, "exits"), 12);
	ck_assert_double_eq(get_double(e, "ns"), 6500.0);
	ck_assert_int_eq(get_int(e, "cut"), 2);
	ck_assert_int_eq(get_int(e, "lost"), 0);
	ck_assert(get_bool(e, "complete"));
	ck_assert_int_eq(get_int(e, "ple_exits"), 6);
	ck_assert_double_eq(get_double(e, "ple_ns"), 3500.0);
	ck_assert_double_eq_tol(get_double(e, "ple_mean_ns"), 3500.0 / 6, 1e-9);
	/* 2 vCPUs x 2 s */
	ck_assert_double_eq_tol(get_double(e, "ple_share"), 3500.0 / 4e9, 1e-18);
	json_object *top = get(e, "top_reasons", json_type_array);
	ck_assert_uint_eq(json_object_array_length(top), 2);
	ck_assert_int_eq(get_int(at(top, 0), "reason"), PLE_EXIT_REASON_VMX);
	ck_assert_int_eq(get_int(at(top, 0), "count"), 6);
	ck_assert_str_eq(get_str(at(top, 0), "name"), "PAUSE_INSTRUCTION");
	ck_assert_int_eq(get_int(at(top, 1), "reason"), 12);
	ck_assert_int_eq(get_int(at(top, 1), "ns"), 3000);
	ck_assert_ptr_null(json_object_object_get(sum, "exit_times_unavailable"));
	json_object *vcpu1 = at(get(at(get(run_at(root, 0, 0), "vm_results", json_type_array), 0),
				    "vcpus", json_type_array),
				1);
	e = get(vcpu1, "exit_times", json_type_object);
	ck_assert_int_eq(get_int(e, "ple_exits"), 2);
	ck_assert_double_eq(get_double(e, "ple_mean_ns"), 750.0);

	/* the same variant's other run did not time its exits */
	sum = get(run_at(root, 0, 1), "summary", json_type_object);
	get(sum, "exit_times", json_type_null);
	ck_assert_str_eq(get_str(sum, "exit_times_unavailable"), "not measured for every vCPU");

	sum = get(run_at(root, 1, 0), "summary", json_type_object);
	e = get(sum, "exit_times", json_type_object);
	ck_assert_int_eq(get_int(e, "exits"), 6);
	get(e, "ple_exits", json_type_null);
	get(e, "ple_mean_ns", json_type_null);
	ck_assert_str_eq(get_str(e, "ple_unavailable"), "no hardware PLE on this host (kvm_pvm)");
	json_object_put(root);
}
END_TEST

/* Not asked for: null, and how to get them. */
START_TEST(test_exit_times_not_asked)
{
	json_object *root = write_and_read();
	json_object *sum = get(run_at(root, 0, 0), "summary", json_type_object);
	get(sum, "exit_times", json_type_null);
	ck_assert_str_eq(get_str(sum, "exit_times_unavailable"),
			 "not measured: run with --exit-times");
	json_object_put(root);
}
END_TEST

static Suite *json_suite(void)
{
	Suite *s = suite_create("json_writer");
	TCase *t = tcase_create("json");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_top_level);
	tcase_add_test(t, test_host);
	tcase_add_test(t, test_nulls_when_not_applicable);
	tcase_add_test(t, test_variant_identity);
	tcase_add_test(t, test_run_fields);
	tcase_add_test(t, test_summary);
	tcase_add_test(t, test_stats);
	tcase_add_test(t, test_vms_and_vcpus);
	tcase_add_test(t, test_failed_run);
	tcase_add_test(t, test_comparison);
	tcase_add_test(t, test_untestable_comparison);
	tcase_add_test(t, test_non_finite_is_null);
	tcase_add_test(t, test_no_acquisition_is_null_with_reason);
	tcase_add_test(t, test_number_text);
	tcase_add_test(t, test_overwrite);
	tcase_add_test(t, test_compact_then_pretty);
	tcase_add_test(t, test_empty_report);
	tcase_add_test(t, test_stdout);
	tcase_add_test(t, test_unwritable);
	tcase_add_test(t, test_exit_times);
	tcase_add_test(t, test_exit_times_not_asked);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(json_suite)
