// SPDX-License-Identifier: GPL-2.0
/* Human-readable numbers of the results table. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/units.h"
#include "support/check_main.h"

struct num_case {
	double in;
	const char *out;
};

static const struct num_case counts[] = {
    {0, "0"},	      {1, "1"},
    {7, "7"},	      {999, "999"},
    {1000, "1.0k"},   {1234, "1.2k"},
    {45600, "45.6k"}, {99949, "99.9k"},
    {99951, "100k"},  {456000, "456k"},
    {999499, "999k"}, {999500, "1.0M"},
    {999960, "1.0M"}, {12345678, "12.3M"},
    {1.5e9, "1.5G"},  {2e12, "2.0T"},
    {0.5, "0.5"},     {3.75, "3.8"},
    {123.4, "123"},   {99.96, "100"},
    {999.7, "1.0k"},  {-1234, "-1.2k"},
    {-5, "-5"},	      {1e30, "1000000000000E"},
};

static const struct num_case durations[] = {
    {0, "0ns"},	       {0.4, "0ns"},	  {85, "85ns"},	     {85.4, "85ns"},  {999, "999ns"},
    {999.4, "999ns"},  {999.6, "1.0us"},  {1000, "1.0us"},   {1234, "1.2us"}, {45600, "45.6us"},
    {456000, "456us"}, {999960, "1.0ms"}, {3.4e6, "3.4ms"},  {1.5e9, "1.5s"}, {12.34e9, "12.3s"},
    {3600e9, "3600s"}, {99.96e9, "100s"}, {-2500, "-2.5us"},
};

static const struct num_case percents[] = {
    {0.0, "0%"},      {0.0000001, "<0.1%"}, {0.0004, "<0.1%"}, {0.0005, "0.1%"},
    {0.123, "12.3%"}, {0.5, "50.0%"},	    {1.0, "100.0%"},
};

START_TEST(test_count)
{
	char buf[UNITS_BUF_SIZE];
	const struct num_case *c = &counts[_i];

	ck_assert_str_eq(units_count(c->in, buf, sizeof(buf)), c->out);
}
END_TEST

START_TEST(test_duration)
{
	char buf[UNITS_BUF_SIZE];
	const struct num_case *c = &durations[_i];

	ck_assert_str_eq(units_duration_ns(c->in, buf, sizeof(buf)), c->out);
}
END_TEST

START_TEST(test_percent)
{
	char buf[UNITS_BUF_SIZE];
	const struct num_case *c = &percents[_i];

	ck_assert_str_eq(units_percent(c->in, buf, sizeof(buf)), c->out);
}
END_TEST

START_TEST(test_duration_2sig)
{
	static const struct num_case cases[] = {
	    {0, "0ns"},	      {85.4, "85ns"},	 {385, "390ns"},    {707, "710ns"},
	    {999.6, "1.0us"}, {7.3e6, "7.3ms"},	 {16.04e6, "16ms"}, {88.8e6, "89ms"},
	    {1.5e9, "1.5s"},  {3600e9, "3600s"}, {-2500, "-2.5us"}, {9.96, "10ns"},
	    {6.3, "6ns"},
	};
	char buf[UNITS_BUF_SIZE];

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_str_eq(units_duration_ns_2sig(cases[i].in, buf, sizeof(buf)),
				 cases[i].out);
}
END_TEST

START_TEST(test_not_finite)
{
	char buf[UNITS_BUF_SIZE];

	ck_assert_str_eq(units_count(NAN, buf, sizeof(buf)), "n/a");
	ck_assert_str_eq(units_duration_ns(INFINITY, buf, sizeof(buf)), "?");
	ck_assert_str_eq(units_percent(NAN, buf, sizeof(buf)), "n/a");
	/* a figure not measured (NaN) is n/a everywhere, 2 significant digits too */
	ck_assert_str_eq(units_duration_ns_2sig(NAN, buf, sizeof(buf)), "n/a");
	ck_assert_str_eq(units_duration_ns(NAN, buf, sizeof(buf)), "n/a");
}
END_TEST

/* Returns its buffer, truncates safely, never writes to an empty one. */
START_TEST(test_buffers)
{
	char buf[4], canary[2] = {'x', 'x'};

	ck_assert_ptr_eq(units_count(12345, buf, sizeof(buf)), buf);
	ck_assert_str_eq(buf, "12.");
	ck_assert_ptr_eq(units_duration_ns(3.4e6, buf, sizeof(buf)), buf);
	ck_assert_str_eq(buf, "3.4");
	units_count(1, canary, 0);
	units_duration_ns(1, canary, 0);
	units_percent(1, canary, 0);
	ck_assert_int_eq(canary[0], 'x');
}
END_TEST

/* Fits the table's 7-character columns across the whole range. */
START_TEST(test_width)
{
	char buf[UNITS_BUF_SIZE];

	for (double v = 0.7; v < 1e17; v *= 1.37)
		ck_assert_uint_le(strlen(units_count(v, buf, sizeof(buf))), 5);
	/* up to 10000 s, well past the 3600 s a run may last */
	for (double v = 0.7; v < 1e13; v *= 1.37)
		ck_assert_uint_le(strlen(units_duration_ns(v, buf, sizeof(buf))), 6);
	for (double v = 0; v <= 1.0; v += 0.001)
		ck_assert_uint_le(strlen(units_percent(v, buf, sizeof(buf))), 6);
}
END_TEST

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static Suite *units_suite(void)
{
	Suite *s = suite_create("units");
	TCase *t = tcase_create("format");

	tcase_add_loop_test(t, test_count, 0, N(counts));
	tcase_add_loop_test(t, test_duration, 0, N(durations));
	tcase_add_loop_test(t, test_percent, 0, N(percents));
	tcase_add_test(t, test_duration_2sig);
	tcase_add_test(t, test_not_finite);
	tcase_add_test(t, test_buffers);
	tcase_add_test(t, test_width);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(units_suite)
