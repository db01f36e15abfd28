// SPDX-License-Identifier: GPL-2.0
/* The statistics table stays aligned whatever the relative stddev. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "output/stats_table.h"
#include "support/check_main.h"
#include "support/fixtures.h"

/* The column of "[" (the range) in every metric line of the table. */
static void assert_ranges_aligned(const char *text)
{
	int col = -1;
	unsigned lines = 0;

	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		const char *bracket = strchr(line, '[');
		if (strstr(line, " +- ") && bracket && (!end || bracket < end)) {
			int c = (int)(bracket - line);
			if (col < 0)
				col = c;
			ck_assert_int_eq(c, col);
			lines++;
		}
		line = end ? end + 1 : NULL;
	}
	ck_assert_uint_gt(lines, 0);
}

START_TEST(test_aligned_past_100_percent)
{
	struct variant v = fixture_variant(BACKEND_KVM, 2, PLERIG_LOCK_TICKET, PLERIG_RELAX_PAUSE);
	struct series s;
	struct outcome rep = {.repeat = 3, .series = &s, .nr_series = 1};
	/* acquisitions 1, 1000, 10000: a relative stddev far past 100 % */
	static const uint64_t acq[] = {1, 1000, 10000};

	fixture_series(&s, &v, 3);
	for (unsigned r = 0; r < 3; r++) {
		fixture_result(&s.runs[r], &v, 1.0);
		fixture_busy_vcpu(&s.runs[r].records[0], acq[r]);
	}
	s.nr_runs = 3;
	ck_assert_int_eq(series_compute_stats(&s), 0);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	stats_table_print(f, &rep);
	fclose(f);
	assert_ranges_aligned(text);
	free(text);
	series_free(&s);
}
END_TEST

static Suite *stats_table_suite(void)
{
	Suite *s = suite_create("stats_table");
	TCase *tc = tcase_create("layout");

	tcase_add_test(tc, test_aligned_past_100_percent);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(stats_table_suite)
