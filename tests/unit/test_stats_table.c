// SPDX-License-Identifier: GPL-2.0
/*
 * The statistics table stays aligned whatever the relative stddev, and
 * prints wait percentiles with the two significant digits their buckets hold.
 */
#include <check.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "plerig/histogram.h"

#include "experiment/comparisons.h"
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

/* The statistics table of @rep's series, their stats computed first (free() it). */
static char *table_of(struct outcome *rep)
{
	char *text = NULL;
	size_t len = 0;
	for (unsigned i = 0; i < rep->nr_series; i++)
		ck_assert_int_eq(series_compute_stats(&rep->series[i]), 0);
	FILE *f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	stats_table_print(f, rep);
	fclose(f);
	return text;
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
	char *text = table_of(&rep);
	assert_ranges_aligned(text);
	free(text);
	series_free(&s);
}
END_TEST

/* A figure no run has is n/a with the reason its runs give, not only "measured in none". */
START_TEST(test_na_says_why)
{
	struct variant v = fixture_variant(BACKEND_KVM, 2, PLERIG_LOCK_TICKET, PLERIG_RELAX_PAUSE);
	struct series s;
	struct outcome rep = {.repeat = 2, .series = &s, .nr_series = 1};
	fixture_series(&s, &v, 2);
	for (unsigned r = 0; r < 2; r++) {
		fixture_result(&s.runs[r], &v, 1.0);
		fixture_busy_vcpu(&s.runs[r].records[0], 1000);
	}
	char *text = table_of(&rep);
	ck_assert_msg(strstr(text, "n/a kick-p50   measured in none of the 2 ok runs: only lock "
				   "pvqspin halts\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "n/a hltx/acq   measured in none of the 2 ok runs: not among "
				   "this host's KVM binary stats (KVM_GET_STATS_FD)\n"),
		      "%s", text);
	free(text);
	series_free(&s);
}
END_TEST

/* Significant digits of the number at @p ("468ns": 3, "470ns": 2, "1.2us": 2). */
static unsigned significant_digits(const char *p)
{
	unsigned n = 0, zeros = 0;
	bool leading = true, dot = false;
	for (; isdigit((unsigned char)*p) || *p == '.'; p++) {
		if (*p == '.') {
			dot = true;
			continue;
		}
		if (leading && *p == '0')
			continue;
		leading = false;
		zeros = *p == '0' ? zeros + 1 : 0;
		n++;
	}
	/* trailing zeros of a whole number are not significant */
	return dot ? n : n - zeros;
}

START_TEST(test_percentiles_two_significant_digits)
{
	struct variant v = fixture_variant(BACKEND_KVM, 2, PLERIG_LOCK_TICKET, PLERIG_RELAX_PAUSE);
	struct series s;
	struct outcome rep = {.repeat = 3, .series = &s, .nr_series = 1};
	/* waits of 468, 1234 and 3333 ns (1 GHz TSC): three digits to print, two held */
	static const uint64_t wait[] = {468, 1234, 3333};
	unsigned lines = 0;

	fixture_series(&s, &v, 3);
	for (unsigned r = 0; r < 3; r++) {
		fixture_result(&s.runs[r], &v, 1.0);
		for (unsigned i = 0; i < 2; i++) {
			fixture_busy_vcpu(&s.runs[r].records[i], 1000);
			s.runs[r].records[i].guest.hist_wait[plerig_hist_bucket(wait[r])] = 1000;
		}
	}
	s.nr_runs = 3;
	char *text = table_of(&rep);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (!strstr(line, "wait-p50") && !strstr(line, "wait-p99"))
			continue;
		lines++;
		/* the mean before the label, and the range's two ends */
		char *mean = line + strspn(line, " "), *lo = strchr(line, '['),
		     *hi = strstr(line, ".. ");
		ck_assert_ptr_nonnull(lo);
		ck_assert_ptr_nonnull(hi);
		ck_assert_msg(significant_digits(mean) <= 2, "%s", line);
		ck_assert_msg(significant_digits(lo + 1) <= 2, "%s", line);
		ck_assert_msg(significant_digits(hi + 3) <= 2, "%s", line);
	}
	ck_assert_uint_eq(lines, 2);
	free(text);
	series_free(&s);
}
END_TEST

/* Interleaved runs of PAUSE and NOP, 1 vCPU, with these acquisitions per run. */
static void pause_and_nop(struct outcome *rep, const uint64_t *pause, const uint64_t *nop,
			  unsigned n)
{
	const uint64_t *acq[2] = {pause, nop};
	const enum plerig_relax_kind relax[2] = {PLERIG_RELAX_PAUSE, PLERIG_RELAX_NOP};

	rep->series = calloc(2, sizeof(*rep->series));
	ck_assert_ptr_nonnull(rep->series);
	rep->nr_series = 2;
	rep->repeat = n;
	rep->order = ORDER_INTERLEAVE;
	rep->reference = "relax=pause";
	for (unsigned i = 0; i < 2; i++) {
		struct variant v = fixture_variant(BACKEND_KVM, 1, PLERIG_LOCK_TICKET, relax[i]);
		fixture_series(&rep->series[i], &v, n);
		for (unsigned r = 0; r < n; r++) {
			fixture_result(&rep->series[i].runs[r], &v, 1.0);
			fixture_busy_vcpu(&rep->series[i].runs[r].records[0], acq[i][r]);
		}
	}
	for (unsigned i = 0; i < 2; i++)
		ck_assert_int_eq(series_compute_stats(&rep->series[i]), 0);
	ck_assert_int_eq(comparisons_build(rep, REFERENCE_RELAX, PLERIG_RELAX_PAUSE), 0);
}

/* The acq/s line of the comparison table (free() it). */
static char *acq_comparison(const struct outcome *rep, char **table)
{
	size_t len = 0;
	FILE *f = open_memstream(table, &len);
	ck_assert_ptr_nonnull(f);
	comparison_table_print(f, rep);
	fclose(f);
	char *line = strstr(*table, "acq/s");
	ck_assert_msg(line, "%s", *table);
	return strndup(line, strcspn(line, "\n"));
}

/*
 * The case: a change of about +50 %, p about 0.4, its CI hundreds of
 * points wide. By the rule --help states for every command that is too noisy
 * to judge; run said "no significant change", its threshold being 0 where
 * compare's is 2 %. The table names the threshold it judged by.
 */
START_TEST(test_a_wide_ci_is_too_noisy_in_run_too)
{
	static const uint64_t pause[] = {1000, 3000, 2000}, nop[] = {3900, 1000, 4100};
	struct outcome rep = {.threshold_pct = 2.0};
	char *table = NULL;

	pause_and_nop(&rep, pause, nop, 3);
	char *line = acq_comparison(&rep, &table);
	ck_assert_msg(strstr(line, "too noisy to judge"), "%s", line);
	ck_assert_msg(strstr(table, "wider than 2%"), "%s", table);
	free(line);
	free(table);

	/* a threshold wider than the CI: no change of that size */
	rep.threshold_pct = 1000.0;
	line = acq_comparison(&rep, &table);
	ck_assert_msg(strstr(line, "no significant change"), "%s", line);
	ck_assert_msg(strstr(table, "wider than 1000%"), "%s", table);
	free(line);
	free(table);
	outcome_free(&rep);
}
END_TEST

static Suite *stats_table_suite(void)
{
	Suite *s = suite_create("stats_table");
	TCase *tc = tcase_create("layout");

	tcase_add_test(tc, test_aligned_past_100_percent);
	tcase_add_test(tc, test_na_says_why);
	tcase_add_test(tc, test_percentiles_two_significant_digits);
	tcase_add_test(tc, test_a_wide_ci_is_too_noisy_in_run_too);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(stats_table_suite)
