/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Charts as inline SVG for the HTML report. The geometry (axis ranges,
 * ticks, pixel positions, row layout, series styles) and the numbers
 * written on a chart are pure functions (svg_geometry.c), unit-tested on
 * their edge cases (no value, one value, zero, huge outliers); the drawing
 * functions (svg_chart.c) only print what they computed.
 *
 * Every chart has labelled axes with units and a legend; series differ
 * in dash and marker as well as in colour, so that a grey-scale print
 * still tells them apart. Horizontal bars put one label per row, so that
 * labels cannot overlap however many variants there are.
 */
#ifndef PLERIG_SVG_CHART_H
#define PLERIG_SVG_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* ---- geometry --------------------------------------------------------- */

struct axis {
	double lo, hi; /* the data range shown; lo < hi */
	bool log;      /* base 10; lo > 0 */
	double p0, p1; /* pixel of lo and of hi (p1 < p0 for a y axis) */
};

/*
 * Fit @a's range around the finite values of @v up to 1e300 in size (on a
 * log axis the positive ones from 1e-300), widened to round bounds (1-2-5 steps, or decades);
 * @include_zero starts a linear axis at 0. With no usable value the range
 * is 0..1 (log: 1..10). Returns how many values were used. p0/p1 are left.
 */
unsigned axis_fit(struct axis *a, const double *v, unsigned n, bool log, bool include_zero);
/* Pixel of @v, clamped to the axis (a huge outlier ends at the edge); a non-positive value on a log
 * axis maps to lo. */
double axis_px(const struct axis *a, double v);
/* Round tick values inside lo..hi, at most @max of them; returns how many. */
unsigned axis_ticks(const struct axis *a, double *ticks, unsigned max);

/* Rows of a horizontal bar chart: one per label, never overlapping. */
struct row_layout {
	double label_w;	    /* width of the label column */
	double row_h;	    /* height of one row */
	double height;	    /* of the whole plot area */
	unsigned max_chars; /* longer labels are cut, with the full one in a tooltip */
};
void row_layout(unsigned nr_rows, unsigned longest_label, struct row_layout *out);

/* How series @i is drawn: colour, dash and marker each cycle at a different length. */
struct series_style {
	const char *colour;
	const char *dash; /* stroke-dasharray, "" for solid */
	char marker; /* 'o' circle, 's' square, '^' triangle, 'd' diamond, 'x' cross, '+' plus */
};
void series_style(unsigned i, struct series_style *out);

/* Mean and half-width of the 95 % confidence interval (t distribution); 0 for n < 2. */
double ci95_half(double stddev, unsigned n);

/* ---- drawing ---------------------------------------------------------- */

/*
 * @v with @sig significant digits: "0", "450", "3.4k", "12M"; unit "%"
 * scales a share by 100; unit "ns" picks ns, us, ms or s.
 */
const char *chart_value(double v, const char *unit, int sig, char *buf, size_t len);
/* chart_value with 3 digits, for tick labels and bar values. */
const char *chart_number(double v, const char *unit, char *buf, size_t len);

/* One bar of a horizontal bar chart. */
struct bar {
	const char *label;
	double value;	  /* NaN: "n/a" */
	double err_sd;	  /* ± stddev, 0 for none */
	double err_ci;	  /* ± 95 % CI half-width, 0 for none */
	const char *mark; /* short text right of the bar ("reference", "worse p=0.01"), or NULL */
	bool highlight;	  /* drawn hatched (the reference) */
	bool alt;	  /* drawn lighter (the second figure of a pair of rows) */
};

struct bar_chart {
	const char *id; /* element id, for tests and links */
	const char *title;
	const char *x_label; /* axis title with unit */
	const char *unit;    /* for tick labels: "", "%", "ns" */
	bool log;
	unsigned nr_bars;
	const struct bar *bars;
};
void svg_bar_chart(FILE *out, const struct bar_chart *c);

/* A line through points (x, y) with optional vertical error bars. */
struct xy_series {
	const char *name;
	unsigned n;
	const double *x, *y;
	const double *err;  /* ± half-width per point, or NULL */
	const double *x_hi; /* non-NULL: bars from the x axis over x..x_hi (a histogram) */
	bool y2;	    /* against the second y axis, 0..1 on the right (a CDF) */
};

struct vline {
	double x;
	const char *label;
};

/* A range of x shaded behind the lines (a flat optimum), labelled at its top. */
struct xspan {
	double lo, hi; /* lo == hi: a band a few pixels wide around the one value */
	const char *label;
};

/* A horizontal reference line (a figure without an x: per-VM PLE off), labelled at its right. */
struct hline {
	double y;
	const char *label;
};

struct xy_chart {
	const char *id;
	const char *title;
	const char *x_label, *y_label;
	const char *x_unit, *y_unit;
	bool x_log, y_log;
	bool x_integer; /* ticks at whole numbers only (run numbers) */
	bool y_zero;	/* y axis starts at 0 (linear) */
	unsigned nr_series;
	const struct xy_series *series;
	unsigned nr_vlines; /* marked x values (p50, p99, max) */
	const struct vline *vlines;
	const char *y2_label; /* title of the second y axis, when a series uses it */
	unsigned nr_spans;    /* shaded x ranges, inside the x axis's fit */
	const struct xspan *spans;
	unsigned nr_hlines; /* reference lines, inside the y axis's fit */
	const struct hline *hlines;
};
void svg_xy_chart(FILE *out, const struct xy_chart *c);

/* A figure against a parameter: its JSON name, how its y axis is titled and scaled. */
struct figure_axis {
	const char *metric, *title, *y_label, *unit;
	bool log; /* counts on a log axis; shares (unit "%") from 0 */
};

/* @y's figure against @x_label, one line per series (±1 stddev bars where they have err). */
void svg_figure_chart(FILE *out, const char *id, const char *title, const char *x_label, bool x_log,
		      const struct figure_axis *y, const struct xy_series *series,
		      unsigned nr_series);

#endif
