// SPDX-License-Identifier: GPL-2.0
/*
 * Lock pvqspin under QEMU: what the config asks of the guest, and what the
 * guest's CPUID (its END frame's kvm_features) makes of the results.
 */
#include <check.h>
#include <string.h>

#include "backends/libvirt/lv_pv.h"
#include "support/check_main.h"

#define STEAL	 (1u << 5)
#define UNHALT	 (1u << 7)
#define STABLE	 (1u << 24)
#define FEATURES (STEAL | UNHALT | STABLE | 0x1bu)

static struct variant pvqspin(enum ple_mode ple)
{
	return (struct variant){.lock = PLERIG_LOCK_PVQSPIN, .ple = ple};
}

/* Config and results for @v on @h whose guest read @features. */
static void run(const struct variant *v, const struct lv_pv_host *h, uint32_t features,
		struct plerig_config *cfg, struct variant_result *r)
{
	memset(cfg, 0, sizeof(*cfg));
	memset(r, 0, sizeof(*r));
	lv_pv_config(cfg, v, h, r);
	lv_pv_results(cfg, v, h, features, r);
}

START_TEST(a_kvm_that_offers_pv_unhalt_halts_and_has_steal_time)
{
	const struct lv_pv_host h = {0};
	const struct variant v = pvqspin(PLE_ON);
	struct plerig_config cfg;
	struct variant_result r;
	run(&v, &h, FEATURES, &cfg, &r);
	ck_assert(cfg.flags & PLERIG_CONFIG_PV_FROM_CPUID);
	ck_assert(cfg.flags & PLERIG_CONFIG_PV_UNHALT_IF_OFFERED);
	ck_assert(r.pv_unhalt && r.steal_time);
	ck_assert_str_eq(r.pv_why, "");
}
END_TEST

START_TEST(cpu_pm_on_withdraws_pv_unhalt_and_the_results_say_so)
{
	const struct lv_pv_host h = {0};
	const struct variant v = pvqspin(PLE_OFF);
	struct plerig_config cfg;
	struct variant_result r;
	run(&v, &h, FEATURES & ~UNHALT, &cfg, &r);
	ck_assert(!r.pv_unhalt && r.steal_time);
	ck_assert_msg(strstr(r.pv_why, "cpu-pm=on") && strstr(r.pv_why, "EAX 0x100003b"), "%s",
		      r.pv_why);
}
END_TEST

START_TEST(on_a_local_pvm_the_guest_never_halts)
{
	const struct lv_pv_host h = {.local_pvm = true};
	const struct variant v = pvqspin(PLE_ON);
	struct plerig_config cfg;
	struct variant_result r;
	run(&v, &h, FEATURES, &cfg, &r);
	ck_assert(cfg.flags & PLERIG_CONFIG_PV_FROM_CPUID);
	ck_assert(!(cfg.flags & PLERIG_CONFIG_PV_UNHALT_IF_OFFERED));
	ck_assert(!r.pv_unhalt);
	ck_assert_msg(strstr(r.pv_why, "PVM"), "%s", r.pv_why);
}
END_TEST

START_TEST(no_kvm_leaves_no_steal_time_no_halting)
{
	const struct lv_pv_host h = {0};
	const struct variant v = pvqspin(PLE_ON);
	struct plerig_config cfg;
	struct variant_result r;
	run(&v, &h, 0, &cfg, &r);
	ck_assert(!r.pv_unhalt && !r.steal_time);
	ck_assert_msg(strstr(r.pv_why, "no KVM leaves"), "%s", r.pv_why);
}
END_TEST

START_TEST(tcg_asks_nothing_and_says_why)
{
	const struct lv_pv_host h = {.tcg = true};
	const struct variant v = pvqspin(PLE_ON);
	struct plerig_config cfg;
	struct variant_result r;
	run(&v, &h, 0, &cfg, &r);
	ck_assert_uint_eq(cfg.flags, 0);
	ck_assert(!r.pv_unhalt && !r.steal_time);
	ck_assert_msg(strstr(r.pv_why, "TCG"), "%s", r.pv_why);
}
END_TEST

START_TEST(other_locks_get_steal_time_and_no_pv_note)
{
	const struct lv_pv_host h = {0};
	const struct variant v = {.lock = PLERIG_LOCK_TICKET};
	struct plerig_config cfg;
	struct variant_result r;
	run(&v, &h, FEATURES, &cfg, &r);
	ck_assert(!(cfg.flags & PLERIG_CONFIG_PV_UNHALT_IF_OFFERED));
	ck_assert(r.steal_time && !r.pv_unhalt);
	ck_assert_str_eq(r.pv_why, "");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lv_pv");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, a_kvm_that_offers_pv_unhalt_halts_and_has_steal_time);
	tcase_add_test(tc, cpu_pm_on_withdraws_pv_unhalt_and_the_results_say_so);
	tcase_add_test(tc, on_a_local_pvm_the_guest_never_halts);
	tcase_add_test(tc, no_kvm_leaves_no_steal_time_no_halting);
	tcase_add_test(tc, tcg_asks_nothing_and_says_why);
	tcase_add_test(tc, other_locks_get_steal_time_and_no_pv_note);
	suite_add_tcase(s, tc);
	return check_run(s, CK_FORK_GETENV);
}
