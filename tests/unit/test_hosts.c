// SPDX-License-Identifier: GPL-2.0
/*
 * Hosts as an axis (--connect URI1,URI2): the list, what an unreachable
 * host is called, each host's own schedule, the labels that tell hosts
 * apart, and comparisons that never pair two hosts' variants.
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "experiment/baseline_store.h"
#include "experiment/comparisons.h"
#include "experiment/host_identity.h"
#include "experiment/schedule.h"
#include "model/connect_list.h"
#include "model/outcome.h"
#include "model/plan.h"
#include "support/check_main.h"
#include "support/scratch_dir.h"
#include "util/at_once.h"
#include "support/fixtures.h"

static struct connect_list list;
static char err[512];

START_TEST(a_list_is_split_at_its_commas)
{
	ck_assert_int_eq(connect_list_parse("qemu+ssh://root@a/system?no_tty=1,qemu:///system,"
					    "embedded",
					    &list, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(list.nr, 3);
	ck_assert_str_eq(list.uris[0], "qemu+ssh://root@a/system?no_tty=1");
	ck_assert_str_eq(list.uris[1], "qemu:///system");
	ck_assert_str_eq(connect_list_uri(&list, 1), "qemu:///system");
	ck_assert_ptr_null(connect_list_uri(&list, 2)); /* the embedded driver */
	ck_assert_int_eq(connect_list_parse(NULL, &list, err, sizeof(err)), 0);
	ck_assert_uint_eq(list.nr, 0);
	ck_assert_int_eq(connect_list_parse("qemu:///system", &list, err, sizeof(err)), 0);
	ck_assert_uint_eq(list.nr, 1);
}
END_TEST

START_TEST(a_bad_list_is_refused_with_the_reason)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
	    {"qemu:///system,", "empty URI"},
	    {",qemu:///system", "empty URI"},
	    {"a,,b", "empty URI"},
	    {"qemu+ssh://u@a/system,qemu+ssh://u@a/system", "named twice"},
	    {"embedded,qemu:///embed?root=/var/tmp/x", "write 'embedded'"},
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_int_eq(connect_list_parse(bad[i].text, &list, err, sizeof(err)), -1);
		ck_assert_msg(strstr(err, bad[i].says), "%s: %s", bad[i].text, err);
	}
	/* the user of a URI named twice is not repeated in the message */
	ck_assert_ptr_null(strstr(err, "u@"));
	char many[CONNECT_MAX_HOSTS * 24] = "";
	for (unsigned i = 0; i <= CONNECT_MAX_HOSTS; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many),
			 "%sqemu+tcp://h%u/system", i ? "," : "", i);
	ck_assert_int_eq(connect_list_parse(many, &list, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "more than"));
	char *long_uri = malloc(CONNECT_URI_MAX + 1);
	memset(long_uri, 'a', CONNECT_URI_MAX);
	long_uri[CONNECT_URI_MAX] = '\0';
	ck_assert_int_eq(connect_list_parse(long_uri, &list, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "longer than"));
	free(long_uri);
}
END_TEST

START_TEST(an_unreached_host_is_called_by_its_uri)
{
	char name[64];
	static const char *const cases[][2] = {
	    {"qemu+ssh://root@hostA:2222/system?keyfile=/k", "hostA"},
	    {"qemu+tcp://hostB/system", "hostB"},
	    {"qemu+ssh://[::1]/system", "[::1]"},
	    {"qemu+ssh://u@[::1]:22/system", "[::1]"},
	    /* the userinfo ends at the last '@': no part of a password is a name */
	    {"qemu+ssh://u:p@ss@hostC/system", "hostC"},
	    {"qemu:///system", ""},
	    {"", ""},
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		connect_uri_host(cases[i][0], name, sizeof(name));
		ck_assert_msg(!strcmp(name, cases[i][1]), "%s: '%s'", cases[i][0], name);
	}
}
END_TEST

/*
 * Which hosts run their VMs on this machine (check then sets a scenario's
 * params and counts its ftrace here): the embedded driver and URIs without
 * a host part; one with a host part is another machine, even 127.0.0.1.
 */
START_TEST(a_host_without_a_host_part_is_this_machine)
{
	static const char *const here[] = {NULL, "qemu:///system", "qemu:///session",
					   "qemu:///embed?root=/tmp/x"};
	static const char *const there[] = {"qemu+ssh://root@hostA/system",
					    "qemu+ssh://127.0.0.1:2222/system?no_tty=1",
					    "qemu+tcp://hostB/system", "hostA"};
	for (unsigned i = 0; i < sizeof(here) / sizeof(here[0]); i++)
		ck_assert_msg(host_is_this_machine(here[i]), "%s", here[i] ? here[i] : "embedded");
	for (unsigned i = 0; i < sizeof(there) / sizeof(there[0]); i++)
		ck_assert_msg(!host_is_this_machine(there[i]), "%s", there[i]);
}
END_TEST

/* Each host runs only its own variants, every one repeat times, interleaved round by round. */
START_TEST(each_host_has_its_own_interleaved_schedule)
{
	const unsigned per_host = 3, discard = 1, repeat = 4;
	for (unsigned host = 0; host < 3; host++) {
		unsigned n, count[3] = {0};
		struct slot *s = schedule_host(ORDER_INTERLEAVE, host * per_host, per_host, discard,
					       repeat, 7, &n);
		ck_assert_ptr_nonnull(s);
		ck_assert_uint_eq(n, per_host * (discard + repeat));
		for (unsigned k = 0; k < n; k++) {
			ck_assert_uint_ge(s[k].variant, host * per_host);
			ck_assert_uint_lt(s[k].variant, (host + 1) * per_host);
			ck_assert_uint_eq(s[k].variant, host * per_host + k % per_host);
			ck_assert_uint_eq(s[k].round, k / per_host);
			count[s[k].variant - host * per_host]++;
		}
		for (unsigned v = 0; v < per_host; v++)
			ck_assert_uint_eq(count[v], discard + repeat);
		free(s);
	}
}
END_TEST

/* Shuffled, every host gets the same seed: the same order of its own variants. */
START_TEST(shuffled_hosts_share_the_order)
{
	unsigned n0, n1;
	struct slot *a = schedule_host(ORDER_SHUFFLE, 0, 5, 0, 6, 42, &n0);
	struct slot *b = schedule_host(ORDER_SHUFFLE, 5, 5, 0, 6, 42, &n1);
	ck_assert_uint_eq(n0, n1);
	for (unsigned k = 0; k < n0; k++) {
		ck_assert_uint_eq(b[k].variant, a[k].variant + 5);
		ck_assert_uint_eq(b[k].round, a[k].round);
	}
	free(a);
	free(b);
}
END_TEST

START_TEST(hosts_that_share_a_name_get_their_place)
{
	struct run_host hosts[3] = {0};
	struct outcome rep = {.hosts = hosts, .nr_hosts = 3};
	snprintf(hosts[0].info.name, sizeof(hosts[0].info.name), "vm");
	snprintf(hosts[1].info.name, sizeof(hosts[1].info.name), "other");
	snprintf(hosts[2].info.name, sizeof(hosts[2].info.name), "vm");
	outcome_label_hosts(&rep);
	ck_assert_str_eq(hosts[0].label, "vm(1)");
	ck_assert_str_eq(hosts[1].label, "other");
	ck_assert_str_eq(hosts[2].label, "vm(3)");
	struct variant v = {.host = 1};
	ck_assert_str_eq(outcome_host_label(&rep, &v), "other");
	ck_assert_str_eq(outcome_host_name(&rep, &v), "other");
	/* one host: nothing to tell apart in a table, its name in files */
	rep.nr_hosts = 1;
	v.host = 0;
	ck_assert_str_eq(outcome_host_label(&rep, &v), "");
	ck_assert_str_eq(outcome_host_name(&rep, &v), "vm(1)");
}
END_TEST

/* --relax pause,nop on two hosts: two comparisons, each within its host. */
START_TEST(comparisons_stay_on_their_host)
{
	struct series s[4];
	struct run_host hosts[2] = {0};
	struct outcome rep = {.series = s, .nr_series = 4, .hosts = hosts, .nr_hosts = 2};
	for (unsigned i = 0; i < 4; i++) {
		struct variant v = fixture_variant(BACKEND_LIBVIRT, 1, PLERIG_LOCK_TICKET,
						   i % 2 ? PLERIG_RELAX_NOP : PLERIG_RELAX_PAUSE);
		v.host = i / 2;
		fixture_series(&s[i], &v, 3);
		ck_assert_int_eq(series_compute_stats(&s[i]), 0);
	}
	ck_assert_int_eq(comparisons_build(&rep, REFERENCE_RELAX, PLERIG_RELAX_PAUSE), 0);
	ck_assert_uint_gt(rep.nr_comparisons, 0);
	unsigned pairs = 0;
	for (unsigned i = 0; i < rep.nr_comparisons; i++) {
		const struct comparison *c = &rep.comparisons[i];
		if (!c->metric)
			continue;
		ck_assert_uint_eq(s[c->reference].variant.host, s[c->candidate].variant.host);
		pairs += c->reference == 0 && c->candidate == 1;
		pairs += c->reference == 2 && c->candidate == 3;
	}
	ck_assert_uint_gt(pairs, 1);
	free(rep.comparisons);
	for (unsigned i = 0; i < 4; i++)
		series_free(&s[i]);
}
END_TEST

/* A remote host's defaults are its own CPUs; what the user gave stays. */
START_TEST(a_host_elsewhere_gets_its_own_cpus)
{
	struct run_plan *p = malloc(sizeof(*p));
	run_plan_defaults(p);
	run_plan_fit_host(p, 8);
	ck_assert_uint_eq(p->common.nr_pcpus, 8);
	ck_assert_uint_eq(p->common.pcpus[7], 7);
	ck_assert_uint_eq(p->nr_vcpu_counts, 2);
	ck_assert_uint_eq(p->vcpu_counts[0], 8);
	ck_assert_uint_eq(p->vcpu_counts[1], 16);
	run_plan_defaults(p);
	p->common.nr_pcpus = 1;
	p->common.pcpus[0] = 3;
	p->pcpus_given = true;
	p->vcpu_counts[0] = 5;
	p->nr_vcpu_counts = 1;
	p->vcpus_given = true;
	run_plan_fit_host(p, 8);
	ck_assert_uint_eq(p->common.nr_pcpus, 1);
	ck_assert_uint_eq(p->common.pcpus[0], 3);
	ck_assert_uint_eq(p->nr_vcpu_counts, 1);
	ck_assert_uint_eq(p->vcpu_counts[0], 5);
	/* unknown CPU count: nothing changes */
	run_plan_defaults(p);
	const unsigned before = p->common.nr_pcpus;
	run_plan_fit_host(p, 0);
	ck_assert_uint_eq(p->common.nr_pcpus, before);
	free(p);
}
END_TEST

/* A baseline of @h recorded under @key, read back into @back: its text (free it). */
static char *recorded_and_read_back(const struct host_info *h, const char *key,
				    struct baseline *back)
{
	struct baseline rec = {0};
	char err[512];
	rec.host = *h;
	snprintf(rec.key, sizeof(rec.key), "%s", key);
	snprintf(rec.plerig_version, sizeof(rec.plerig_version), "test");
	snprintf(rec.recorded_at, sizeof(rec.recorded_at), "2026-12-01T00:00:00Z");
	char *text = baseline_text(&rec);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(baseline_parse("b.json", key, text, strlen(text), back, err, sizeof(err)) ==
			  0,
		      "%s", err);
	return text;
}

/* check --connect: each host its own baseline, even two hosts of one model. */
START_TEST(a_hosts_baseline_key_has_its_name)
{
	struct host_info h = {.cpus = 64, .cpus_online = 64, .smt = 1};
	char alone[256], a[256], b[256];
	snprintf(h.cpu_model, sizeof(h.cpu_model), "AMD EPYC 7B13");
	snprintf(h.kvm_module, sizeof(h.kvm_module), "unknown");
	snprintf(h.name, sizeof(h.name), "hostA");
	baseline_key(&h, alone, sizeof(alone));
	ck_assert_str_eq(alone, "amd-epyc-7b13-64cpu-smt1-unknown");
	snprintf(h.connection, sizeof(h.connection), "qemu+ssh://***@hostA/system");
	baseline_key(&h, a, sizeof(a));
	ck_assert_str_eq(a, "hosta-amd-epyc-7b13-64cpu-smt1-unknown");
	snprintf(h.name, sizeof(h.name), "hostB.example");
	baseline_key(&h, b, sizeof(b));
	/* a '.' in a name: its slug and a hash of the name, so node-1 keeps its own */
	ck_assert_str_eq(b, "hostb-example--f028c15b-amd-epyc-7b13-64cpu-smt1-unknown");
	/* a recorded baseline of such a host reads back under its key */
	struct baseline back;
	free(recorded_and_read_back(&h, b, &back));
	ck_assert_str_eq(back.host.name, "hostB.example");
	ck_assert_str_eq(back.host.connection, "qemu+ssh://***@hostA/system");
	baseline_free(&back);
}
END_TEST

/*
 * A remote host's module inferred from its CPU flags keeps the key the host
 * had while its module said unknown (a recorded fleet's baselines stay
 * found), goes into the baseline with how it was inferred, and reads back.
 */
START_TEST(an_inferred_module_keeps_the_hosts_key)
{
	struct host_info h = {.cpus = 64, .cpus_online = 64, .smt = 1};
	char before[256], now[256];
	snprintf(h.cpu_model, sizeof(h.cpu_model), "Intel Xeon Gold 6338");
	snprintf(h.name, sizeof(h.name), "hostA");
	snprintf(h.connection, sizeof(h.connection), "qemu+ssh://***@hostA/system");
	snprintf(h.kvm_module, sizeof(h.kvm_module), "unknown");
	baseline_key(&h, before, sizeof(before));
	snprintf(h.kvm_module, sizeof(h.kvm_module), "kvm_intel");
	snprintf(h.kvm_module_source, sizeof(h.kvm_module_source),
		 "inferred from the host CPU's vmx flag; libvirt names no module");
	baseline_key(&h, now, sizeof(now));
	ck_assert_str_eq(now, before);
	ck_assert_str_eq(now, "hosta-intel-xeon-gold-6338-64cpu-smt1-unknown");
	struct baseline back;
	char *text = recorded_and_read_back(&h, now, &back);
	ck_assert_msg(strstr(text, "\"kvm_module\":\"kvm_intel\"") &&
			  strstr(text, "\"kvm_module_source\":\"inferred from the host CPU's vmx"),
		      "%s", text);
	ck_assert_str_eq(back.host.kvm_module, "kvm_intel");
	ck_assert_str_eq(back.host.kvm_module_source, h.kvm_module_source);
	char shown[256];
	host_kvm_module_text(&back.host, shown, sizeof(shown));
	ck_assert_str_eq(shown, "kvm_intel (inferred from the host CPU's vmx flag; libvirt names "
				"no module)");
	baseline_free(&back);
	free(text);
	/* a baseline file's words on the module are shown: no control character survives */
	snprintf(h.kvm_module_source, sizeof(h.kvm_module_source), "inferred\x1b[2J\a");
	free(recorded_and_read_back(&h, now, &back));
	ck_assert_msg(!strchr(back.host.kvm_module_source, '\x1b') &&
			  !strchr(back.host.kvm_module_source, '\a'),
		      "%s", back.host.kvm_module_source);
	baseline_free(&back);
	/* a module read on the machine itself is part of its key, as always */
	h.kvm_module_source[0] = '\0';
	h.connection[0] = '\0';
	baseline_key(&h, now, sizeof(now));
	ck_assert_str_eq(now, "intel-xeon-gold-6338-64cpu-smt1-kvm_intel");
}
END_TEST

static void *mark(void *arg)
{
	int *item = arg;
	*item += 10;
	return *item % 2 ? item : NULL; /* odd items "fail" */
}

/* Every item's work done once, the failures counted. */
START_TEST(each_item_at_once)
{
	int items[5] = {0, 1, 2, 3, 4};
	ck_assert_uint_eq(at_once(items, sizeof(items[0]), 5, mark), 2);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(items[i], i + 10);
	ck_assert_uint_eq(at_once(items, sizeof(items[0]), 0, mark), 0);
}
END_TEST

static char store[SCRATCH_DIR_LEN];

static void *prepare_often(void *arg)
{
	char err[512];
	for (int i = 0; i < 300; i++)
		if (baseline_store_prepare(store, err, sizeof(err)))
			return arg; /* the probe of another host's thread was in the way */
	return NULL;
}

/* check --connect prepares the baseline store for every host at once: no probe in another's way. */
START_TEST(hosts_prepare_one_store_at_once)
{
	int items[8] = {0};
	scratch_dir(store, sizeof(store), "store");
	ck_assert_uint_eq(at_once(items, sizeof(items[0]), 8, prepare_often), 0);
	ck_assert_int_eq(rmdir(store), 0); /* no probe left behind */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hosts");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, a_list_is_split_at_its_commas);
	tcase_add_test(tc, a_bad_list_is_refused_with_the_reason);
	tcase_add_test(tc, an_unreached_host_is_called_by_its_uri);
	tcase_add_test(tc, a_host_without_a_host_part_is_this_machine);
	tcase_add_test(tc, each_host_has_its_own_interleaved_schedule);
	tcase_add_test(tc, shuffled_hosts_share_the_order);
	tcase_add_test(tc, hosts_that_share_a_name_get_their_place);
	tcase_add_test(tc, comparisons_stay_on_their_host);
	tcase_add_test(tc, a_host_elsewhere_gets_its_own_cpus);
	tcase_add_test(tc, a_hosts_baseline_key_has_its_name);
	tcase_add_test(tc, an_inferred_module_keeps_the_hosts_key);
	tcase_add_test(tc, each_item_at_once);
	tcase_add_test(tc, hosts_prepare_one_store_at_once);
	suite_add_tcase(s, tc);
	return check_run(s, CK_FORK_GETENV);
}
