// SPDX-License-Identifier: GPL-2.0
/*
 * The date plerig records: this machine's clock, or the controlling host's
 * that PLERIG_HOST_EPOCH carries (make ple-test's L1, whose own clock
 * starts at 2000-01-01), and its ISO 8601 text.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "support/check_main.h"
#include "util/wall_clock.h"

#define L1_TIME0   946684800	/* Bochs' time0: 2000-01-01 */
#define HOST_EPOCH 1796232600ll /* 2026-12-02T17:30:00Z */

START_TEST(test_no_epoch_is_this_clock)
{
	time_t t = 0;
	ck_assert_int_eq(wall_clock_from(NULL, 12.5, L1_TIME0 + 12, &t), 0);
	ck_assert_int_eq((long long)t, L1_TIME0 + 12);
}
END_TEST

/* the host's clock at L1's boot, then the time since boot: not L1's 2000-01-01 */
START_TEST(test_epoch_plus_time_since_boot)
{
	time_t t = 0;
	char iso[WALL_CLOCK_ISO_LEN];
	ck_assert_int_eq(wall_clock_from("1796232600", 75.9, L1_TIME0 + 75, &t), 0);
	ck_assert_int_eq((long long)t, HOST_EPOCH + 75);
	ck_assert_int_eq(wall_clock_iso(t, iso, sizeof(iso)), 0);
	ck_assert_str_eq(iso, "2026-12-02T17:31:15Z");
}
END_TEST

START_TEST(test_malformed_epoch_is_this_clock)
{
	static const char *const bad[] = {"",
					  "x",
					  "12x",
					  " 12",
					  "+12",
					  "-12",
					  "0",
					  "1e9",
					  "99999999999999999999",
					  "1099511627777"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		time_t t = 0;
		ck_assert_msg(wall_clock_from(bad[i], 10.0, L1_TIME0, &t) == -1, "%s", bad[i]);
		ck_assert_int_eq((long long)t, L1_TIME0);
	}
	time_t t = 0;
	ck_assert_int_eq(wall_clock_from("1796232600", -1.0, L1_TIME0, &t), -1);
}
END_TEST

/* the environment read by wall_clock_now(): a date about now, in the host's year */
START_TEST(test_now_reads_the_environment)
{
	setenv(WALL_CLOCK_ENV, "1796232600", 1);
	time_t t = wall_clock_now();
	ck_assert_msg((long long)t >= HOST_EPOCH, "%lld", (long long)t);
	unsetenv(WALL_CLOCK_ENV);
	time_t here = time(NULL), now = wall_clock_now();
	ck_assert_msg(now >= here && now - here < 3600, "%lld %lld", (long long)now,
		      (long long)here);
}
END_TEST

START_TEST(test_iso_text)
{
	char iso[WALL_CLOCK_ISO_LEN], small[8];
	ck_assert_int_eq(wall_clock_iso(L1_TIME0, iso, sizeof(iso)), 0);
	ck_assert_str_eq(iso, "2000-01-01T00:00:00Z");
	ck_assert_int_eq(wall_clock_iso((time_t)-1, iso, sizeof(iso)), -1);
	ck_assert_str_eq(iso, "");
	ck_assert_int_eq(wall_clock_iso(L1_TIME0, small, sizeof(small)), -1);
	ck_assert_str_eq(small, "");
}
END_TEST

static Suite *wall_clock_suite(void)
{
	Suite *s = suite_create("wall_clock");
	TCase *t = tcase_create("wall_clock");
	tcase_add_test(t, test_no_epoch_is_this_clock);
	tcase_add_test(t, test_epoch_plus_time_since_boot);
	tcase_add_test(t, test_malformed_epoch_is_this_clock);
	tcase_add_test(t, test_now_reads_the_environment);
	tcase_add_test(t, test_iso_text);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(wall_clock_suite)
