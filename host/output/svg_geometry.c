// SPDX-License-Identifier: GPL-2.0
/*
 * The charts' geometry and numbers (output/svg_chart.h): axis ranges,
 * ticks, pixel positions, row layout, series styles, confidence
 * intervals and the values written on them. Pure functions, unit-tested;
 * svg_chart.c draws with them.
 */
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/svg_chart.h"

#define CHAR_W 6.6 /* of the 11 px sans-serif labels, a little generous */

/* ---- geometry --------------------------------------------------------- */

/* 1, 2 or 5 times a power of ten, the smallest >= @x. */
static double nice_step(double x)
{
	double p = pow(10.0, floor(log10(x)));
	double f = x / p;

	return (f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0) * p;
}

/*
 * Values beyond this are drawn at the edge like infinities, not fitted: a
 * decade past 1e308 is no double (log10 of infinity then overflowed int),
 * and below 1/AXIS_MAX a log axis would reach 0.
 */
#define AXIS_MAX     1e300
#define AXIS_DECADES 301

static bool fits(double v, bool log)
{
	return isfinite(v) && fabs(v) <= AXIS_MAX && (!log || v >= 1.0 / AXIS_MAX);
}

unsigned axis_fit(struct axis *a, const double *v, unsigned n, bool log, bool include_zero)
{
	double lo = INFINITY, hi = -INFINITY;
	unsigned used = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!fits(v[i], log))
			continue;
		lo = fmin(lo, v[i]);
		hi = fmax(hi, v[i]);
		used++;
	}
	a->log = log;
	if (log) {
		if (!used) {
			a->lo = 1.0;
			a->hi = 10.0;
			return 0;
		}
		a->lo = pow(10.0, floor(log10(lo)));
		a->hi = pow(10.0, ceil(log10(hi)));
		if (a->hi <= a->lo)
			a->hi = a->lo * 10.0;
		return used;
	}
	if (!used) {
		a->lo = 0.0;
		a->hi = 1.0;
		return 0;
	}
	if (include_zero) {
		lo = fmin(lo, 0.0);
		hi = fmax(hi, 0.0);
	}
	if (hi <= lo) { /* one value (or all equal): a range around it */
		double d = lo != 0.0 ? fabs(lo) * 0.5 : 1.0;
		lo = include_zero && lo >= 0.0 ? 0.0 : lo - d;
		hi = hi + d;
	}
	double step = nice_step((hi - lo) / 5.0);
	a->lo = floor(lo / step) * step;
	a->hi = ceil(hi / step) * step;
	if (a->hi <= a->lo)
		a->hi = a->lo + step;
	return used;
}

double axis_px(const struct axis *a, double v)
{
	double f;

	if (!isfinite(v))
		v = v > 0 ? a->hi : a->lo;
	if (a->log)
		f = v <= 0.0 ? 0.0 : (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
	else
		f = (v - a->lo) / (a->hi - a->lo);
	f = f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
	return a->p0 + f * (a->p1 - a->p0);
}

unsigned axis_ticks(const struct axis *a, double *ticks, unsigned max)
{
	unsigned n = 0;

	if (max == 0)
		return 0;
	if (a->log) {
		double l0 = floor(log10(a->lo) + 1e-9), l1 = ceil(log10(a->hi) - 1e-9);
		/* an axis not from axis_fit(): no int conversion out of range */
		if (!(l0 >= -AXIS_DECADES && l1 <= AXIS_DECADES && l0 <= l1))
			return 0;
		int d0 = (int)l0, d1 = (int)l1;
		int every = (d1 - d0) / (int)max + 1;
		for (int d = d0; d <= d1 && n < max; d += every)
			ticks[n++] = pow(10.0, d);
		return n;
	}
	double step = nice_step((a->hi - a->lo) / (max > 1 ? max - 1 : 1));
	double first = ceil(a->lo / step - 1e-9) * step;
	for (double t = first; t <= a->hi + step * 1e-9 && n < max; t += step)
		ticks[n++] = fabs(t) < step * 1e-9 ? 0.0 : t;
	return n;
}

void row_layout(unsigned nr_rows, unsigned longest_label, struct row_layout *out)
{
	out->max_chars = longest_label < 56 ? longest_label : 56;
	if (out->max_chars < 4)
		out->max_chars = 4;
	out->label_w = out->max_chars * CHAR_W + 12.0;
	out->row_h = 20.0;
	out->height = (nr_rows ? nr_rows : 1) * out->row_h;
}

void series_style(unsigned i, struct series_style *out)
{
	/* lightness spread from dark to light (Okabe-Ito hues), so grey-scale keeps them apart */
	static const char *const colours[] = {"#000000", "#0072B2", "#D55E00", "#009E73",
					      "#CC79A7", "#56B4E9", "#E69F00", "#999999"};
	static const char *const dashes[] = {"", "6 3", "2 2", "8 3 2 3", "1 3"};
	static const char markers[] = {'o', 's', '^', 'd', 'x', '+'};

	out->colour = colours[i % 8];
	out->dash = dashes[i % 5];
	out->marker = markers[i % 6];
}

double ci95_half(double stddev, unsigned n)
{
	if (n < 2 || !isfinite(stddev))
		return 0.0;
	return gsl_cdf_tdist_Pinv(0.975, n - 1.0) * stddev / sqrt((double)n);
}

/* ---- numbers --------------------------------------------------------- */

const char *chart_value(double v, const char *unit, int sig, char *buf, size_t len)
{
	static const char *const si[] = {"", "k", "M", "G", "T", "P"};
	static const char *const times[] = {"ns", "us", "ms", "s"};
	bool pct = unit && !strcmp(unit, "%"), ns = unit && !strcmp(unit, "ns");
	const char *u = unit ? unit : "";
	unsigned k = 0;

	if (!isfinite(v)) {
		snprintf(buf, len, "n/a");
		return buf;
	}
	if (pct) {
		v *= 100.0;
	} else if (ns) {
		while (fabs(v) >= 1000.0 && k < 3) {
			v /= 1000.0;
			k++;
		}
		u = times[k];
	} else {
		while (fabs(v) >= 1000.0 && k < 5) {
			v /= 1000.0;
			k++;
		}
		u = si[k];
	}
	if (v != 0.0 && fabs(v) < 0.001) {
		snprintf(buf, len, "%.1e%s", v, u);
		return buf;
	}
	/* @sig digits, none of them in an exponent; no trailing zeros (a tick at 60 is "60") */
	int decimals = v == 0.0 ? 0 : sig - 1 - (int)floor(log10(fabs(v)));
	if (decimals < 0) {
		double p = pow(10.0, -decimals);
		v = round(v / p) * p;
		decimals = 0;
	}
	char num[48];
	snprintf(num, sizeof(num), "%.*f", decimals, v);
	if (strchr(num, '.')) {
		char *end = num + strlen(num) - 1;
		while (*end == '0')
			*end-- = '\0';
		if (*end == '.')
			*end = '\0';
	}
	snprintf(buf, len, "%s%s", num, u);
	return buf;
}

const char *chart_number(double v, const char *unit, char *buf, size_t len)
{
	return chart_value(v, unit, 3, buf, len);
}
