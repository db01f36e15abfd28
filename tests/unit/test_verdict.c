// SPDX-License-Identifier: GPL-2.0
/*
 * The one rule for better / worse / no change / too noisy (model/verdict.h),
 * on Welch's and on the paired test: a non-finding is "no significant
 * change" only where the change's 95 % CI is narrower than the threshold.
 */
#include <check.h>
#include <math.h>

#include "model/verdict.h"
#include "stats/sample_stats.h"
#include "support/check_main.h"

static void judge_better(const double *a, const double *b, unsigned n, int better, double threshold,
			 struct judgement *j)
{
	struct sample_stats sa, sb;
	struct welch_result w;
	sample_stats_compute(a, n, &sa);
	sample_stats_compute(b, n, &sb);
	welch_test(a, n, b, n, VERDICT_CONFIDENCE, &w);
	verdict_judge(&sa, &sb, &w, better, threshold, j);
}

static void judge(const double *a, const double *b, unsigned n, double threshold,
		  struct judgement *j)
{
	judge_better(a, b, n, +1, threshold, j);
}

/* Spread ~0.8 %, 5 runs a side: the CI of a zero change is ~2.3 % wide. */
static const double spread[] = {1.000, 1.010, 0.990, 1.005, 0.995};
/* Spread ~0.08 %: the CI is ~0.23 % wide. */
static const double tight[] = {1.0000, 1.0010, 0.9990, 1.0005, 0.9995};

START_TEST(a_wide_ci_is_too_noisy_a_narrow_one_no_change)
{
	struct judgement j;
	judge(spread, spread, 5, 2.0, &j);
	ck_assert_int_eq(j.verdict, VERDICT_TOO_NOISY);
	ck_assert_msg(j.ci_width_pct > 2.0 && j.ci_width_pct < 3.0, "%g", j.ci_width_pct);
	judge(spread, spread, 5, 3.0, &j);
	ck_assert_int_eq(j.verdict, VERDICT_NO_CHANGE);
	judge(tight, tight, 5, 2.0, &j);
	ck_assert_int_eq(j.verdict, VERDICT_NO_CHANGE);
	ck_assert_msg(j.ci_width_pct < 0.5, "%g", j.ci_width_pct);
	/* no threshold: nothing is too noisy ("any significant change counts") */
	judge(spread, spread, 5, 0.0, &j);
	ck_assert_int_eq(j.verdict, VERDICT_NO_CHANGE);
	ck_assert_str_eq(verdict_name(VERDICT_TOO_NOISY), "too noisy to judge");
}
END_TEST

/* A finding stays a finding, however wide its CI. */
START_TEST(a_significant_change_beyond_the_threshold_is_judged)
{
	double lower[5];
	struct judgement j;
	for (unsigned i = 0; i < 5; i++)
		lower[i] = spread[i] - 0.10;
	judge(spread, lower, 5, 2.0, &j);
	ck_assert_int_eq(j.verdict, VERDICT_WORSE);
	judge(lower, spread, 5, 2.0, &j);
	ck_assert_int_eq(j.verdict, VERDICT_BETTER);
}
END_TEST

/* A behaviour figure (PLE exits per acquisition): no better direction, either change is flagged. */
START_TEST(a_metric_without_a_better_direction_is_worse_either_way)
{
	double lower[5];
	struct judgement j;
	for (unsigned i = 0; i < 5; i++)
		lower[i] = spread[i] - 0.10;
	judge_better(spread, lower, 5, 0, 2.0, &j);
	ck_assert_int_eq(j.verdict, VERDICT_WORSE);
	judge_better(lower, spread, 5, 0, 2.0, &j);
	ck_assert_int_eq(j.verdict, VERDICT_WORSE);
	judge_better(tight, tight, 5, 0, 2.0, &j);
	ck_assert_int_eq(j.verdict, VERDICT_NO_CHANGE);
}
END_TEST

START_TEST(the_paired_test_follows_the_same_rule)
{
	/* per-round ratios - 1: mean 0, sd 0.8 %: the CI is 1.96 % wide over 5 rounds */
	static const double ratios[] = {0.01, -0.01, 0.005, -0.005, 0.0};
	struct welch_result w;
	struct judgement j;
	one_sample_t_test(ratios, 5, VERDICT_CONFIDENCE, &w);
	verdict_judge_paired(&w, 5, +1, 1.5, &j);
	ck_assert_int_eq(j.verdict, VERDICT_TOO_NOISY);
	ck_assert_msg(fabs(j.ci_width_pct - 1.96) < 0.01, "%g", j.ci_width_pct);
	verdict_judge_paired(&w, 5, +1, 2.5, &j);
	ck_assert_int_eq(j.verdict, VERDICT_NO_CHANGE);
}
END_TEST

static Suite *verdict_suite(void)
{
	Suite *s = suite_create("verdict");
	TCase *t = tcase_create("rule");
	tcase_add_test(t, a_wide_ci_is_too_noisy_a_narrow_one_no_change);
	tcase_add_test(t, a_significant_change_beyond_the_threshold_is_judged);
	tcase_add_test(t, a_metric_without_a_better_direction_is_worse_either_way);
	tcase_add_test(t, the_paired_test_follows_the_same_rule);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(verdict_suite)
