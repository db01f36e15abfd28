// SPDX-License-Identifier: GPL-2.0
/* The statistics against independently published values. */
#include <check.h>
#include <math.h>

#include "stats/sample_stats.h"
#include "support/check_main.h"

#define EPS 1e-4

START_TEST(textbook_mean_stddev_median_mad)
{
	/* the classic 2,4,4,4,5,5,7,9: mean 5, population sd 2, sample sd sqrt(32/7) */
	const double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
	struct sample_stats s;
	sample_stats_compute(x, 8, &s);
	ck_assert_uint_eq(s.n, 8);
	ck_assert_double_eq_tol(s.mean, 5.0, EPS);
	ck_assert_double_eq_tol(s.stddev, sqrt(32.0 / 7.0), EPS);
	ck_assert_double_eq_tol(s.rel, sqrt(32.0 / 7.0) / 5.0, EPS);
	ck_assert_double_eq_tol(s.median, 4.5, EPS);
	ck_assert_double_eq_tol(s.mad, 0.5, EPS);
	ck_assert_double_eq_tol(s.min, 2.0, EPS);
	ck_assert_double_eq_tol(s.max, 9.0, EPS);
	/* 9 is 4.5 away from the median: beyond 3 * 1.4826 * 0.5 = 2.22, and so are 2 and 7 */
	ck_assert_uint_eq(s.outliers, 3);
}
END_TEST

/* The runs of this host, where it switched state half-way: 3.4 M and 10.3 M acq/s. */
START_TEST(two_modes_are_found_and_one_is_not)
{
	const double switched[] = {3.45, 3.41, 3.48, 3.52, 3.43, 10.25, 10.27, 10.38, 10.39, 10.16};
	const double steady[] = {10.35, 10.34, 10.23, 10.34, 10.33,
				 10.21, 10.35, 10.38, 10.4,  10.38};
	const double one_off[] = {10.35, 10.34, 10.23, 10.34, 10.33,
				  10.21, 10.35, 10.38, 10.4,  3.4};
	struct sample_stats s;
	sample_stats_compute(switched, 10, &s);
	ck_assert(s.bimodal);
	ck_assert_uint_eq(s.n_low, 5);
	ck_assert_uint_eq(s.n_high, 5);
	ck_assert_double_eq_tol(s.low_mean, 3.458, EPS);
	ck_assert_double_eq_tol(s.high_mean, 10.29, EPS);
	sample_stats_compute(steady, 10, &s);
	ck_assert(!s.bimodal);
	/* a single odd run is an outlier, not a mode (10.21 is just past 3 MAD, too) */
	sample_stats_compute(one_off, 10, &s);
	ck_assert(!s.bimodal);
	ck_assert_uint_eq(s.outliers, 2);
	/* two runs of six far from the others: too few to call a mode (3 each at least) */
	const double two_of_six[] = {3.45, 3.41, 10.25, 10.27, 10.38, 10.39};
	sample_stats_compute(two_of_six, 6, &s);
	ck_assert(!s.bimodal);
	const double three_of_six[] = {3.45, 3.41, 3.48, 10.27, 10.38, 10.39};
	sample_stats_compute(three_of_six, 6, &s);
	ck_assert(s.bimodal);
}
END_TEST

/* A machine that slows down 1 % per run, with noise of 0.2 %, against noise alone. */
START_TEST(drift_is_found_in_time_order)
{
	double slowing[10], noisy[10];
	static const double noise[10] = {0.2, -0.1, 0.0, 0.15, -0.2, 0.1, -0.05, 0.2, -0.15, 0.0};
	for (unsigned i = 0; i < 10; i++) {
		slowing[i] = 100.0 * (1.0 - 0.01 * i) + noise[i];
		noisy[i] = 100.0 + noise[i];
	}
	struct sample_stats s;
	sample_stats_compute(slowing, 10, &s);
	ck_assert(s.drift);
	ck_assert_double_eq_tol(s.drift_rel, -0.09 * 100.0 / s.mean, 0.005);
	ck_assert(s.drift_p < 1e-6);
	sample_stats_compute(noisy, 10, &s);
	ck_assert(!s.drift);
}
END_TEST

START_TEST(one_sample_has_no_spread)
{
	const double x[] = {42};
	struct sample_stats s;
	sample_stats_compute(x, 1, &s);
	ck_assert_double_eq_tol(s.mean, 42, EPS);
	ck_assert_double_eq_tol(s.stddev, 0, EPS);
	ck_assert_uint_eq(s.outliers, 0);
	sample_stats_compute(x, 0, &s);
	ck_assert_uint_eq(s.n, 0);
}
END_TEST

/*
 * R's documentation example, t.test(extra ~ group, data = sleep) (Student's
 * sleep data, Welch by default): t = -1.8608, df = 17.776, p-value = 0.07939,
 * 95 percent confidence interval -3.3654832 0.2054832 for group1 - group2.
 * Ours is b - a, so the signs flip.
 */
START_TEST(welch_matches_r_on_the_sleep_data)
{
	const double group1[] = {0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
	const double group2[] = {1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};
	struct welch_result w;
	welch_test(group1, 10, group2, 10, 0.95, &w);
	ck_assert(w.valid);
	ck_assert_double_eq_tol(w.diff, 1.58, EPS);
	ck_assert_double_eq_tol(w.t, 1.8608, 1e-4);
	ck_assert_double_eq_tol(w.df, 17.776, 1e-3);
	ck_assert_double_eq_tol(w.p, 0.07939, 1e-5);
	ck_assert_double_eq_tol(w.ci_low, -0.2054832, 1e-6);
	ck_assert_double_eq_tol(w.ci_high, 3.3654832, 1e-6);
}
END_TEST

/*
 * Welch's own textbook case in another form: two samples with the same
 * mean give t = 0 and p = 1; a shift far beyond the spread gives p ~ 0.
 */
/*
 * The same sleep data paired, as R's t.test(..., paired = TRUE) reports it:
 * t = -4.0621, df = 9, p-value = 0.002833, 95 percent confidence interval
 * -2.4598858 -0.7001142 for group1 - group2; ours is group2 - group1.
 */
START_TEST(paired_matches_r_on_the_sleep_data)
{
	const double group1[] = {0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
	const double group2[] = {1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};
	double d[10];
	for (unsigned i = 0; i < 10; i++)
		d[i] = group2[i] - group1[i];
	struct welch_result w;
	one_sample_t_test(d, 10, 0.95, &w);
	ck_assert(w.valid);
	ck_assert_double_eq_tol(w.diff, 1.58, EPS);
	ck_assert_double_eq_tol(w.t, 4.0621, 1e-4);
	ck_assert_double_eq_tol(w.df, 9.0, EPS);
	ck_assert_double_eq_tol(w.p, 0.002833, 1e-6);
	ck_assert_double_eq_tol(w.ci_low, 0.7001142, 1e-6);
	ck_assert_double_eq_tol(w.ci_high, 2.4598858, 1e-6);
}
END_TEST

START_TEST(welch_extremes)
{
	const double a[] = {10, 11, 9, 10, 10.5};
	const double b[] = {10, 9, 11, 10.5, 10};
	const double c[] = {20, 21, 19, 20, 20.5};
	struct welch_result w;
	welch_test(a, 5, b, 5, 0.95, &w);
	ck_assert(w.valid);
	ck_assert_double_eq_tol(w.t, 0.0, EPS);
	ck_assert_double_eq_tol(w.p, 1.0, EPS);
	welch_test(a, 5, c, 5, 0.95, &w);
	ck_assert(w.p < 1e-6);
	ck_assert(w.ci_low > 8.0 && w.ci_high < 12.0);
	ck_assert_double_eq_tol(w.rel, 10.0 / 10.1, EPS);
}
END_TEST

START_TEST(welch_needs_two_samples_and_variance)
{
	const double a[] = {1};
	const double b[] = {1, 2, 3};
	const double flat[] = {5, 5, 5};
	struct welch_result w;
	welch_test(a, 1, b, 3, 0.95, &w);
	ck_assert(!w.valid);
	ck_assert_double_eq_tol(w.diff, 1.0, EPS);
	welch_test(flat, 3, flat, 3, 0.95, &w);
	ck_assert(!w.valid);
}
END_TEST

/*
 * The gate's rounds (issue 27): window-1024 at seed 11 of the shell gate, one
 * round of four in another regime; the same scenario steady; ple_window=16384's
 * spread (2.4 %, no regime); a candidate whose every round moved (a regression,
 * not a regime); two against two (no majority: neither is another's).
 */
START_TEST(a_round_in_another_regime_is_found_and_a_spread_is_not)
{
	const double odd[] = {5482, 5487, 5487, 8166};
	const double exits[] = {2.01, 2.01, 2.01, 1.33};
	const double steady[] = {5487, 5482, 5482, 5482};
	const double spread[] = {1442, 1477, 1457, 1446};
	const double moved[] = {3490, 3487, 3491, 3486};
	const double halves[] = {4039, 2485, 4104, 2585};
	const double zero[] = {0, 0, 0, 1};
	bool off[4] = {false};

	ck_assert_uint_eq(sample_other_regime(odd, 4, 10.0, off), 1);
	ck_assert(!off[0] && !off[1] && !off[2] && off[3]);
	bool off2[4] = {false};
	ck_assert_uint_eq(sample_other_regime(exits, 4, 10.0, off2), 1);
	ck_assert(off2[3] && !off2[0]);
	bool none[4] = {false};
	ck_assert_uint_eq(sample_other_regime(steady, 4, 10.0, none), 0);
	ck_assert_uint_eq(sample_other_regime(spread, 4, 10.0, none), 0);
	ck_assert_uint_eq(sample_other_regime(moved, 4, 10.0, none), 0);
	ck_assert_uint_eq(sample_other_regime(halves, 4, 10.0, none), 0);
	ck_assert_uint_eq(sample_other_regime(zero, 4, 10.0, none), 0);
	/* a tighter reach finds the spread's far round; two rounds are too few to tell */
	ck_assert_uint_eq(sample_other_regime(spread, 4, 1.0, none), 1);
	ck_assert(none[1]);
	bool two[2] = {false};
	ck_assert_uint_eq(sample_other_regime(odd + 2, 2, 10.0, two), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sample_stats");
	TCase *tc = tcase_create("stats");
	tcase_add_test(tc, textbook_mean_stddev_median_mad);
	tcase_add_test(tc, one_sample_has_no_spread);
	tcase_add_test(tc, drift_is_found_in_time_order);
	tcase_add_test(tc, two_modes_are_found_and_one_is_not);
	tcase_add_test(tc, welch_matches_r_on_the_sleep_data);
	tcase_add_test(tc, welch_extremes);
	tcase_add_test(tc, paired_matches_r_on_the_sleep_data);
	tcase_add_test(tc, welch_needs_two_samples_and_variance);
	tcase_add_test(tc, a_round_in_another_regime_is_found_and_a_spread_is_not);
	suite_add_tcase(s, tc);
	return check_run(s, CK_FORK_GETENV);
}
