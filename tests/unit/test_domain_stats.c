// SPDX-License-Identifier: GPL-2.0
/*
 * libvirt's vCPU stats group as plerig reads it: the fields libvirt 9.0
 * sent for a running plerig domain (virsh domstats --vcpu), and what must
 * not be taken for them.
 */
#include <check.h>
#include <string.h>

#include "backends/libvirt/domain_stats.h"
#include "support/check_main.h"

static virTypedParameter ull(const char *field, unsigned long long v)
{
	virTypedParameter p = {.type = VIR_TYPED_PARAM_ULLONG};
	snprintf(p.field, sizeof(p.field), "%s", field);
	p.value.ul = v;
	return p;
}

START_TEST(delay_time_and_kvm_stats_land_on_their_vcpu)
{
	virTypedParameter p[] = {
	    ull("vcpu.current", 2),	      ull("vcpu.0.state", 1),
	    ull("vcpu.0.time", 370000000),    ull("vcpu.0.wait", 0),
	    ull("vcpu.0.delay", 3828396426),  ull("vcpu.0.exits.sum", 321),
	    ull("vcpu.0.irq_exits.sum", 178), ull("vcpu.1.delay", 3599468724),
	    ull("vcpu.1.time", 590000000),    ull("vcpu.1.halt_exits.sum", 7),
	    ull("vm.mmu_cache_miss.sum", 8),
	};
	struct lv_vcpu_stats out[2];
	lv_stats_parse(p, (int)(sizeof(p) / sizeof(p[0])), 2, out);
	ck_assert(out[0].delay_valid && out[0].time_valid);
	ck_assert_uint_eq(out[0].delay_ns, 3828396426ull);
	ck_assert_uint_eq(out[0].time_ns, 370000000ull);
	ck_assert(out[0].kvm.valid[KVM_STAT_EXITS]);
	ck_assert_uint_eq(out[0].kvm.value[KVM_STAT_EXITS], 321);
	ck_assert_uint_eq(out[0].kvm.value[KVM_STAT_IRQ_EXITS], 178);
	ck_assert(!out[0].kvm.valid[KVM_STAT_HALT_EXITS]);
	ck_assert_uint_eq(out[1].delay_ns, 3599468724ull);
	ck_assert_uint_eq(out[1].kvm.value[KVM_STAT_HALT_EXITS], 7);
	ck_assert(!out[1].kvm.valid[KVM_STAT_EXITS]);
}
END_TEST

START_TEST(missing_out_of_range_and_foreign_fields_stay_invalid)
{
	virTypedParameter p[] = {
	    ull("vcpu.2.delay", 5),	  /* a vCPU the domain does not have */
	    ull("vcpu.0.exits.max", 9),	  /* not the cumulative sum */
	    ull("vcpu.0.exits_x.sum", 9), /* a longer name sharing the prefix */
	    ull("vcpu.x.delay", 5),	  ull("vcpu.0.delayed", 5),
	};
	struct lv_vcpu_stats out[2];
	memset(out, 0xff, sizeof(out));
	lv_stats_parse(p, (int)(sizeof(p) / sizeof(p[0])), 2, out);
	for (unsigned v = 0; v < 2; v++) {
		ck_assert(!out[v].delay_valid && !out[v].time_valid);
		for (int s = 0; s < KVM_STAT_COUNT; s++)
			ck_assert(!out[v].kvm.valid[s]);
	}
}
END_TEST

START_TEST(a_string_is_not_a_count)
{
	virTypedParameter p = {.type = VIR_TYPED_PARAM_STRING};
	snprintf(p.field, sizeof(p.field), "vcpu.0.delay");
	p.value.s = (char *)"12";
	struct lv_vcpu_stats out[1];
	lv_stats_parse(&p, 1, 1, out);
	ck_assert(!out[0].delay_valid);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("domain_stats");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, delay_time_and_kvm_stats_land_on_their_vcpu);
	tcase_add_test(tc, missing_out_of_range_and_foreign_fields_stay_invalid);
	tcase_add_test(tc, a_string_is_not_a_count);
	suite_add_tcase(s, tc);
	return check_run(s, CK_FORK_GETENV);
}
