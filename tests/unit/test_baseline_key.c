// SPDX-License-Identifier: GPL-2.0
/*
 * Baseline keys keep hosts apart (issue 25, item 9): names that made one
 * key before ("node.1" and "node-1"; two names equal in their first 62
 * characters) make two; a plain name keeps the key it had; a baseline
 * recorded under the old key of a host is still read as that host's and
 * carried over to its new key by the next recording, and one that another
 * host's name made is refused, never taken for this host's figures.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "experiment/baseline_store.h"
#include "support/check_main.h"
#include "support/scratch_dir.h"
#include "util/errbuf.h"

static char err[ERRBUF_SIZE];

/* A host of check --connect named @name, of one kind of machine. */
static struct host_info host(const char *name)
{
	struct host_info h = {.cpus = 64, .cpus_online = 64, .smt = 1};
	snprintf(h.cpu_model, sizeof(h.cpu_model), "AMD EPYC 7B13");
	snprintf(h.kvm_module, sizeof(h.kvm_module), "kvm_amd");
	snprintf(h.name, sizeof(h.name), "%s", name);
	snprintf(h.connection, sizeof(h.connection), "qemu+ssh://%s/system", name);
	return h;
}

static const char *key_of(const char *name)
{
	static char key[4][256];
	static unsigned next;
	const struct host_info h = host(name);
	char *k = key[next++ % 4];
	baseline_key(&h, k, sizeof(key[0]));
	return k;
}

START_TEST(names_that_made_one_key_make_two)
{
	char long_a[100], long_b[100];
	ck_assert_str_eq(key_of("node-1"), "node-1-amd-epyc-7b13-64cpu-smt1-kvm_amd");
	ck_assert_str_ne(key_of("node.1"), key_of("node-1"));
	ck_assert_str_ne(key_of("node_1"), key_of("node-1"));
	ck_assert_str_ne(key_of("node--1"), key_of("node-1"));
	ck_assert_msg(!strncmp(key_of("node.1"), "node-1--", 8), "%s", key_of("node.1"));
	/* 63 characters or more: the old key cut them at 62 */
	memset(long_a, 'a', 70);
	memcpy(long_b, long_a, 70);
	long_a[70] = long_b[70] = '\0';
	long_b[65] = 'b';
	ck_assert_str_ne(key_of(long_a), key_of(long_b));
	/* a plain name keeps its key, in either case (a host name's case is no other host) */
	ck_assert_str_eq(key_of("hostA"), "hosta-amd-epyc-7b13-64cpu-smt1-kvm_amd");
	ck_assert_str_eq(key_of("HOSTA"), key_of("hosta"));
	ck_assert_str_eq(key_of("node.1"), key_of("NODE.1"));
	/* never a key that starts with '-' */
	ck_assert_msg(!strncmp(key_of("..."), "host--", 6), "%s", key_of("..."));
	/* what the old key was, for the files recorded under it */
	const struct host_info dotted = host("node.1");
	char old[256];
	baseline_legacy_key(&dotted, old, sizeof(old));
	ck_assert_str_eq(old, key_of("node-1"));
	/* without --connect the key is the kind of machine, as always */
	struct host_info alone = host("node.1");
	alone.connection[0] = '\0';
	baseline_key(&alone, old, sizeof(old));
	ck_assert_str_eq(old, "amd-epyc-7b13-64cpu-smt1-kvm_amd");
}
END_TEST

/* @h's baseline with one entry of @scenario, recorded (merged) into @dir. */
static void record(const char *dir, const struct host_info *h, const char *key,
		   const char *scenario, double value)
{
	struct baseline b = {0};
	b.host = *h;
	snprintf(b.key, sizeof(b.key), "%s", key);
	ck_assert_int_eq(baseline_put(&b, scenario, "v", "acq_per_s", &value, 1), 0);
	ck_assert_msg(!baseline_save(dir, &b, NULL, err, sizeof(err)), "%s", err);
	baseline_free(&b);
}

static bool exists(const char *dir, const char *key)
{
	char path[1024];
	baseline_path(dir, key, path, sizeof(path));
	return !access(path, F_OK);
}

/* An older plerig's file of this host: read as its own, then carried to the new key. */
START_TEST(an_old_key_of_this_host_is_read_and_carried_over)
{
	char dir[SCRATCH_DIR_LEN], old[256];
	struct baseline back;
	const struct host_info h = host("node.1");
	scratch_dir(dir, sizeof(dir), "store");
	baseline_legacy_key(&h, old, sizeof(old));
	record(dir, &h, old, "first", 10.0); /* as the old plerig filed it */
	ck_assert_msg(!baseline_load_host(dir, &h, &back, err, sizeof(err)), "%s", err);
	ck_assert_str_eq(back.key, old);
	ck_assert_ptr_nonnull(baseline_find(&back, "first", "v", "acq_per_s"));
	baseline_free(&back);
	record(dir, &h, key_of("node.1"), "second", 20.0);
	ck_assert(!exists(dir, old));
	ck_assert_msg(!baseline_load_host(dir, &h, &back, err, sizeof(err)), "%s", err);
	ck_assert_str_eq(back.key, key_of("node.1"));
	ck_assert_ptr_nonnull(baseline_find(&back, "first", "v", "acq_per_s"));
	ck_assert_ptr_nonnull(baseline_find(&back, "second", "v", "acq_per_s"));
	baseline_free(&back);
}
END_TEST

/*
 * node.1's file under the old key is where node-1's goes: node-1 is refused
 * it, told where it goes now; node.1 never reads node-1's file as its own.
 */
START_TEST(another_hosts_file_at_the_key_is_refused)
{
	char dir[SCRATCH_DIR_LEN], old[256];
	struct baseline back;
	const struct host_info dotted = host("node.1"), dashed = host("node-1");
	scratch_dir(dir, sizeof(dir), "store");
	baseline_legacy_key(&dotted, old, sizeof(old));
	record(dir, &dotted, old, "first", 10.0);
	ck_assert_int_eq(baseline_load_host(dir, &dashed, &back, err, sizeof(err)), -2);
	ck_assert_msg(
	    strstr(err, "holds the baseline of host 'node.1', not of this host 'node-1'") &&
		strstr(err, key_of("node.1")),
	    "%s", err);
	struct baseline b = {0};
	double v = 1.0;
	b.host = dashed;
	snprintf(b.key, sizeof(b.key), "%s", key_of("node-1"));
	ck_assert_int_eq(baseline_put(&b, "mine", "v", "acq_per_s", &v, 1), 0);
	ck_assert_int_eq(baseline_save(dir, &b, NULL, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "not of this host 'node-1'"), "%s", err);
	baseline_free(&b);
	/* moved where the message says: each host its own */
	char from[1024], to[1024];
	baseline_path(dir, old, from, sizeof(from));
	baseline_path(dir, key_of("node.1"), to, sizeof(to));
	ck_assert_int_eq(rename(from, to), 0);
	ck_assert_int_eq(baseline_load_host(dir, &dashed, &back, err, sizeof(err)), 1);
	record(dir, &dashed, key_of("node-1"), "mine", 1.0);
	ck_assert_msg(!baseline_load_host(dir, &dotted, &back, err, sizeof(err)), "%s", err);
	ck_assert_ptr_nonnull(baseline_find(&back, "first", "v", "acq_per_s"));
	ck_assert_ptr_null(baseline_find(&back, "mine", "v", "acq_per_s"));
	baseline_free(&back);
}
END_TEST

/* node-1's own file sits at node.1's old key: node.1 has none yet, and keeps its hands off. */
START_TEST(a_plain_hosts_file_is_not_anothers_old_one)
{
	char dir[SCRATCH_DIR_LEN];
	struct baseline back;
	const struct host_info dotted = host("node.1"), dashed = host("node-1");
	scratch_dir(dir, sizeof(dir), "store");
	record(dir, &dashed, key_of("node-1"), "mine", 1.0);
	ck_assert_int_eq(baseline_load_host(dir, &dotted, &back, err, sizeof(err)), 1);
	ck_assert_str_eq(back.key, key_of("node.1"));
	record(dir, &dotted, key_of("node.1"), "theirs", 2.0);
	ck_assert(exists(dir, key_of("node-1")));
	ck_assert_msg(!baseline_load_host(dir, &dashed, &back, err, sizeof(err)), "%s", err);
	ck_assert_ptr_null(baseline_find(&back, "theirs", "v", "acq_per_s"));
	baseline_free(&back);
}
END_TEST

static Suite *baseline_key_suite(void)
{
	Suite *s = suite_create("baseline_key");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, names_that_made_one_key_make_two);
	tcase_add_test(tc, an_old_key_of_this_host_is_read_and_carried_over);
	tcase_add_test(tc, another_hosts_file_at_the_key_is_refused);
	tcase_add_test(tc, a_plain_hosts_file_is_not_anothers_old_one);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(baseline_key_suite)
