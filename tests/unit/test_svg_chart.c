// SPDX-License-Identifier: GPL-2.0
/* The HTML report's chart geometry and drawing on their edge cases. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/html_writer.h"
#include "output/svg_chart.h"
#include "support/check_main.h"

/* Drawn output must never hold a coordinate that is not a number. */
static void assert_numbers_only(const char *svg)
{
	ck_assert_ptr_null(strstr(svg, "nan"));
	ck_assert_ptr_null(strstr(svg, "inf"));
	ck_assert_ptr_null(strstr(svg, "NaN"));
}

START_TEST(test_axis_no_value)
{
	struct axis a;
	double v[] = {NAN};

	ck_assert_uint_eq(axis_fit(&a, v, 0, false, true), 0);
	ck_assert(a.lo == 0.0 && a.hi == 1.0);
	ck_assert_uint_eq(axis_fit(&a, v, 1, true, false), 0);
	ck_assert(a.lo == 1.0 && a.hi == 10.0);
}
END_TEST

START_TEST(test_axis_one_value)
{
	struct axis a;
	double v[] = {42.0};

	ck_assert_uint_eq(axis_fit(&a, v, 1, false, false), 1);
	ck_assert(a.lo < 42.0 && a.hi > 42.0);
	axis_fit(&a, v, 1, false, true);
	ck_assert(a.lo == 0.0 && a.hi >= 42.0);
	axis_fit(&a, v, 1, true, false);
	ck_assert(a.lo == 10.0 && a.hi == 100.0);
	double z[] = {0.0, 0.0};
	axis_fit(&a, z, 2, false, true); /* zero stalls */
	ck_assert(a.lo == 0.0 && a.hi > 0.0);
	axis_fit(&a, z, 2, true, false); /* zero has no place on a log axis */
	ck_assert(a.lo == 1.0 && a.hi == 10.0);
}
END_TEST

START_TEST(test_axis_decade)
{
	struct axis a;
	double v[] = {100.0, 100.0};

	axis_fit(&a, v, 2, true, false); /* a power of ten still gets a decade */
	ck_assert(a.hi > a.lo);
}
END_TEST

START_TEST(test_axis_huge_outlier)
{
	struct axis a;
	double v[] = {1.0, 2.0, 3.0, 1e12};
	double t[10];

	axis_fit(&a, v, 4, false, true);
	ck_assert(a.hi >= 1e12);
	a.p0 = 100;
	a.p1 = 500;
	ck_assert(axis_px(&a, 1e15) == 500); /* clamped to the edge */
	ck_assert(axis_px(&a, -1e15) == 100);
	unsigned n = axis_ticks(&a, t, 8);
	ck_assert(n >= 2 && n <= 8);
	axis_fit(&a, v, 4, true, false);
	n = axis_ticks(&a, t, 8); /* 13 decades: thinned to 8 ticks at most */
	ck_assert(n >= 2 && n <= 8);
	for (unsigned i = 1; i < n; i++)
		ck_assert(t[i] > t[i - 1]);
}
END_TEST

/* ple_window = 1e308 in a sweep file: (int)ceil(log10(inf)) was undefined (UBSan) */
START_TEST(test_axis_extremes)
{
	struct axis a;
	double t[10];
	const double big[] = {1024.0, 1.7e308}, tiny[] = {4.9e-324, 1.0},
		     wide[] = {-1.7e308, 1.7e308};

	for (int log = 0; log < 2; log++) {
		const double *sets[] = {big, tiny, wide};
		for (unsigned k = 0; k < 3; k++) {
			axis_fit(&a, sets[k], 2, log, false);
			ck_assert_msg(isfinite(a.lo) && isfinite(a.hi) && a.lo < a.hi,
				      "set %u log %d: %g..%g", k, log, a.lo, a.hi);
			ck_assert(!log || a.lo > 0.0);
			unsigned n = axis_ticks(&a, t, 8);
			ck_assert(n >= 1 && n <= 8);
			for (unsigned i = 0; i < n; i++)
				ck_assert(isfinite(t[i]));
			a.p0 = 0;
			a.p1 = 100;
			if (sets[k] != tiny) /* past AXIS_MAX: at the edge */
				ck_assert(axis_px(&a, sets[k][1]) == 100);
		}
	}
	/* an axis set by hand past a double's decades: no ticks, no overflow */
	a = (struct axis){.lo = 1.0, .hi = INFINITY, .log = true};
	ck_assert_uint_eq(axis_ticks(&a, t, 8), 0);
}
END_TEST

START_TEST(test_axis_px_log)
{
	struct axis a = {.lo = 10, .hi = 1000, .log = true, .p0 = 0, .p1 = 200};

	ck_assert(fabs(axis_px(&a, 100) - 100) < 1e-9);
	ck_assert(axis_px(&a, 0) == 0);
	ck_assert(axis_px(&a, NAN) == 0);
}
END_TEST

START_TEST(test_ticks_round)
{
	struct axis a;
	double v[] = {0.0, 0.83};
	double t[10];
	char buf[32];

	axis_fit(&a, v, 2, false, true);
	unsigned n = axis_ticks(&a, t, 7);
	ck_assert(n >= 3);
	ck_assert(t[0] == 0.0);
	ck_assert_str_eq(chart_number(0.6, "%", buf, sizeof(buf)), "60%");
	ck_assert_str_eq(chart_number(3.4e6, "", buf, sizeof(buf)), "3.4M");
	ck_assert_str_eq(chart_value(88.8e6, "ns", 2, buf, sizeof(buf)), "89ms");
	ck_assert_str_eq(chart_value(746, "ns", 2, buf, sizeof(buf)), "750ns");
}
END_TEST

START_TEST(test_rows_never_overlap)
{
	struct row_layout a, b;

	row_layout(1, 10, &a);
	row_layout(24, 200, &b);
	ck_assert(a.row_h >= 14);
	ck_assert(b.height >= 24 * b.row_h);
	ck_assert(b.max_chars <= 56); /* long labels cut, whole in the tooltip */
	row_layout(0, 0, &a);
	ck_assert(a.height > 0);
}
END_TEST

START_TEST(test_styles_differ)
{
	/* 24 series: no two drawn alike (colour, dash and marker) */
	for (unsigned i = 0; i < 24; i++)
		for (unsigned j = i + 1; j < 24; j++) {
			struct series_style a, b;
			series_style(i, &a);
			series_style(j, &b);
			ck_assert(strcmp(a.colour, b.colour) || strcmp(a.dash, b.dash) ||
				  a.marker != b.marker);
		}
}
END_TEST

START_TEST(test_ci95)
{
	ck_assert(ci95_half(1.0, 1) == 0.0);
	/* t(0.975, 2) = 4.303 */
	ck_assert(fabs(ci95_half(1.0, 3) - 4.303 / sqrt(3.0)) < 1e-3);
}
END_TEST

static char *draw_xy(const struct xy_chart *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	svg_xy_chart(out, c);
	fclose(out);
	return text;
}

static char *draw_bars(const struct bar *bars, unsigned n, bool log)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	svg_bar_chart(out, &(struct bar_chart){.id = "t",
					       .title = "t",
					       .x_label = "x",
					       .unit = "",
					       .log = log,
					       .nr_bars = n,
					       .bars = bars});
	fclose(out);
	return text;
}

START_TEST(test_bar_chart_edges)
{
	struct bar one = {.label = "kvm ticket/pause", .value = 5e5};
	char *svg = draw_bars(&one, 1, true);
	assert_numbers_only(svg);
	ck_assert_ptr_nonnull(strstr(svg, "kvm ticket/pause"));
	free(svg);

	struct bar zero[2] = {{.label = "a", .value = 0}, {.label = "b", .value = NAN}};
	svg = draw_bars(zero, 2, true);
	assert_numbers_only(svg + strlen("<figure")); /* "n/a" is text, not a number */
	ck_assert_ptr_nonnull(strstr(svg, "n/a"));
	free(svg);

	struct bar outlier[2] = {{.label = "a", .value = 1, .err_sd = 1e13, .err_ci = 1e14},
				 {.label = "b<&>", .value = 2}};
	svg = draw_bars(outlier, 2, false);
	assert_numbers_only(svg);
	ck_assert_ptr_nonnull(strstr(svg, "b&lt;&amp;&gt;"));
	free(svg);
}
END_TEST

START_TEST(test_xy_empty_histogram)
{
	struct xy_series s[2] = {
	    {.name = "hist", .n = 0, .x = NULL, .y = NULL, .x_hi = (double[]){0}},
	    {.name = "cdf", .n = 0, .y2 = true}};
	char *text = draw_xy(&(struct xy_chart){.id = "h",
						.title = "h",
						.x_label = "x",
						.y_label = "y",
						.x_log = true,
						.nr_series = 2,
						.series = s,
						.y2_label = "cdf"});

	assert_numbers_only(text);
	free(text);
}
END_TEST

/*
 * Attribute @attr of the @i-th element <@tag ... class="@cls"/> of @svg; NaN when there are
 * fewer. Not inlined: GCC's -Wdangling-pointer takes a pointer into open_memstream's buffer,
 * walked in the caller, for one into draw_xy's frame.
 */
__attribute__((noinline)) static double element_attr(const char *svg, const char *tag,
						     const char *cls, unsigned i, const char *attr)
{
	char open[16], class_attr[64], want[32];
	snprintf(open, sizeof(open), "<%s ", tag);
	snprintf(class_attr, sizeof(class_attr), "class=\"%s\"", cls);
	snprintf(want, sizeof(want), " %s=\"", attr);
	for (const char *e = strstr(svg, open); e; e = strstr(e + 1, open)) {
		const char *end = strstr(e, "/>"), *c = strstr(e, class_attr);
		if (!end || !c || c > end || i--)
			continue;
		const char *a = strstr(e, want);
		return a && a < end ? strtod(a + strlen(want), NULL) : NAN;
	}
	return NAN;
}

/* tune's cost curves: the flat range shaded, one value as a band, a line for PLE off. */
START_TEST(test_xy_spans_and_hlines)
{
	static const double x[3] = {1024, 4096, 16384}, y[3] = {5500, 3600, 1400};
	struct xy_series s = {.name = "S1", .n = 3, .x = x, .y = y};
	struct xspan spans[3] = {{1024, 4096, "S1 flat"},
				 {16384, 16384, "one <value>"},
				 /* beyond every point: the x axis widens to hold it */
				 {262144, 1048576, "far"}};
	struct hline h = {1e6, "S1 PLE off per VM"};
	struct vline v = {1024, "S1 best 1024"};
	double x0, w0, x1, w1, x2, w2;
	const struct xy_chart c = {.id = "t",
				   .title = "t",
				   .x_label = "ple_window (log)",
				   .y_label = "acq/s",
				   .x_log = true,
				   .y_log = true,
				   .nr_series = 1,
				   .series = &s,
				   .nr_vlines = 1,
				   .vlines = &v,
				   .nr_spans = 3,
				   .spans = spans,
				   .nr_hlines = 1,
				   .hlines = &h};
	char *text = draw_xy(&c);
	assert_numbers_only(text);
	x0 = element_attr(text, "rect", "span", 0, "x");
	w0 = element_attr(text, "rect", "span", 0, "width");
	x1 = element_attr(text, "rect", "span", 1, "x");
	w1 = element_attr(text, "rect", "span", 1, "width");
	x2 = element_attr(text, "rect", "span", 2, "x");
	w2 = element_attr(text, "rect", "span", 2, "width");
	ck_assert(isnan(element_attr(text, "rect", "span", 3, "x")));
	ck_assert(w0 > 20);			 /* two decades' fifth at least */
	ck_assert(fabs(w1 - 8.0) < 0.01);	 /* one value: a band 8 px wide around it */
	ck_assert(x1 > x0 + w0 && x2 > x1 + w1); /* in order, none clamped onto another */
	ck_assert(x2 + w2 <= 760.0 - 30 + 0.1);	 /* inside the plot */
	ck_assert_ptr_nonnull(strstr(text, "one &lt;value&gt;"));
	ck_assert_ptr_nonnull(strstr(text, "class=\"hline\""));
	ck_assert_ptr_nonnull(strstr(text, "S1 PLE off per VM"));
	/* the line's y lies inside the plot though it is above every point (1e6 > 5500) */
	double hy = element_attr(text, "line", "hline", 0, "y1");
	ck_assert(hy > 24.0 && hy < 24.0 + 8 + 230);
	free(text);
}
END_TEST

/* The y of every "label" text, in order; how many. */
static unsigned label_ys(const char *svg, const char *cls, double *ys, unsigned max)
{
	unsigned n = 0;
	char pattern[64];

	snprintf(pattern, sizeof(pattern), "class=\"%s\">", cls);
	for (const char *p = svg; (p = strstr(p, pattern)) && n < max; p++) {
		const char *t = p;
		while (t > svg && strncmp(t, "<text", 5))
			t--;
		const char *y = strstr(t, " y=\"");
		ck_assert_ptr_nonnull(y);
		ys[n++] = strtod(y + 4, NULL);
	}
	return n;
}

START_TEST(test_24_variants_do_not_overlap)
{
	static struct bar bars[24];
	static char names[24][80];
	double ys[64];

	for (unsigned i = 0; i < 24; i++) {
		snprintf(names[i], sizeof(names[i]),
			 "libvirt-emulated ticket/rep-pause kernel ple=off 64x64 on 0-63 #%u", i);
		bars[i] = (struct bar){.label = names[i], .value = 1000.0 * (i + 1)};
	}
	char *svg = draw_bars(bars, 24, true);
	unsigned n = label_ys(svg, "label", ys, 64);
	ck_assert_uint_eq(n, 24);
	for (unsigned i = 1; i < n; i++)
		ck_assert(ys[i] - ys[i - 1] >= 14.0); /* 11 px text, one row each */
	free(svg);

	/* 24 lines: the legend in rows of two, one row height apart */
	static struct xy_series s[24];
	static const double x[2] = {1, 2}, y[2] = {10, 20};
	for (unsigned i = 0; i < 24; i++)
		s[i] = (struct xy_series){.name = names[i], .n = 2, .x = x, .y = y};
	char *text = draw_xy(&(struct xy_chart){
	    .id = "l", .title = "l", .x_label = "x", .y_label = "y", .nr_series = 24, .series = s});
	n = label_ys(text, "label", ys, 64);
	ck_assert_uint_eq(n, 24);
	for (unsigned i = 2; i < n; i++)
		ck_assert(ys[i] - ys[i - 2] >= 14.0);
	free(text);
}
END_TEST

static char *render(const char *json)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct html_input in = {.name = "t.json", .doc = json_tokener_parse(json)};

	ck_assert_ptr_nonnull(in.doc);
	if (strstr(json, "plerig-sweep"))
		html_sweep_section(out, &in, 0);
	else
		html_results_section(out, &in, 0);
	fclose(out);
	json_object_put(in.doc);
	return text;
}

START_TEST(test_sweep_one_point)
{
	char *html = render("{\"schema\":\"plerig-sweep\",\"schema_version\":1,"
			    "\"params\":[\"ple_window\"],\"points\":[{\"values\":{\"ple_window\":"
			    "4096},\"variant\":\"kvm ticket pause\",\"ok\":true,\"runs\":1,"
			    "\"acq_per_s\":1000.0,\"stalls\":0,\"stalled_share\":0.0,"
			    "\"pause_loop_exits\":null}]}");
	assert_numbers_only(html);
	ck_assert_ptr_nonnull(strstr(html, "id=\"s0-acq_per_s\""));
	ck_assert_ptr_nonnull(strstr(html, "kvm ticket pause"));
	free(html);
}
END_TEST

START_TEST(test_results_one_run_zero_stalls)
{
	/* one variant, one run, no stats, no stalls, an empty wait histogram */
	char *html = render(
	    "{\"schema\":\"plerig-results\",\"schema_version\":2,\"repeat\":1,"
	    "\"variants\":[{\"backend\":\"kvm\",\"lock\":\"ticket\",\"relax\":\"pause\","
	    "\"ring\":\"user\",\"vms\":1,\"vcpus\":2,\"pcpus\":\"0-1\",\"runs\":[{\"repeat\":0,"
	    "\"ok\":true,\"interval_s\":0.2,\"tsc_khz\":2000000,\"summary\":{\"acq_per_s\":0.0,"
	    "\"stalled_share\":0.0,\"run_delay_share\":0.0,\"wait_max_ns\":null},"
	    "\"vm_results\":[{\"vm\":0,\"vcpus\":[{\"vcpu\":0,\"acquisitions\":0,"
	    "\"stalled_ns\":0,\"run_delay_ns\":0,\"wait_histogram\":{\"buckets\":[]}}]}]}]}],"
	    "\"comparisons\":[]}");
	assert_numbers_only(html);
	ck_assert_ptr_nonnull(strstr(html, "id=\"r0-acq_per_s\""));
	ck_assert_ptr_nonnull(strstr(html, "id=\"r0-wait-0\""));
	ck_assert_ptr_nonnull(strstr(html, "the histogram is empty"));
	ck_assert_ptr_nonnull(strstr(html, "id=\"r0-vcpu-acq-0\""));
	ck_assert_ptr_null(strstr(html, "r0-runs")); /* one run: no time order */
	free(html);
}
END_TEST

/*
 * A comparison's reference variant is hatched and marked whether the file
 * says "reference" or, from a plerig before the word, "baseline".
 */
START_TEST(test_reference_and_its_old_name)
{
#define VARIANT(relax)                                                                             \
	"{\"backend\":\"kvm\",\"lock\":\"ticket\",\"relax\":\"" relax "\",\"ring\":\"user\","      \
	"\"vms\":1,\"vcpus\":2,\"pcpus\":\"0-1\",\"runs\":[{\"repeat\":0,\"ok\":true,"             \
	"\"interval_s\":0.2,\"summary\":{\"acq_per_s\":100.0}}]}"
#define DOC(key)                                                                                   \
	"{\"schema\":\"plerig-results\",\"schema_version\":2,\"repeat\":1,\"variants\":[" VARIANT( \
	    "pause") "," VARIANT("nop") "],\"comparisons\":[{\"" key "\":0,"                       \
					"\"candidate\":1,\"metric\":\"acq_per_s\","                \
					"\"verdict\":\"worse\",\"p_holm\":0.01}]}"
	static const char *const docs[] = {DOC("reference"), DOC("baseline")};
	for (unsigned i = 0; i < 2; i++) {
		char *html = render(docs[i]);
		ck_assert_msg(strstr(html, "class=\"bar reference\"") &&
				  strstr(html, " reference<") && strstr(html, "worse (p=0.01)"),
			      "%s", docs[i]);
		free(html);
	}
#undef DOC
#undef VARIANT
}
END_TEST

static Suite *svg_chart_suite(void)
{
	Suite *s = suite_create("svg_chart");
	TCase *tc = tcase_create("geometry");

	tcase_add_test(tc, test_axis_no_value);
	tcase_add_test(tc, test_reference_and_its_old_name);
	tcase_add_test(tc, test_axis_one_value);
	tcase_add_test(tc, test_axis_decade);
	tcase_add_test(tc, test_axis_huge_outlier);
	tcase_add_test(tc, test_axis_extremes);
	tcase_add_test(tc, test_axis_px_log);
	tcase_add_test(tc, test_ticks_round);
	tcase_add_test(tc, test_rows_never_overlap);
	tcase_add_test(tc, test_styles_differ);
	tcase_add_test(tc, test_ci95);
	suite_add_tcase(s, tc);
	tc = tcase_create("drawing");
	tcase_add_test(tc, test_bar_chart_edges);
	tcase_add_test(tc, test_xy_empty_histogram);
	tcase_add_test(tc, test_xy_spans_and_hlines);
	tcase_add_test(tc, test_24_variants_do_not_overlap);
	tcase_add_test(tc, test_sweep_one_point);
	tcase_add_test(tc, test_results_one_run_zero_stalls);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(svg_chart_suite)
