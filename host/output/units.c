// SPDX-License-Identifier: GPL-2.0
#include "output/units.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

struct unit {
	const char *suffix;
	double scale;
};

static const struct unit count_units[] = {
    {"", 1.0}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18},
};

static const struct unit time_units[] = {
    {"ns", 1.0},
    {"us", 1e3},
    {"ms", 1e6},
    {"s", 1e9},
};

/*
 * Format @x (already scaled) with one decimal below 100 and none above.
 * Returns false when rounding carried it to 1000, so the caller moves on
 * to the next unit (999.96k must print as 1.0M, not 1000k).
 */
static bool fits_unit(double x, bool whole, const char *sign, const char *suffix, char *buf,
		      size_t len)
{
	char num[UNITS_BUF_SIZE];
	int prec = whole ? 0 : 1;

	snprintf(num, sizeof(num), "%.*f", prec, x);
	if (prec && strtod(num, NULL) >= 100.0)
		snprintf(num, sizeof(num), "%.0f", x);
	if (strtod(num, NULL) >= 1000.0)
		return false;
	snprintf(buf, len, "%s%s%s", sign, num, suffix);
	return true;
}

static const char *scaled(double v, const struct unit *units, unsigned nr, bool whole_first,
			  char *buf, size_t len)
{
	const char *sign = "";

	if (len == 0)
		return buf;
	/* NaN is a figure not measured (model/results.h): n/a, the reason said elsewhere */
	if (isnan(v)) {
		snprintf(buf, len, "n/a");
		return buf;
	}
	if (!isfinite(v)) {
		snprintf(buf, len, "?");
		return buf;
	}
	if (v < 0) {
		sign = "-";
		v = -v;
	}
	/* a count below 1000 is shown exactly: 7 stalls, not 7.0 */
	bool integral = v < 1e18 && v == (double)(unsigned long long)v;
	for (unsigned i = 0; i + 1 < nr; i++) {
		bool whole = i == 0 && (whole_first || integral);
		if (fits_unit(v / units[i].scale, whole, sign, units[i].suffix, buf, len))
			return buf;
	}
	/* the largest unit takes whatever is left, however many digits */
	double x = v / units[nr - 1].scale;
	snprintf(buf, len, "%s%.*f%s", sign, x < 99.95 ? 1 : 0, x, units[nr - 1].suffix);
	return buf;
}

const char *units_count(double v, char *buf, size_t len)
{
	return scaled(v, count_units, sizeof(count_units) / sizeof(count_units[0]), false, buf,
		      len);
}

/* Sub-nanosecond digits are noise: TSC ticks are ~0.3 ns at best. */
const char *units_duration_ns(double ns, char *buf, size_t len)
{
	return scaled(ns, time_units, sizeof(time_units) / sizeof(time_units[0]), true, buf, len);
}

const char *units_duration_ns_2sig(double ns, char *buf, size_t len)
{
	if (len == 0)
		return buf;
	if (!isfinite(ns) || ns == 0.0)
		return units_duration_ns(ns, buf, len);
	/* round to 2 significant digits first, then let the unit be chosen for that */
	double p = pow(10.0, floor(log10(fabs(ns))) - 1.0);
	double r = round(ns / p) * p;
	const char *sign = r < 0 ? "-" : "";
	unsigned i = 0;
	r = fabs(r);
	while (i + 1 < sizeof(time_units) / sizeof(time_units[0]) &&
	       r >= 1000.0 * time_units[i].scale)
		i++;
	double x = r / time_units[i].scale;
	/* whole ns: sub-nanosecond digits are noise */
	snprintf(buf, len, "%s%.*f%s", sign, i > 0 && x < 9.95 ? 1 : 0, x, time_units[i].suffix);
	return buf;
}

const char *units_percent(double share, char *buf, size_t len)
{
	double pct = share * 100.0;

	if (len == 0)
		return buf;
	if (isnan(pct))
		snprintf(buf, len, "n/a");
	else if (!isfinite(pct))
		snprintf(buf, len, "?");
	else if (pct == 0.0)
		snprintf(buf, len, "0%%");
	/* a tiny share is still not none: keep it visible */
	else if (pct > 0.0 && pct < 0.05)
		snprintf(buf, len, "<0.1%%");
	else
		snprintf(buf, len, "%.1f%%", pct);
	return buf;
}
