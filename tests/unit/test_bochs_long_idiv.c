// SPDX-License-Identifier: GPL-2.0
/*
 * scripts/bochs-patches/long_idiv.S, the long_idiv scripts/setup-bochs writes
 * over sid's miscompiled one: against the compiler's own 128-by-64 signed
 * division, with long_div and long_neg as bochs/cpu/wide_int.cc means them
 * (the patch calls the binary's, under these C++ names).
 */
#include <check.h>
#include <stdint.h>

#include "support/check_main.h"

struct bit128u {
	uint64_t lo, hi;
};
struct bit128s {
	uint64_t lo;
	int64_t hi;
};

void long_neg(struct bit128s *n) __asm__("_Z8long_negP7Bit128s");
void long_div(struct bit128u *q, uint64_t *r, const struct bit128u *d,
	      uint64_t divisor) __asm__("_Z8long_divP7Bit128uPmPKS_m");
void long_idiv(struct bit128s *q, int64_t *r, const struct bit128s *d, int64_t divisor);

void long_neg(struct bit128s *n)
{
	unsigned __int128 v = ((unsigned __int128)(uint64_t)n->hi << 64 | n->lo);
	v = -v;
	n->lo = (uint64_t)v;
	n->hi = (int64_t)(uint64_t)(v >> 64);
}

void long_div(struct bit128u *q, uint64_t *r, const struct bit128u *d, uint64_t divisor)
{
	unsigned __int128 v = ((unsigned __int128)d->hi << 64 | d->lo);
	q->lo = (uint64_t)(v / divisor);
	q->hi = (uint64_t)(v / divisor >> 64);
	*r = (uint64_t)(v % divisor);
}

static void check_one(int64_t hi, uint64_t lo, int64_t divisor)
{
	__int128 v = (__int128)((unsigned __int128)(uint64_t)hi << 64 | lo);
	__int128 want = v / divisor;
	int64_t want_r = (int64_t)(v % divisor), r = 0;
	struct bit128s d = {lo, hi}, q = {0, 0};

	long_idiv(&q, &r, &d, divisor);
	ck_assert_msg(q.lo == (uint64_t)want && q.hi == (int64_t)(want >> 64) && r == want_r,
		      "%lld:%llu / %lld: quotient %lld:%llu remainder %lld, want %lld:%llu %lld",
		      (long long)hi, (unsigned long long)lo, (long long)divisor, (long long)q.hi,
		      (unsigned long long)q.lo, (long long)r, (long long)(want >> 64),
		      (unsigned long long)want, (long long)want_r);
}

/* what Linux 6.1's clocks_calc_mult_shift asks (NSEC_PER_SEC / scale), and signs */
START_TEST(test_the_divisions_the_kernel_died_of)
{
	check_one(0, 1000000000, 1);
	check_one(0, 1000000000, 1000);
	check_one(-1, (uint64_t)-1000000000, 1000);
	check_one(0, 1000000000, -7);
	check_one(-1, (uint64_t)-7, -2);
	check_one(INT64_MIN + 1, 0, INT64_MIN); /* |divisor| 2^63 */
}
END_TEST

/* a fixed pseudo-random walk: low and high halves, both signs, any divisor */
START_TEST(test_any_dividend_and_divisor)
{
	uint64_t x = 0x9e3779b97f4a7c15u;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t lo = x;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int64_t divisor = (int64_t)(x >> (x & 63));
		if (!divisor)
			divisor = 3;
		/* a quotient that fits 128 bits signed: the high half within the divisor's */
		int64_t hi = (int64_t)(x & 1 ? lo >> 40 : ~(lo >> 40));
		check_one(i % 3 ? hi % (divisor / 2 ? divisor / 2 : 1) : (i & 1 ? 0 : -1), lo,
			  i & 4 ? -divisor : divisor);
	}
}
END_TEST

static Suite *long_idiv_suite(void)
{
	Suite *s = suite_create("bochs_long_idiv");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_the_divisions_the_kernel_died_of);
	tcase_add_test(tc, test_any_dividend_and_divisor);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(long_idiv_suite)
