// SPDX-License-Identifier: GPL-2.0
/* The log-linear bucket mapping (plerig/histogram.h) and the quantiles read out of it. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/hist_stats.h"
#include "plerig/histogram.h"
#include "support/check_main.h"

#define NB PLERIG_HIST_BUCKETS

static uint64_t hist[NB];

/* v lies in [low, low + width) of its bucket; written so the top bucket cannot overflow. */
static void check_in_bucket(uint64_t v)
{
	unsigned b = plerig_hist_bucket(v);
	uint64_t low = plerig_hist_bucket_low(b);

	ck_assert_msg(b < NB, "value %llu maps to bucket %u of %u", (unsigned long long)v, b, NB);
	ck_assert_msg(low <= v && v - low < plerig_hist_bucket_width(b),
		      "value %llu outside its bucket %u [%llu, +%llu)", (unsigned long long)v, b,
		      (unsigned long long)low, (unsigned long long)plerig_hist_bucket_width(b));
}

START_TEST(test_bucket_of_values)
{
	static const uint64_t fixed[] = {
	    0, 1, 7, 8, 9, 15, 16, 17, 100, 1000, UINT64_MAX - 1, UINT64_MAX};

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		check_in_bucket(fixed[i]);
	for (unsigned k = 1; k < 64; k++) {
		uint64_t p = 1ull << k;

		check_in_bucket(p - 1);
		check_in_bucket(p);
		check_in_bucket(p + 1);
	}
	/* every value below 2^16, so each small bucket is hit from both ends */
	for (uint64_t v = 0; v < (1u << 16); v++) {
		check_in_bucket(v);
		ck_assert_uint_le(plerig_hist_bucket(v), plerig_hist_bucket(v + 1));
	}
}
END_TEST

START_TEST(test_small_values_exact)
{
	for (uint64_t v = 0; v < PLERIG_HIST_SUB_COUNT * 2; v++) {
		ck_assert_uint_eq(plerig_hist_bucket(v), v);
		ck_assert_uint_eq(plerig_hist_bucket_width((unsigned)v), 1);
	}
	ck_assert_uint_eq(plerig_hist_bucket(16), 16);
	ck_assert_uint_eq(plerig_hist_bucket(17), 16);
	ck_assert_uint_eq(plerig_hist_bucket_width(16), 2);
}
END_TEST

/* Buckets tile [0, 2^64) with neither gaps nor overlaps. */
START_TEST(test_buckets_contiguous)
{
	for (unsigned b = 0; b < NB; b++) {
		uint64_t low = plerig_hist_bucket_low(b);
		uint64_t last = low + (plerig_hist_bucket_width(b) - 1);

		ck_assert_uint_eq(plerig_hist_bucket(low), b);
		ck_assert_uint_eq(plerig_hist_bucket(last), b);
		if (b + 1 < NB)
			ck_assert_uint_eq(plerig_hist_bucket_low(b + 1), last + 1);
		else
			ck_assert_uint_eq(last, UINT64_MAX);
	}
	/* UINT64_MAX lands in the last bucket: none is missing, none is wasted */
	ck_assert_uint_eq(plerig_hist_bucket(UINT64_MAX), NB - 1);
}
END_TEST

/* The ABI promises a relative bucket width of at most 2^-SUB_BITS. */
START_TEST(test_relative_width)
{
	for (unsigned b = PLERIG_HIST_SUB_COUNT; b < NB; b++)
		ck_assert_uint_le(plerig_hist_bucket_width(b) << PLERIG_HIST_SUB_BITS,
				  plerig_hist_bucket_low(b));
}
END_TEST

static void record(uint64_t v)
{
	hist[plerig_hist_bucket(v)]++;
}

START_TEST(test_quantile_empty)
{
	memset(hist, 0, sizeof(hist));
	ck_assert(hist_quantile(hist, NB, 0.0) == 0.0);
	ck_assert(hist_quantile(hist, NB, 0.5) == 0.0);
	ck_assert(hist_quantile(hist, NB, 1.0) == 0.0);
	ck_assert_uint_eq(hist_total(hist, NB), 0);
}
END_TEST

START_TEST(test_quantile_single)
{
	static const uint64_t values[] = {
	    0, 1, 5, 8, 15, 16, 17, 100, 1000, 123456789, UINT64_MAX / 3, UINT64_MAX};

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		unsigned b = plerig_hist_bucket(values[i]);
		double low = (double)plerig_hist_bucket_low(b);
		double high = low + (double)(plerig_hist_bucket_width(b) - 1);

		memset(hist, 0, sizeof(hist));
		record(values[i]);
		for (double q = 0.0; q <= 1.0; q += 0.25) {
			double got = hist_quantile(hist, NB, q);

			ck_assert_msg(got >= low && got <= high,
				      "p%.0f of {%llu} is %.1f, outside [%.1f, %.1f]", q * 100,
				      (unsigned long long)values[i], got, low, high);
		}
	}
}
END_TEST

/* |got - want| within one width of want's bucket */
static void check_near(double q, double want)
{
	double width = (double)plerig_hist_bucket_width(plerig_hist_bucket((uint64_t)want));
	double got = hist_quantile(hist, NB, q);

	ck_assert_msg(fabs(got - want) <= width, "p%g = %.2f, want %.0f +- %.0f", q * 100, got,
		      want, width);
}

START_TEST(test_quantile_1_to_100)
{
	double prev = -1.0;

	memset(hist, 0, sizeof(hist));
	for (uint64_t v = 1; v <= 100; v++)
		record(v);
	ck_assert_uint_eq(hist_total(hist, NB), 100);
	check_near(0.0, 1);
	check_near(0.01, 1);
	check_near(0.10, 10);
	check_near(0.50, 50);
	check_near(0.90, 90);
	check_near(0.99, 99);
	check_near(1.0, 100);
	/* out-of-range q is clamped to min and max */
	ck_assert(hist_quantile(hist, NB, -3.0) == hist_quantile(hist, NB, 0.0));
	ck_assert(hist_quantile(hist, NB, 7.0) == hist_quantile(hist, NB, 1.0));
	for (int i = 0; i <= 1000; i++) {
		double got = hist_quantile(hist, NB, i / 1000.0);

		ck_assert_msg(got >= prev, "quantiles not monotonic at q=%g", i / 1000.0);
		prev = got;
	}
}
END_TEST

/* A NaN q (e.g. a 0/0 upstream) must not come back as a 2^63-sized figure. */
START_TEST(test_quantile_nan)
{
	memset(hist, 0, sizeof(hist));
	for (uint64_t v = 1; v <= 100; v++)
		record(v);
	ck_assert(hist_quantile(hist, NB, NAN) <= 100.0);
}
END_TEST

START_TEST(test_merge_total)
{
	static uint64_t other[NB];

	memset(hist, 0, sizeof(hist));
	memset(other, 0, sizeof(other));
	record(3);
	record(1000);
	other[plerig_hist_bucket(3)] = 2;
	other[NB - 1] = 1;
	hist_merge(hist, other, NB);
	ck_assert_uint_eq(hist[plerig_hist_bucket(3)], 3);
	ck_assert_uint_eq(hist[NB - 1], 1);
	ck_assert_uint_eq(hist_total(hist, NB), 5);
	ck_assert(hist_quantile(hist, NB, 1.0) >= (double)plerig_hist_bucket_low(NB - 1));
}
END_TEST

static Suite *hist_suite(void)
{
	Suite *s = suite_create("hist_stats");
	TCase *map = tcase_create("mapping");
	TCase *quant = tcase_create("quantiles");

	tcase_add_test(map, test_bucket_of_values);
	tcase_add_test(map, test_small_values_exact);
	tcase_add_test(map, test_buckets_contiguous);
	tcase_add_test(map, test_relative_width);
	tcase_add_test(quant, test_quantile_empty);
	tcase_add_test(quant, test_quantile_single);
	tcase_add_test(quant, test_quantile_1_to_100);
	tcase_add_test(quant, test_quantile_nan);
	tcase_add_test(quant, test_merge_total);
	suite_add_tcase(s, map);
	suite_add_tcase(s, quant);
	return s;
}

CHECK_MAIN(hist_suite)
