// SPDX-License-Identifier: GPL-2.0
#include "output/svg_chart.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/html_text.h"

#define CHART_W	   760.0
#define CHAR_W	   6.6 /* of the 11 px sans-serif labels, a little generous */
#define TITLE_H	   24.0
#define AXIS_H	   44.0 /* tick labels and the axis title under a plot */
#define LEGEND_ROW 16.0
#define LEGEND_COL 340.0

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

/* ---- drawing ---------------------------------------------------------- */

/* A share cannot pass 100 %: a whisker that would is cut at the edge. */
static void cap_share(struct axis *a, const char *unit)
{
	if (unit && !strcmp(unit, "%") && !a->log && a->lo >= 0.0 && a->hi > 1.0)
		a->hi = 1.0;
}

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

static void text(FILE *out, double x, double y, const char *anchor, const char *cls, const char *s)
{
	html_printf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" class=\"%s\">%s</text>\n",
		    x, y, anchor, cls, s);
}

/* @s cut to @max characters with an ellipsis, the whole in a tooltip. */
static void label_text(FILE *out, double x, double y, const char *anchor, const char *s,
		       unsigned max)
{
	html_printf(
	    out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" class=\"label\"><title>%s</title>",
	    x, y, anchor, s);
	if (strlen(s) <= max) /* else cut at a character boundary */
		html_printf(out, "%s</text>\n", s);
	else
		html_printf(out, "%.*s\u2026</text>\n", (int)(max > 1 ? max - 1 : 1), s);
}

static void marker(FILE *out, char m, double x, double y, const char *colour)
{
	switch (m) {
	case 's':
		html_printf(out,
			    "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"%s\"/>\n",
			    x - 3.5, y - 3.5, colour);
		break;
	case '^':
		html_printf(out, "<path d=\"M%.1f %.1fl4 7h-8z\" fill=\"%s\"/>\n", x, y - 4.5,
			    colour);
		break;
	case 'd':
		html_printf(out, "<path d=\"M%.1f %.1fl4 4.5l-4 4.5l-4 -4.5z\" fill=\"%s\"/>\n", x,
			    y - 4.5, colour);
		break;
	case 'x':
		html_printf(
		    out,
		    "<path d=\"M%.1f %.1fl7 7m0 -7l-7 7\" stroke=\"%s\" stroke-width=\"2\"/>\n",
		    x - 3.5, y - 3.5, colour);
		break;
	case '+':
		html_printf(
		    out,
		    "<path d=\"M%.1f %.1fh9m-4.5 -4.5v9\" stroke=\"%s\" stroke-width=\"2\"/>\n",
		    x - 4.5, y, colour);
		break;
	default:
		html_printf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n", x, y,
			    colour);
	}
}

static void svg_open(FILE *out, const char *id, const char *title, double h)
{
	html_printf(out,
		    "<figure class=\"chart\" id=\"%s\"><svg xmlns=\"http://www.w3.org/2000/svg\" "
		    "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">"
		    "<title>%s</title>\n",
		    id, CHART_W, h, CHART_W, h, title);
	text(out, CHART_W / 2, 16, "middle", "title", title);
}

static void svg_close(FILE *out)
{
	fputs("</svg></figure>\n", out);
}

/* Grid lines and tick labels of a horizontal axis at y = @y from @top. */
static void x_axis(FILE *out, const struct axis *a, double top, double y, const char *unit,
		   const char *title, bool integer)
{
	double ticks[10];
	char buf[32];
	unsigned n = axis_ticks(a, ticks, 8);

	for (unsigned i = 0; i < n; i++) {
		double x = axis_px(a, ticks[i]);
		if (integer && ticks[i] != floor(ticks[i]))
			continue;
		html_printf(
		    out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n",
		    x, top, x, y);
		text(out, x, y + 14, "middle", "tick",
		     chart_number(ticks[i], unit, buf, sizeof(buf)));
	}
	html_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"axis\"/>\n",
		    a->p0, y, a->p1, y);
	text(out, (a->p0 + a->p1) / 2, y + 32, "middle", "axis-title", title);
}

static void y_axis(FILE *out, const struct axis *a, double left, double right, bool at_right,
		   const char *unit, const char *title)
{
	double ticks[10];
	char buf[32];
	unsigned n = axis_ticks(a, ticks, 7);
	double x = at_right ? right : left;

	for (unsigned i = 0; i < n; i++) {
		double y = axis_px(a, ticks[i]);
		if (!at_right)
			html_printf(out,
				    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				    "class=\"grid\"/>\n",
				    left, y, right, y);
		text(out, at_right ? x + 4 : x - 4, y + 4, at_right ? "start" : "end", "tick",
		     chart_number(ticks[i], unit, buf, sizeof(buf)));
	}
	html_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"axis\"/>\n",
		    x, a->p0, x, a->p1);
	double tx = at_right ? x + 52 : x - 52, ty = (a->p0 + a->p1) / 2;
	html_printf(out,
		    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"axis-title\" "
		    "transform=\"rotate(-90 %.1f %.1f)\">%s</text>\n",
		    tx, ty, tx, ty, title);
}

void svg_bar_chart(FILE *out, const struct bar_chart *c)
{
	struct row_layout rl;
	struct axis a;
	unsigned longest = 0;
	double *v = calloc(c->nr_bars * 2 + 1, sizeof(double));
	char buf[32];

	if (!v)
		return;
	for (unsigned i = 0; i < c->nr_bars; i++) {
		const struct bar *b = &c->bars[i];
		double e = fmax(b->err_sd, b->err_ci);
		longest = strlen(b->label) > longest ? (unsigned)strlen(b->label) : longest;
		v[2 * i] = b->value;
		v[2 * i + 1] = isfinite(e) && e > 0 ? b->value + e : NAN;
	}
	row_layout(c->nr_bars, longest, &rl);
	axis_fit(&a, v, c->nr_bars * 2, c->log, !c->log);
	cap_share(&a, c->unit);
	free(v);
	double top = TITLE_H + 6, plot_bottom = top + rl.height;
	a.p0 = rl.label_w + 8;
	a.p1 = CHART_W - 180;
	svg_open(out, c->id, c->title, plot_bottom + AXIS_H + 18);
	x_axis(out, &a, top, plot_bottom, c->unit, c->x_label, false);
	for (unsigned i = 0; i < c->nr_bars; i++) {
		const struct bar *b = &c->bars[i];
		double y = top + i * rl.row_h, mid = y + rl.row_h / 2;

		label_text(out, a.p0 - 6, mid + 4, "end", b->label, rl.max_chars);
		if (!isfinite(b->value) || (c->log && b->value <= 0)) {
			text(out, a.p0 + 4, mid + 4, "start", "value",
			     isfinite(b->value) ? chart_number(b->value, c->unit, buf, sizeof(buf))
						: "n/a");
			continue;
		}
		double x1 = axis_px(&a, b->value);
		html_printf(out,
			    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			    "class=\"bar%s\"/>\n",
			    a.p0, y + 3, fmax(x1 - a.p0, 1.0), rl.row_h - 6,
			    b->highlight ? " baseline"
			    : b->alt	 ? " alt"
					 : "");
		if (b->err_ci > 0) { /* thin whisker with caps: 95 % CI */
			double l = axis_px(&a, b->value - b->err_ci),
			       r = axis_px(&a, b->value + b->err_ci);
			html_printf(out,
				    "<path d=\"M%.1f %.1fH%.1fM%.1f %.1fv8M%.1f %.1fv8\" "
				    "class=\"ci\"/>\n",
				    l, mid, r, l, mid - 4, r, mid - 4);
		}
		if (b->err_sd > 0) { /* thick: ± stddev */
			double l = axis_px(&a, b->value - b->err_sd),
			       r = axis_px(&a, b->value + b->err_sd);
			html_printf(out, "<path d=\"M%.1f %.1fH%.1f\" class=\"sd\"/>\n", l, mid, r);
		}
		char vt[96];
		snprintf(vt, sizeof(vt), "%s%s%s",
			 chart_number(b->value, c->unit, buf, sizeof(buf)), b->mark ? "  " : "",
			 b->mark ? b->mark : "");
		text(out, a.p1 + 6, mid + 4, "start", b->mark ? "value marked" : "value", vt);
	}
	/* legend of what the chart shows */
	bool err = false, base = false;
	for (unsigned i = 0; i < c->nr_bars; i++) {
		err |= c->bars[i].err_sd > 0 || c->bars[i].err_ci > 0;
		base |= c->bars[i].highlight;
	}
	double ly = plot_bottom + AXIS_H + 10, lx = 20;
	if (err) {
		html_printf(out, "<path d=\"M%.1f %.1fh24\" class=\"sd\"/>\n", lx, ly - 4);
		text(out, lx + 30, ly, "start", "legend", "\u00b1 1 stddev");
		html_printf(out, "<path d=\"M%.1f %.1fh24M%.1f %.1fv8m24 0v-8\" class=\"ci\"/>\n",
			    lx + 130, ly - 4, lx + 130, ly - 8);
		text(out, lx + 160, ly, "start", "legend", "95 % confidence interval of the mean");
		lx += 400;
	}
	if (base) {
		html_printf(out,
			    "<rect x=\"%.1f\" y=\"%.1f\" width=\"20\" height=\"10\" "
			    "class=\"bar baseline\"/>\n",
			    lx, ly - 9);
		text(out, lx + 26, ly, "start", "legend", "reference of the comparisons");
	}
	svg_close(out);
}

static void legend(FILE *out, const struct xy_chart *c, double y0)
{
	for (unsigned i = 0; i < c->nr_series; i++) {
		struct series_style st;
		double x = 60 + (i % 2) * LEGEND_COL, y = y0 + (i / 2) * LEGEND_ROW;

		series_style(i, &st);
		if (c->series[i].x_hi)
			html_printf(out,
				    "<rect x=\"%.1f\" y=\"%.1f\" width=\"24\" height=\"9\" "
				    "fill=\"%s\" fill-opacity=\"0.35\" stroke=\"%s\"/>\n",
				    x, y - 8, st.colour, st.colour);
		else
			html_printf(
			    out,
			    "<path d=\"M%.1f %.1fh24\" stroke=\"%s\" stroke-dasharray=\"%s\" "
			    "stroke-width=\"2\"/>\n",
			    x, y - 4, st.colour, st.dash);
		if (!c->series[i].x_hi)
			marker(out, st.marker, x + 12, y - 4, st.colour);
		label_text(out, x + 30, y, "start", c->series[i].name, 44);
	}
}

void svg_xy_chart(FILE *out, const struct xy_chart *c)
{
	struct axis ax, ay, ay2 = {.lo = 0, .hi = 1};
	unsigned total = 0;
	bool has_y2 = false;

	for (unsigned s = 0; s < c->nr_series; s++) {
		total += c->series[s].n * 2;
		has_y2 |= c->series[s].y2;
	}
	total += 2 * c->nr_spans + c->nr_hlines;
	double *xs = calloc(total + 1, sizeof(double)), *ys = calloc(total + 1, sizeof(double));
	unsigned nx = 0, ny = 0;
	if (!xs || !ys) {
		free(xs);
		free(ys);
		return;
	}
	for (unsigned s = 0; s < c->nr_series; s++) {
		const struct xy_series *se = &c->series[s];
		for (unsigned i = 0; i < se->n; i++) {
			xs[nx++] = se->x[i];
			if (se->x_hi)
				xs[nx++] = se->x_hi[i];
			if (se->y2)
				continue;
			ys[ny++] = se->y[i];
			if (se->err && isfinite(se->err[i]))
				ys[ny++] = se->y[i] + se->err[i];
		}
	}
	for (unsigned i = 0; i < c->nr_spans; i++) {
		xs[nx++] = c->spans[i].lo;
		xs[nx++] = c->spans[i].hi;
	}
	for (unsigned i = 0; i < c->nr_hlines; i++)
		ys[ny++] = c->hlines[i].y;
	axis_fit(&ax, xs, nx, c->x_log, false);
	axis_fit(&ay, ys, ny, c->y_log, c->y_zero);
	cap_share(&ay, c->y_unit);
	free(xs);
	free(ys);

	double top = TITLE_H + 8, plot_h = 230, bottom = top + plot_h;
	unsigned legend_rows = (c->nr_series + 1) / 2;
	ax.p0 = 80;
	ax.p1 = CHART_W - (has_y2 ? 80 : 30);
	ay.p0 = ay2.p0 = bottom;
	ay.p1 = ay2.p1 = top;
	svg_open(out, c->id, c->title, bottom + AXIS_H + 8 + legend_rows * LEGEND_ROW + 8);
	x_axis(out, &ax, top, bottom, c->x_unit, c->x_label, c->x_integer);
	y_axis(out, &ay, ax.p0, ax.p1, false, c->y_unit, c->y_label);
	if (has_y2)
		y_axis(out, &ay2, ax.p0, ax.p1, true, "%", c->y2_label ? c->y2_label : "");
	for (unsigned i = 0; i < c->nr_spans; i++) { /* behind the lines */
		const struct xspan *sp = &c->spans[i];
		if (!isfinite(sp->lo) || !isfinite(sp->hi))
			continue;
		double x0 = axis_px(&ax, fmin(sp->lo, sp->hi)),
		       x1 = axis_px(&ax, fmax(sp->lo, sp->hi));
		if (x1 - x0 < 8) { /* one value: a band around it */
			x0 = (x0 + x1) / 2 - 4;
			x1 = x0 + 8;
		}
		html_printf(out,
			    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			    "class=\"span\"/>\n",
			    x0, top, x1 - x0, plot_h);
		text(out, x0 + 2, bottom - 4 - 12 * (i % 3), "start", "slabel", sp->label);
	}
	for (unsigned s = 0; s < c->nr_series; s++) {
		const struct xy_series *se = &c->series[s];
		const struct axis *y = se->y2 ? &ay2 : &ay;
		struct series_style st;

		series_style(s, &st);
		if (se->x_hi) {
			for (unsigned i = 0; i < se->n; i++) {
				double x0 = axis_px(&ax, se->x[i]), x1 = axis_px(&ax, se->x_hi[i]);
				double y0 = axis_px(y, se->y[i]);
				html_printf(
				    out,
				    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				    "fill=\"%s\" fill-opacity=\"0.35\" stroke=\"%s\" "
				    "stroke-width=\"0.5\"/>\n",
				    x0, y0, fmax(x1 - x0, 0.5), fmax(bottom - y0, 0.0), st.colour,
				    st.colour);
			}
			continue;
		}
		bool pen = false;
		html_printf(out,
			    "<path class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
			    "stroke-dasharray=\"%s\" d=\"",
			    st.colour, st.dash);
		for (unsigned i = 0; i < se->n; i++) {
			if (!isfinite(se->y[i]) || !isfinite(se->x[i])) {
				pen = false;
				continue;
			}
			html_printf(out, "%s%.1f %.1f", pen ? "L" : "M", axis_px(&ax, se->x[i]),
				    axis_px(y, se->y[i]));
			pen = true;
		}
		fputs("\"/>\n", out);
		for (unsigned i = 0; i < se->n; i++) {
			if (!isfinite(se->y[i]) || !isfinite(se->x[i]))
				continue;
			double px = axis_px(&ax, se->x[i]), py = axis_px(y, se->y[i]);
			if (se->err && isfinite(se->err[i]) && se->err[i] > 0)
				html_printf(out,
					    "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fh8M%.1f %.1fh8\" "
					    "stroke=\"%s\" stroke-width=\"1\"/>\n",
					    px, axis_px(y, se->y[i] - se->err[i]),
					    axis_px(y, se->y[i] + se->err[i]), px - 4,
					    axis_px(y, se->y[i] - se->err[i]), px - 4,
					    axis_px(y, se->y[i] + se->err[i]), st.colour);
			if (se->n <= 40) /* a dense curve (a CDF) is clearer without */
				marker(out, st.marker, px, py, st.colour);
		}
	}
	for (unsigned i = 0; i < c->nr_hlines; i++) {
		if (!isfinite(c->hlines[i].y))
			continue;
		double y = axis_px(&ay, c->hlines[i].y);
		html_printf(
		    out,
		    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"hline\"/>\n",
		    ax.p0, y, ax.p1, y);
		text(out, ax.p1 - 2, y - 3 - 12 * (i % 2), "end", "vlabel", c->hlines[i].label);
	}
	for (unsigned i = 0; i < c->nr_vlines; i++) {
		double x = axis_px(&ax, c->vlines[i].x);
		html_printf(
		    out,
		    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"vline\"/>\n", x,
		    top, x, bottom);
		/* staggered so that close markers (p99 next to max) do not overlap */
		text(out, x + 3, top + 10 + 12 * (i % 3), "start", "vlabel", c->vlines[i].label);
	}
	legend(out, c, bottom + AXIS_H + 14);
	svg_close(out);
}

void svg_figure_chart(FILE *out, const char *id, const char *title, const char *x_label, bool x_log,
		      const struct figure_axis *y, const struct xy_series *series,
		      unsigned nr_series)
{
	svg_xy_chart(out, &(struct xy_chart){.id = id,
					     .title = title,
					     .x_label = x_label,
					     .y_label = y->y_label,
					     .x_unit = "",
					     .y_unit = y->unit,
					     .x_log = x_log,
					     .y_log = y->log,
					     .y_zero = !y->log,
					     .nr_series = nr_series,
					     .series = series});
}
