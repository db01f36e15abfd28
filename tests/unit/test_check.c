// SPDX-License-Identifier: GPL-2.0
/*
 * plerig check's pure parts: the suite file, Holm's correction, the
 * baseline store, and the summary, TAP and JUnit writers (tests/cli's
 * test_check.py reads real ones back with prove and xml.etree).
 */
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/suite_file.h"
#include "experiment/baseline_store.h"
#include "model/check_result.h"
#include "model/outcome.h"
#include "output/json_writer.h"
#include "output/tap_junit.h"
#include "stats/holm.h"
#include "support/check_main.h"
#include "support/scratch_dir.h"

static char err[1024];

static const char *const good_suite = "# a comment\n"
				      "[defaults]\n"
				      "options = --duration 0.2 --repeat 3   # trailing comment\n"
				      "metrics = acq_per_cpu_s, stalls\n"
				      "\n"
				      "[solo]\n"
				      "groups = quick , solo-group\n"
				      "options = --vcpus 1 --pcpus 0\n"
				      "expect = progress\n"
				      "\n"
				      "[over]\n"
				      "options = --vcpus 4 --pcpus 0 --lock tas\n"
				      "requires = ple, pv-yield, pv-unhalt, halt-poll\n"
				      "min_cpus = 1\n"
				      "expect = stalls, no-ple-exits, halts, ftrace-counts\n"
				      "params = ple_window=1024, ple_gap = 64\n"
				      "other_regime = 10\n"
				      "metrics = none\n";

START_TEST(test_suite_parse)
{
	struct suite s;

	ck_assert_msg(!suite_parse("t.cfg", good_suite, strlen(good_suite), &s, err, sizeof(err)),
		      "%s", err);
	ck_assert_uint_eq(s.nr_scenarios, 2);
	const struct scenario *a = &s.scenarios[0], *b = &s.scenarios[1];
	ck_assert_str_eq(a->name, "solo");
	ck_assert_uint_eq(a->line, 6);
	/* the defaults' options first, then the scenario's */
	ck_assert_str_eq(a->options, "--duration 0.2 --repeat 3 --vcpus 1 --pcpus 0");
	/* every round counts unless the scenario says what another regime is */
	ck_assert(a->other_regime_pct == 0.0);
	ck_assert(s.scenarios[1].other_regime_pct == 10.0);
	ck_assert_uint_eq(a->plan->repeat, 3);
	ck_assert_uint_eq(a->plan->vcpu_counts[0], 1);
	ck_assert(a->plan->quiet);
	ck_assert_uint_eq(a->expects, 1u << EXPECT_PROGRESS);
	ck_assert(scenario_in_group(a, "quick"));
	ck_assert(scenario_in_group(a, "solo-group"));
	ck_assert(scenario_in_group(a, "solo"));
	ck_assert(!scenario_in_group(a, "qui"));
	/* metrics from the defaults; "none" in a scenario empties them */
	ck_assert_uint_eq(a->nr_metrics, 2);
	ck_assert_str_eq(a->metrics[0]->name, "acq_per_cpu_s");
	ck_assert_uint_eq(b->nr_metrics, 0);
	ck_assert(b->metrics_given);
	ck_assert_uint_eq(b->requires, (1u << REQUIRE_PLE) | (1u << REQUIRE_PV_YIELD) |
					   (1u << REQUIRE_PV_UNHALT) | (1u << REQUIRE_HALT_POLL));
	ck_assert_uint_eq(b->expects, (1u << EXPECT_STALLS) | (1u << EXPECT_NO_PLE_EXITS) |
					  (1u << EXPECT_HALTS) | (1u << EXPECT_FTRACE_COUNTS));
	/* a sweep point: the host parameters its runs are under */
	ck_assert_uint_eq(a->nr_params, 0);
	ck_assert_uint_eq(b->nr_params, 2);
	ck_assert_str_eq(b->params[0].name, "ple_window");
	ck_assert_str_eq(b->params[0].value, "1024");
	ck_assert_str_eq(b->params[1].name, "ple_gap");
	ck_assert_str_eq(b->params[1].value, "64");
	ck_assert_uint_eq(b->min_cpus, 1);
	ck_assert_int_eq(b->plan->locks[0], PLERIG_LOCK_TAS);
	suite_free(&s);
}
END_TEST

static const struct {
	const char *text;
	const char *message; /* what the error must say */
} bad_suites[] = {
    {"options = --vcpus 1\n", "t.cfg:1: KEY = VALUE before any [section]"},
    {"[a]\nexpect = progress, flying\n", "t.cfg:2: expect: unknown 'flying'"},
    {"[a]\nrequires = magic\n", "t.cfg:2: requires: unknown 'magic'"},
    {"[a]\ncolour = red\n", "t.cfg:2: unknown key 'colour'"},
    {"[a]\nmin_cpus = two\n", "t.cfg:2: min_cpus: 'two' is not a CPU count"},
    {"[a]\nother_regime = 0\n", "t.cfg:2: other_regime: '0' is not a percentage above 0"},
    {"[a]\nother_regime = 10%\n", "t.cfg:2: other_regime: '10%' is not a percentage"},
    {"[a]\nmetrics = speed\n", "t.cfg:2: metrics: 'speed' is not one of"},
    {"[a]\noptions = --vcpus lots\n", "t.cfg:1: [a]: "},
    {"[a]\noptions = --json x.json\n", "t.cfg:1: [a]: --json belongs to `plerig check`"},
    {"[a]\noptions = --csv x.csv\n", "t.cfg:1: [a]: --csv belongs to `plerig check`"},
    {"[a]\noptions = --report x.html\n", "t.cfg:1: [a]: --report belongs to `plerig check`"},
    {"[a]\noptions = --help\n", "t.cfg:1: [a]: --help is not an option of a scenario"},
    {"[a]\noptions = --vcpus 1\nexpect = progress\noptions = --vcpus 2\n",
     "t.cfg:4: options again in this section (first at line 2)"},
    {"[defaults]\nmetrics = none\nmetrics = stalls\n[a]\n",
     "t.cfg:3: metrics again in this section (first at line 2)"},
    {"[a]\n[a]\n", "t.cfg:2: [a] again (first at line 1)"},
    {"[a b]\n", "t.cfg:1: section name 'a b'"},
    {"[a\n", "t.cfg:1: a section is [NAME]"},
    {"[a]\njust words\n", "t.cfg:2: expected KEY = VALUE or [NAME]"},
    {"[a]\n[defaults]\n", "t.cfg:2: [defaults] comes first"},
    {"[defaults]\n[suite]\n[a]\n", "t.cfg:2: [suite] comes first, once"},
    {"[suite]\n[suite]\n[a]\n", "t.cfg:2: [suite] comes first, once"},
    {"[suite]\nhost_runs_nothing_else = maybe\n[a]\n",
     "t.cfg:2: host_runs_nothing_else: 'maybe' is not yes or no"},
    {"[suite]\noptions = --vcpus 1\n[a]\n",
     "t.cfg:2: unknown key 'options' in [suite] (host_runs_nothing_else)"},
    {"[suite]\nhost_runs_nothing_else = yes\nhost_runs_nothing_else = no\n[a]\n",
     "t.cfg:3: host_runs_nothing_else again in this section (first at line 2)"},
    {"# nothing\n", "t.cfg: no scenario"},
    {"[a]\nparams = ple_window\n", "t.cfg:2: params: 'ple_window' is not NAME=VALUE"},
    {"[a]\nparams = colour=red\n", "t.cfg:2: params: colour is not a PLE parameter"},
    {"[a]\nparams = ple_window=big\n", "t.cfg:2: params: ple_window=big: not a decimal"},
    {"[a]\nparams = ple_gap=1, ple_gap=2\n", "t.cfg:2: params: ple_gap given twice"},
};

START_TEST(test_suite_errors)
{
	struct suite s;

	const char *text = bad_suites[_i].text;

	ck_assert_int_eq(suite_parse("t.cfg", text, strlen(text), &s, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, bad_suites[_i].message), "'%s' says '%s'", bad_suites[_i].text,
		      err);
	ck_assert_uint_eq(s.nr_scenarios, 0);
}
END_TEST

/*
 * [suite] says what holds for the whole suite: its host runs nothing else
 * (make ple-test's L1), so no foreign load excuses a drop there. Off
 * unless said.
 */
START_TEST(test_suite_section)
{
	static const char quiet[] = "[suite]\nhost_runs_nothing_else = yes  # L1\n"
				    "[defaults]\noptions = --vcpus 2\n[a]\n";
	static const char plain[] = "[a]\noptions = --vcpus 2\n";
	struct suite s;

	ck_assert_msg(!suite_parse("t.cfg", quiet, strlen(quiet), &s, err, sizeof(err)), "%s", err);
	ck_assert(s.host_runs_nothing_else);
	ck_assert_uint_eq(s.nr_scenarios, 1);
	ck_assert_uint_eq(s.scenarios[0].plan->vcpu_counts[0], 2);
	suite_free(&s);
	ck_assert_msg(!suite_parse("t.cfg", plain, strlen(plain), &s, err, sizeof(err)), "%s", err);
	ck_assert(!s.host_runs_nothing_else);
	suite_free(&s);
}
END_TEST

/*
 * The plan's paths are the scenario's own: every scenario keeps its own after
 * parsing. The cache directory is checked (and made) as it is parsed: a
 * scratch one, never a path of the machine (as root, /cache/one was made).
 */
START_TEST(test_suite_paths_owned)
{
	char dir[SCRATCH_DIR_LEN], cache[SCRATCH_DIR_LEN + 8], text[1024];
	scratch_dir(dir, sizeof(dir), "cache");
	snprintf(cache, sizeof(cache), "%s/one", dir);
	snprintf(text, sizeof(text),
		 "[defaults]\n"
		 "options = --duration 0.2\n"
		 "[one]\n"
		 "options = --guest /images/one.elf --backend libvirt --cache-dir %s\n"
		 "[two]\n"
		 "options = --vcpus 2 --guest /images/two.elf --backend libvirt --connect "
		 "qemu:///two\n"
		 "[three]\n"
		 "options = --vcpus 3\n",
		 cache);
	struct suite s;

	ck_assert_msg(!suite_parse("t.cfg", text, strlen(text), &s, err, sizeof(err)), "%s", err);
	ck_assert_uint_eq(s.nr_scenarios, 3);
	ck_assert_str_eq(s.scenarios[0].plan->guest_path, "/images/one.elf");
	ck_assert_str_eq(s.scenarios[0].plan->cache_dir, cache);
	ck_assert_str_eq(s.scenarios[1].plan->guest_path, "/images/two.elf");
	ck_assert_str_eq(s.scenarios[1].plan->connect_uri, "qemu:///two");
	ck_assert_ptr_null(s.scenarios[2].plan->guest_path);
	suite_free(&s);
}
END_TEST

/* A NUL byte is said with its line, not taken for the end of the file. */
START_TEST(test_suite_nul_byte)
{
	static const char text[] = "[a]\noptions=--vcpus 1\n\0\n[b]\noptions=--inject fault\n";
	struct suite s;

	ck_assert_int_eq(suite_parse("t.cfg", text, sizeof(text) - 1, &s, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "t.cfg:3: a NUL byte: a suite file is text");
	ck_assert_uint_eq(s.nr_scenarios, 0);
}
END_TEST

/* 1001 sections: refused at the 1001st, with its line. */
START_TEST(test_suite_too_many_scenarios)
{
	size_t cap = 1001 * 16, n = 0;
	char *text = malloc(cap);
	struct suite s;

	ck_assert_ptr_nonnull(text);
	for (unsigned i = 0; i < 1001; i++)
		n += (size_t)snprintf(text + n, cap - n, "[s%u]\n", i);
	ck_assert_int_eq(suite_parse("t.cfg", text, n, &s, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "t.cfg:1001: more than 1000 scenarios: split the suite");
	ck_assert_uint_eq(s.nr_scenarios, 0);
	free(text);
}
END_TEST

START_TEST(test_holm)
{
	/* by hand: sorted 0.005 x 4, 0.01 x 3, 0.03 x 2, 0.04 x 1 -> made monotone */
	double p[] = {0.01, 0.04, 0.03, 0.005, NAN}, adj[5];

	holm_adjust(p, 5, adj);
	ck_assert_double_eq_tol(adj[0], 0.03, 1e-12);
	ck_assert_double_eq_tol(adj[1], 0.06, 1e-12);
	ck_assert_double_eq_tol(adj[2], 0.06, 1e-12);
	ck_assert_double_eq_tol(adj[3], 0.02, 1e-12);
	ck_assert(isnan(adj[4])); /* no test, and not counted in m */
	/* capped at 1, in place */
	double q[] = {0.6, 0.9};
	holm_adjust(q, 2, q);
	ck_assert_double_eq(q[0], 1.0);
	ck_assert_double_eq(q[1], 1.0);
	/* one test: unchanged */
	double one = 0.02;
	holm_adjust(&one, 1, &one);
	ck_assert_double_eq(one, 0.02);
}
END_TEST

START_TEST(test_baseline_store)
{
	char dir[SCRATCH_DIR_LEN];
	struct host_info h = {.kernel = "6.1",
			      .kvm_module = "kvm_intel",
			      .cpu_model = "Intel(R) Xeon(R) Gold 6248 @ 2.50GHz",
			      .cpus = 4,
			      .cpus_online = 8,
			      .smt = 1,
			      .ple_params = "ple_gap=128"};
	struct baseline b, back;
	char key[256];
	const double v[] = {1.5, 2.5, 3.25};

	scratch_dir(dir, sizeof(dir), "baseline");
	baseline_key(&h, key, sizeof(key));
	/* the hardware, file-name safe; not the kernel or the PLE parameters */
	ck_assert_str_eq(key, "intel-r-xeon-r-gold-6248-2-50ghz-8cpu-smt1-kvm_intel");
	struct host_info newer = h;
	snprintf(newer.kernel, sizeof(newer.kernel), "6.9");
	snprintf(newer.ple_params, sizeof(newer.ple_params), "ple_gap=0");
	char key2[256];
	baseline_key(&newer, key2, sizeof(key2));
	ck_assert_str_eq(key, key2);

	ck_assert_int_eq(baseline_load(dir, key, &back, err, sizeof(err)), 1); /* none yet */
	memset(&b, 0, sizeof(b));
	snprintf(b.key, sizeof(b.key), "%s", key);
	snprintf(b.recorded_at, sizeof(b.recorded_at), "2026-11-30T12:00:00Z");
	b.host = h;
	ck_assert_int_eq(baseline_put(&b, "solo", "kvm ticket pause", "acq_per_cpu_s", v, 3), 0);
	ck_assert_int_eq(baseline_put(&b, "over", "kvm tas pause", "acq_per_cpu_s", v, 2), 0);
	ck_assert_int_eq(baseline_put(&b, "solo", "kvm ticket pause", "acq_per_cpu_s", v, 1), 0);
	ck_assert_uint_eq(b.nr_entries, 2); /* replaced, not added */
	ck_assert_msg(!baseline_save(dir, &b, NULL, err, sizeof(err)), "%s", err);
	ck_assert_msg(!baseline_load(dir, key, &back, err, sizeof(err)), "%s", err);
	ck_assert_str_eq(back.recorded_at, "2026-11-30T12:00:00Z");
	ck_assert_str_eq(back.host.kernel, "6.1");
	ck_assert_str_eq(back.host.ple_params, "ple_gap=128");
	ck_assert_int_eq(back.host.smt, 1);
	const struct baseline_entry *e =
	    baseline_find(&back, "over", "kvm tas pause", "acq_per_cpu_s");
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->n, 2);
	ck_assert_double_eq(e->values[1], 2.5);
	ck_assert_ptr_null(baseline_find(&back, "over", "kvm tas pause", "stalls"));
	baseline_drop_scenario(&back, "solo");
	ck_assert_uint_eq(back.nr_entries, 1);
	baseline_free(&back);
	baseline_free(&b);

	/* a file that is not a baseline: an error naming it, not "no baseline" */
	char path[512];
	baseline_path(dir, "junk", path, sizeof(path));
	FILE *f = fopen(path, "w");
	fputs("{\"schema\": \"plerig-results\"}", f);
	fclose(f);
	ck_assert_int_eq(baseline_load(dir, "junk", &back, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "not a plerig-baseline file"));
	unlink(path);
	baseline_path(dir, key, path, sizeof(path));
	unlink(path);
	rmdir(dir);
}
END_TEST

static json_object *host_of(json_object *doc)
{
	json_object *h = NULL;
	ck_assert(json_object_object_get_ex(doc, "host", &h));
	return h;
}

/* A baseline names its host as a results file does: one shape, and older baselines still read. */
START_TEST(test_baseline_host_as_results)
{
	char dir[SCRATCH_DIR_LEN], path[512], key[256];
	struct host_info h = {.kernel = "6.1",
			      .kvm_module = "kvm_intel",
			      .cpu_model = "Xeon",
			      .cpus = 2,
			      .cpus_online = 2,
			      .smt = 0,
			      .ple_params = "ple_gap=128 ple_window=4096 odd=Y"};
	struct baseline b, back;
	struct outcome o;

	scratch_dir(dir, sizeof(dir), "baseline");
	memset(&b, 0, sizeof(b));
	baseline_key(&h, key, sizeof(key));
	snprintf(b.key, sizeof(b.key), "%s", key);
	b.host = h;
	ck_assert_msg(!baseline_save(dir, &b, NULL, err, sizeof(err)), "%s", err);
	baseline_path(dir, key, path, sizeof(path));
	json_object *saved = json_object_from_file(path);
	memset(&o, 0, sizeof(o));
	o.host = h;
	json_object *results = json_results_document(&o);
	ck_assert_ptr_nonnull(saved);
	ck_assert_ptr_nonnull(results);
	ck_assert_msg(json_object_equal(host_of(saved), host_of(results)), "%s\nvs\n%s",
		      json_object_to_json_string(host_of(saved)),
		      json_object_to_json_string(host_of(results)));
	json_object_put(saved);
	json_object_put(results);
	ck_assert_msg(!baseline_load(dir, key, &back, err, sizeof(err)), "%s", err);
	ck_assert_str_eq(back.host.ple_params, h.ple_params);
	ck_assert_int_eq(back.host.smt, 0);
	ck_assert_int_eq(back.host.cpus_online, 2);
	baseline_free(&back);
	unlink(path);

	/* as plerig wrote baselines before: ple_params one string, smt absent (unknown) */
	baseline_path(dir, "xeon-2cpu-smtunknown-kvm_intel", path, sizeof(path));
	FILE *f = fopen(path, "w");
	fputs("{\"schema\": \"plerig-baseline\", \"schema_version\": 1, \"key\": "
	      "\"xeon-2cpu-smtunknown-kvm_intel\", \"host\": {\"kernel\": \"6.1\", \"cpu_model\": "
	      "\"Xeon\", \"kvm_module\": \"kvm_intel\", \"cpus_online\": 2, \"ple_params\": "
	      "\"ple_gap=128\"}, \"entries\": []}",
	      f);
	fclose(f);
	ck_assert_msg(
	    !baseline_load(dir, "xeon-2cpu-smtunknown-kvm_intel", &back, err, sizeof(err)), "%s",
	    err);
	ck_assert_str_eq(back.host.ple_params, "ple_gap=128");
	ck_assert_int_eq(back.host.smt, -1);
	baseline_free(&back);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* A baseline file of the host "CPU", 2 CPUs online, no SMT, kvm_pvm; @entries spliced in. */
#define BKEY "cpu-2cpu-smt0-kvm_pvm"
#define BASELINE_DOC(version, key, model, recorded, entries)                                       \
	"{\"schema\": \"plerig-baseline\", \"schema_version\": " version ", \"key\": \"" key       \
	"\", \"plerig_version\": \"0.1\", \"recorded_at\": \"" recorded                            \
	"\", \"suite\": \"s.cfg\", "                                                               \
	"\"host\": {\"kernel\": \"6.1\", \"kvm_module\": \"kvm_pvm\", \"cpu_model\": \"" model     \
	"\", \"cpus\": 2, \"cpus_online\": 2, \"smt\": false, \"ple_params\": \"\"}, "             \
	"\"entries\": [" entries "]}"
#define ENTRY(scenario, metric, values)                                                            \
	"{\"scenario\": \"" scenario                                                               \
	"\", \"variant\": \"kvm ticket pause\", \"metric\": \"" metric "\", \"values\": [" values  \
	"]}"
#define GOOD_ENTRIES                                                                               \
	ENTRY("a", "acq_per_cpu_s", "1.5, 2")                                                      \
	"," ENTRY("a", "run_delay_share", "0, 1") "," ENTRY("a", "foreign_cpu_share", "0.25")

START_TEST(test_baseline_parse_good)
{
	static const char doc[] =
	    BASELINE_DOC("1", BKEY, "CPU", "2026\\u001b[31m\\u009b2J", GOOD_ENTRIES);
	struct baseline b;

	ck_assert_msg(!baseline_parse("k.json", BKEY, doc, strlen(doc), &b, err, sizeof(err)), "%s",
		      err);
	ck_assert_uint_eq(b.nr_entries, 3);
	ck_assert_double_eq(baseline_find(&b, "a", "kvm ticket pause", "acq_per_cpu_s")->values[0],
			    1.5);
	/* terminal escapes arrive escaped: ESC, and CSI as UTF-8 C1 */
	ck_assert_str_eq(b.recorded_at, "2026\\x1b[31m\\xc2\\x9b2J");
	baseline_free(&b);
}
END_TEST

static const struct {
	const char *doc;
	const char *message;
} bad_baselines[] = {
    {BASELINE_DOC("1", BKEY, "CPU", "t", ENTRY("a", "acq_per_cpu_s", "1, NaN")),
     "k.json: entries[0].values[1]: NaN out of range"},
    {BASELINE_DOC("1", BKEY, "CPU", "t", ENTRY("a", "acq_per_cpu_s", "Infinity")),
     "entries[0].values[0]: Infinity out of range"},
    {BASELINE_DOC("1", BKEY, "CPU", "t", ENTRY("a", "acq_per_cpu_s", "1e308")),
     "entries[0].values[0]: 1e308 out of range (0 to 1e+15"},
    {BASELINE_DOC("1", BKEY, "CPU", "t", ENTRY("a", "acq_per_cpu_s", "-3")),
     "entries[0].values[0]: -3 out of range"},
    {BASELINE_DOC("1", BKEY, "CPU", "t", ENTRY("a", "run_delay_share", "-50, -50, -50")),
     "entries[0].values[0]: -50 out of range (0 to 1 for run_delay_share)"},
    {BASELINE_DOC("1", BKEY, "CPU", "t", ENTRY("a", "run_delay_share", "1.5")),
     "out of range (0 to 1 for run_delay_share)"},
    {BASELINE_DOC("1", BKEY, "CPU", "t", ENTRY("a", "foreign_cpu_share", "-0.5")),
     "entries[0].values[0]: -0.5 out of range (0 to 1 for foreign_cpu_share)"},
    {BASELINE_DOC("1", BKEY, "CPU", "t", ENTRY("a", "speed", "1")),
     "entries[0]: metric: unknown 'speed'"},
    {BASELINE_DOC("1", BKEY, "CPU", "t", ENTRY("a", "stalls", "1") "," ENTRY("a", "stalls", "2")),
     "entries: a / kvm ticket pause / stalls twice"},
    {BASELINE_DOC("\"1\"", BKEY, "CPU", "t", GOOD_ENTRIES), "schema_version: not 1"},
    {BASELINE_DOC("1.9", BKEY, "CPU", "t", GOOD_ENTRIES), "schema_version: not 1"},
    {BASELINE_DOC("1", "other-key", "CPU", "t", GOOD_ENTRIES),
     "key: 'other-key' is not this file's, " BKEY},
    {BASELINE_DOC("1", BKEY, "Other CPU", "t", GOOD_ENTRIES),
     "host: cpu_model 'Other CPU', 2 CPUs online, kvm_module 'kvm_pvm' make the key "
     "other-cpu-2cpu-smt0-kvm_pvm, not " BKEY},
    /*
     * -2 CPUs online slugged into the key of 2 ("-2cpu" -> "2cpu") and was
     * written back as null, which then made another key: found by the
     * baseline fuzz target in CI's run (an accepted file must read back)
     */
    {"{\"schema\": \"plerig-baseline\", \"schema_version\": 1, \"key\": \"" BKEY
     "\", \"plerig_version\": \"0.1\", \"recorded_at\": \"t\", \"suite\": \"s.cfg\", "
     "\"host\": {\"kernel\": \"6.1\", \"kvm_module\": \"kvm_pvm\", \"cpu_model\": \"CPU\", "
     "\"cpus\": 2, \"cpus_online\": -2, \"smt\": false, \"ple_params\": \"\"}, "
     "\"entries\": [" ENTRY("a", "acq_per_cpu_s", "1") "]}",
     "host: cpu_model 'CPU', 0 CPUs online, kvm_module 'kvm_pvm' make the key "
     "cpu-0cpu-smt0-kvm_pvm, not " BKEY},
    {"{\"schema\": \"plerig-baseline\"", "not JSON: the text ends in the middle of a value"},
    {"[1] x", "not JSON"},
};

START_TEST(test_baseline_parse_bad)
{
	struct baseline b;
	const char *doc = bad_baselines[_i].doc;

	ck_assert_int_eq(baseline_parse("k.json", BKEY, doc, strlen(doc), &b, err, sizeof(err)),
			 -1);
	ck_assert_msg(strstr(err, bad_baselines[_i].message), "says '%s', not '%s'", err,
		      bad_baselines[_i].message);
	ck_assert_uint_eq(b.nr_entries, 0);
}
END_TEST

/* More entries than a baseline may have: refused, at once, whatever their order. */
START_TEST(test_baseline_entry_cap)
{
	size_t cap = (BASELINE_MAX_ENTRIES + 1) * 96 + 1024, n;
	char *doc = malloc(cap);
	struct baseline b;

	ck_assert_ptr_nonnull(doc);
	n = (size_t)snprintf(doc, cap, "%s", BASELINE_DOC("1", BKEY, "CPU", "t", ""));
	n -= 2; /* before "]}" */
	for (unsigned i = 0; i <= BASELINE_MAX_ENTRIES; i++)
		n += (size_t)snprintf(doc + n, cap - n,
				      "%s{\"scenario\": \"s%u\", \"variant\": "
				      "\"v\", \"metric\": \"stalls\", \"values\": [1]}",
				      i ? "," : "", BASELINE_MAX_ENTRIES - i);
	n += (size_t)snprintf(doc + n, cap - n, "]}");
	ck_assert_int_eq(baseline_parse("k.json", BKEY, doc, n, &b, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "k.json: entries: 20001, more than the 20000"));
	free(doc);
}
END_TEST

/* Entries put in any order are all found (kept sorted, found by binary search). */
START_TEST(test_baseline_put_find)
{
	struct baseline b;
	char sc[16], va[16];
	double v = 1.0;

	memset(&b, 0, sizeof(b));
	for (unsigned i = 0; i < 500; i++) {
		unsigned x = (i * 7919u) % 500u;
		snprintf(sc, sizeof(sc), "s%u", x % 37);
		snprintf(va, sizeof(va), "v%u", x);
		v = x;
		ck_assert_int_eq(baseline_put(&b, sc, va, "stalls", &v, 1), 0);
	}
	ck_assert_uint_eq(b.nr_entries, 500);
	for (unsigned x = 0; x < 500; x++) {
		snprintf(sc, sizeof(sc), "s%u", x % 37);
		snprintf(va, sizeof(va), "v%u", x);
		const struct baseline_entry *e = baseline_find(&b, sc, va, "stalls");
		ck_assert_ptr_nonnull(e);
		ck_assert_double_eq(e->values[0], (double)x);
	}
	baseline_drop_scenario(&b, "s3");
	ck_assert_ptr_null(baseline_find(&b, "s3", "v3", "stalls"));
	ck_assert_ptr_nonnull(baseline_find(&b, "s4", "v4", "stalls"));
	baseline_free(&b);
}
END_TEST

static void test_host(struct host_info *h)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->kernel, sizeof(h->kernel), "6.1");
	snprintf(h->kvm_module, sizeof(h->kvm_module), "kvm_pvm");
	snprintf(h->cpu_model, sizeof(h->cpu_model), "CPU");
	h->cpus = h->cpus_online = 2;
	h->smt = 0;
}

static void recording(struct baseline *b, const char *scenario, double value)
{
	memset(b, 0, sizeof(*b));
	test_host(&b->host);
	snprintf(b->key, sizeof(b->key), BKEY);
	snprintf(b->recorded_at, sizeof(b->recorded_at), "now");
	ck_assert_int_eq(baseline_put(b, scenario, "v", "acq_per_cpu_s", &value, 1), 0);
}

/* Two recordings of different scenarios both land; a scenario recorded again replaces its own. */
START_TEST(test_baseline_save_merges)
{
	char dir[SCRATCH_DIR_LEN], path[512];
	struct baseline b, back;

	scratch_dir(dir, sizeof(dir), "baseline");
	recording(&b, "x", 1.0);
	ck_assert_msg(!baseline_save(dir, &b, NULL, err, sizeof(err)), "%s", err);
	baseline_free(&b);
	recording(&b, "y", 2.0);
	ck_assert_msg(!baseline_save(dir, &b, NULL, err, sizeof(err)), "%s", err);
	baseline_free(&b);
	recording(&b, "x", 3.0);
	ck_assert_msg(!baseline_save(dir, &b, NULL, err, sizeof(err)), "%s", err);
	baseline_free(&b);
	ck_assert_msg(!baseline_load(dir, BKEY, &back, err, sizeof(err)), "%s", err);
	ck_assert_uint_eq(back.nr_entries, 2);
	ck_assert_double_eq(baseline_find(&back, "x", "v", "acq_per_cpu_s")->values[0], 3.0);
	ck_assert_double_eq(baseline_find(&back, "y", "v", "acq_per_cpu_s")->values[0], 2.0);
	baseline_free(&back);
	baseline_path(dir, BKEY, path, sizeof(path));
	unlink(path);
	rmdir(dir);
}
END_TEST

struct saver {
	const char *dir;
	FILE *note;
	int rc;
	char err[512];
};

static void *save_y(void *arg)
{
	struct saver *s = arg;
	struct baseline b;
	recording(&b, "y", 2.0);
	s->rc = baseline_save(s->dir, &b, s->note, s->err, sizeof(s->err));
	baseline_free(&b);
	fclose(s->note);
	return NULL;
}

/*
 * A recording that finds the store locked waits, says so, and then merges
 * with what the holder wrote meanwhile: the interleaving forced by holding
 * the lock here, seen through the note, never by timing.
 */
START_TEST(test_baseline_save_waits_for_the_lock)
{
	char dir[SCRATCH_DIR_LEN], path[512], line[256];
	int pipefd[2];
	pthread_t t;
	struct baseline b, back;

	scratch_dir(dir, sizeof(dir), "baseline");
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(dfd, 0);
	ck_assert_int_eq(flock(dfd, LOCK_EX), 0);
	ck_assert_int_eq(pipe(pipefd), 0);
	struct saver s = {.dir = dir, .note = fdopen(pipefd[1], "w")};
	FILE *note = fdopen(pipefd[0], "r");
	ck_assert_int_eq(pthread_create(&t, NULL, save_y, &s), 0);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), note));
	ck_assert_ptr_nonnull(strstr(line, "waiting for another recording into"));
	/* the holder's recording lands while the other waits */
	recording(&b, "x", 1.0);
	char *text = baseline_text(&b);
	baseline_free(&b);
	baseline_path(dir, BKEY, path, sizeof(path));
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	free(text);
	ck_assert_int_eq(flock(dfd, LOCK_UN), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	fclose(note);
	close(dfd);
	ck_assert_msg(!s.rc, "%s", s.err);
	ck_assert_msg(!baseline_load(dir, BKEY, &back, err, sizeof(err)), "%s", err);
	ck_assert_ptr_nonnull(baseline_find(&back, "x", "v", "acq_per_cpu_s"));
	ck_assert_ptr_nonnull(baseline_find(&back, "y", "v", "acq_per_cpu_s"));
	baseline_free(&back);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* Planted symbolic links and FIFOs in the store: refused, never followed, never waited on. */
START_TEST(test_baseline_store_links_and_fifos)
{
	char dir[SCRATCH_DIR_LEN], path[512], target[600];
	struct baseline b, back;

	scratch_dir(dir, sizeof(dir), "baseline");
	baseline_path(dir, BKEY, path, sizeof(path));
	snprintf(target, sizeof(target), "%s/planted", dir);
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(baseline_load(dir, BKEY, &back, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "is a symbolic link, which is not followed"));
	recording(&b, "x", 1.0);
	ck_assert_int_eq(baseline_save(dir, &b, NULL, err, sizeof(err)), -1);
	ck_assert_int_eq(access(target, F_OK), -1); /* the link's target was not created */
	unlink(path);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(baseline_load(dir, BKEY, &back, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "is a FIFO, not a regular file"));
	unlink(path);
	baseline_free(&b);
	/* a store whose parent is missing: said before anything is recorded */
	ck_assert_int_eq(baseline_store_prepare("/nonexistent/a/b", err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "its parent directory must exist"));
	ck_assert_msg(!baseline_store_prepare(dir, err, sizeof(err)), "%s", err);
	rmdir(dir);
}
END_TEST

static struct check_result result(void)
{
	struct check_result r;
	memset(&r, 0, sizeof(r));
	snprintf(r.suite, sizeof(r.suite), "s.cfg");
	r.scenarios_run = 1;
	check_result_add(&r, "solo", "progress", CHECK_PASS, "held in 3 runs");
	check_result_add(&r, "solo", "acq <b> & 'c' # d", CHECK_FAIL, "regression: -10 %% \"x\"");
	check_result_add(&r, "solo", "stalls", CHECK_NOISY, "CI 30 %% wide");
	check_result_add(&r, "ple", "ple-exits", CHECK_SKIP, "no PLE # here");
	return r;
}

static char *print_to_string(void (*print)(FILE *, const struct check_result *),
			     const struct check_result *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	print(f, r);
	fclose(f);
	return text;
}

START_TEST(test_status)
{
	struct check_result r = result();
	ck_assert_int_eq(check_result_status(&r), CHECK_EXIT_FAILED);
	r.cases[1].outcome = CHECK_PASS;
	ck_assert_int_eq(check_result_status(&r), CHECK_EXIT_OK); /* too noisy is not a failure */
	r.scenarios_run = 0;
	ck_assert_int_eq(check_result_status(&r), CHECK_EXIT_SKIPPED);
	check_result_free(&r);
}
END_TEST

START_TEST(test_tap)
{
	struct check_result r = result();
	char *t = print_to_string(verdicts_tap_print, &r);
	ck_assert_msg(!strncmp(t, "TAP version 13\n1..4\nok 1 - solo: progress\n", 40), "%s", t);
	/* '#' would start a directive in a description: replaced */
	ck_assert_ptr_nonnull(strstr(t, "\nnot ok 2 - solo: acq <b> & 'c' _ d\n"));
	ck_assert_ptr_nonnull(strstr(t, "  message: 'regression: -10 % \"x\"'\n"));
	ck_assert_ptr_nonnull(
	    strstr(t, "\nok 3 - solo: stalls # SKIP too noisy to judge: CI 30 % wide\n"));
	ck_assert_ptr_nonnull(strstr(t, "\nok 4 - ple: ple-exits # SKIP no PLE _ here\n"));
	free(t);
	check_result_free(&r);
}
END_TEST

START_TEST(test_junit)
{
	struct check_result r = result();
	char *x = print_to_string(verdicts_junit_print, &r);
	ck_assert_ptr_nonnull(strstr(
	    x, "<testsuites name=\"plerig check\" tests=\"4\" failures=\"1\" skipped=\"2\""));
	ck_assert_ptr_nonnull(strstr(x, "<testsuite name=\"solo\" tests=\"3\" failures=\"1\""));
	ck_assert_ptr_nonnull(strstr(x, "name=\"acq &lt;b&gt; &amp; &#39;c&#39; # d\""));
	ck_assert_ptr_nonnull(strstr(x, "<failure message=\"regression: -10 % &quot;x&quot;\""));
	ck_assert_ptr_nonnull(strstr(x, "<skipped message=\"too noisy to judge: CI 30 % wide\""));
	ck_assert_ptr_nonnull(strstr(x, "<skipped message=\"no PLE # here\""));
	free(x);
	check_result_free(&r);
}
END_TEST

/*
 * Bytes no reader may take for anything else: the guest path with a
 * carriage return and a stray byte, a vertical tab, U+FFFE, a control
 * character, an overlong '/', a surrogate; and UTF-8 that stays as it is.
 */
#define HOSTILE "/x\rnot ok 97\xff\vA\xef\xbf\xbe\x01\xc0\xaf\xed\xa0\x80 caf\xc3\xa9 \xe2\x80\xa8"

static struct check_result hostile_result(void)
{
	struct check_result r;
	memset(&r, 0, sizeof(r));
	snprintf(r.suite, sizeof(r.suite), "s.cfg");
	r.scenarios_run = 1;
	check_result_add(&r, "a\rb", "progress", CHECK_FAIL, "guest image " HOSTILE);
	check_result_add(&r, "a\rb", "acq\v", CHECK_SKIP, HOSTILE);
	check_result_add(&r, "a\rb", "stalls", CHECK_PASS, HOSTILE);
	return r;
}

#define ESCAPED                                                                                    \
	"/x\\x0dnot ok 97\\xff\\x0bA\\xef\\xbf\\xbe\\x01\\xc0\\xaf\\xed\\xa0\\x80 caf\xc3\xa9 "    \
	"\\xe2\\x80\\xa8"

START_TEST(test_hostile_bytes)
{
	struct check_result r = hostile_result();
	char *t = print_to_string(verdicts_tap_print, &r);
	char *x = print_to_string(verdicts_junit_print, &r);
	for (const char *p = t; *p; p++) /* one line per line: no \r, \v or other control */
		ck_assert_msg(*p == '\n' || (unsigned char)*p >= 0x20, "TAP byte %#x: %s", *p, t);
	ck_assert_msg(
	    strstr(t,
		   "\nnot ok 1 - a\\x0db: progress\n  ---\n  message: 'guest image " ESCAPED "'\n"),
	    "%s", t);
	ck_assert_msg(strstr(t, "\nok 2 - a\\x0db: acq\\x0b # SKIP " ESCAPED "\n"), "%s", t);
	ck_assert_ptr_null(strstr(t, "\nnot ok 97"));
	ck_assert_msg(strstr(x, "<failure message=\"guest image " ESCAPED "\""), "%s", x);
	ck_assert_msg(strstr(x, "<testsuite name=\"a\\x0db\""), "%s", x);
	for (const char *p = x; *p; p++)
		ck_assert_msg(*p == '\n' || (unsigned char)*p >= 0x20, "XML byte %#x: %s", *p, x);
	free(t);
	free(x);
	check_result_free(&r);
}
END_TEST

/* When the file cannot be written: a fallback named plerig-junit-PID-XXXXXX.xml, no spaces. */
START_TEST(test_fallback_names)
{
	struct check_result r = result();
	char dir[SCRATCH_DIR_LEN], pattern[SCRATCH_DIR_LEN + 64], path[PATH_MAX];
	static const struct {
		int (*write)(const char *, const struct check_result *, char *, size_t);
		const char *name, *ext;
	} kinds[] = {{verdicts_junit_write, "junit", "xml"}, {verdicts_tap_write, "tap", "tap"}};
	scratch_dir(dir, sizeof(dir), "fallback");
	setenv("TMPDIR", dir, 1);
	for (unsigned i = 0; i < 2; i++) {
		regex_t re;
		regmatch_t m[2];
		ck_assert_int_eq(kinds[i].write("/nonexistent/d/out", &r, err, sizeof(err)), -1);
		snprintf(pattern, sizeof(pattern),
			 "(%s/plerig-%s-%ld-[A-Za-z0-9]{6}\\.%s) instead$", dir, kinds[i].name,
			 (long)getpid(), kinds[i].ext);
		ck_assert_int_eq(regcomp(&re, pattern, REG_EXTENDED), 0);
		ck_assert_msg(regexec(&re, err, 2, m, 0) == 0, "%s does not match %s", err,
			      pattern);
		regfree(&re);
		snprintf(path, sizeof(path), "%.*s", (int)(m[1].rm_eo - m[1].rm_so),
			 err + m[1].rm_so);
		ck_assert_int_eq(unlink(path), 0);
	}
	unsetenv("TMPDIR");
	ck_assert_int_eq(rmdir(dir), 0);
	check_result_free(&r);
}
END_TEST

START_TEST(test_summary_names_failures)
{
	struct check_result r = result();
	char *s = print_to_string(verdicts_summary_print, &r);
	ck_assert_ptr_nonnull(strstr(s, "  FAIL  acq <b> & 'c' # d: regression: -10 % \"x\"\n"));
	ck_assert_ptr_nonnull(strstr(s, "  skip  all 1: no PLE # here\n"));
	ck_assert_ptr_nonnull(strstr(s, "1 passed, 1 failed, 1 skipped, 1 too noisy to judge"));
	free(s);
	check_result_free(&r);
}
END_TEST

/* ESC, BEL and C1's CSI (U+009B): a terminal would take each as a command. */
#define TERMINAL_HOSTILE                                                                           \
	"\x1b]0;owned\a\xc2\x9b"                                                                   \
	"2J"
#define TERMINAL_ESCAPED "\\x1b]0;owned\\x07\\xc2\\x9b2J"

START_TEST(test_summary_header_hostile_host)
{
	struct check_result r = result();
	snprintf(r.host.name, sizeof(r.host.name), "node" TERMINAL_HOSTILE);
	snprintf(r.host.connection, sizeof(r.host.connection), "qemu+ssh://n" TERMINAL_HOSTILE "/");
	snprintf(r.host.cpu_model, sizeof(r.host.cpu_model), "Xeon" TERMINAL_HOSTILE);
	snprintf(r.host.kernel, sizeof(r.host.kernel), "6.1" TERMINAL_HOSTILE);
	snprintf(r.host.kvm_module, sizeof(r.host.kvm_module), "kvm" TERMINAL_HOSTILE);
	/* a note's fields come made printable (check_host.c); its line breaks are its own */
	snprintf(r.baseline_note, sizeof(r.baseline_note),
		 "note" TERMINAL_HOSTILE "\n  second line");
	for (int with_connection = 1; with_connection >= 0; with_connection--) {
		if (!with_connection)
			r.host.connection[0] = '\0';
		char *s = print_to_string(verdicts_summary_print, &r);
		for (const char *p = s; *p; p++)
			ck_assert_msg(*p == '\n' || ((unsigned char)*p >= 0x20 && *p != 0x7f &&
						     ((unsigned char)*p != 0xc2 ||
						      (unsigned char)p[1] >= 0xa0)),
				      "summary byte %#x: %s", (unsigned char)*p, s);
		ck_assert_msg(strstr(s, "Xeon" TERMINAL_ESCAPED ", 0 CPUs, kvm" TERMINAL_ESCAPED
					", kernel 6.1" TERMINAL_ESCAPED "\n"),
			      "%s", s);
		ck_assert_msg(strstr(s, "\nnote" TERMINAL_ESCAPED "\n  second line\n"), "%s", s);
		if (with_connection)
			ck_assert_msg(strstr(s, "host node" TERMINAL_ESCAPED
						" (qemu+ssh://n" TERMINAL_ESCAPED "/)"),
				      "%s", s);
		free(s);
	}
	check_result_free(&r);
}
END_TEST

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static Suite *check_suite(void)
{
	Suite *s = suite_create("check");
	TCase *t = tcase_create("check");

	tcase_add_test(t, test_suite_parse);
	tcase_add_test(t, test_baseline_parse_good);
	tcase_add_loop_test(t, test_baseline_parse_bad, 0, N(bad_baselines));
	tcase_add_test(t, test_baseline_entry_cap);
	tcase_add_test(t, test_baseline_put_find);
	tcase_add_test(t, test_baseline_save_merges);
	tcase_add_test(t, test_baseline_save_waits_for_the_lock);
	tcase_add_test(t, test_baseline_store_links_and_fifos);
	tcase_add_test(t, test_suite_paths_owned);
	tcase_add_test(t, test_suite_section);
	tcase_add_test(t, test_suite_nul_byte);
	tcase_add_test(t, test_suite_too_many_scenarios);
	tcase_add_loop_test(t, test_suite_errors, 0, N(bad_suites));
	tcase_add_test(t, test_holm);
	tcase_add_test(t, test_baseline_store);
	tcase_add_test(t, test_baseline_host_as_results);
	tcase_add_test(t, test_status);
	tcase_add_test(t, test_tap);
	tcase_add_test(t, test_junit);
	tcase_add_test(t, test_summary_names_failures);
	tcase_add_test(t, test_summary_header_hostile_host);
	tcase_add_test(t, test_fallback_names);
	tcase_add_test(t, test_hostile_bytes);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(check_suite)
