// SPDX-License-Identifier: GPL-2.0
#include "output/svg_chart.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/html_text.h"

#define CHART_W	   760.0
#define TITLE_H	   24.0
#define AXIS_H	   44.0 /* tick labels and the axis title under a plot */
#define LEGEND_ROW 16.0
#define LEGEND_COL 340.0

/* ---- drawing ---------------------------------------------------------- */

/* A share cannot pass 100 %: a whisker that would is cut at the edge. */
static void cap_share(struct axis *a, const char *unit)
{
	if (unit && !strcmp(unit, "%") && !a->log && a->lo >= 0.0 && a->hi > 1.0)
		a->hi = 1.0;
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
			    b->highlight ? " reference"
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
			    "class=\"bar reference\"/>\n",
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
