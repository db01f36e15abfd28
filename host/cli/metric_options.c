// SPDX-License-Identifier: GPL-2.0
#include "cli/metric_options.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/errbuf.h"

int metric_list_parse(const char *what, const char *list, const struct metric **out, unsigned max,
		      unsigned *n, char *err, size_t errlen)
{
	char *copy = strdup(list), *save = NULL;

	if (!copy)
		return errbuf_printf(err, errlen, "out of memory");
	*n = 0;
	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		const struct metric *m = metric_by_name(name);
		if (!m) {
			char names[512] = "";
			for (unsigned i = 0; i < nr_metrics; i++)
				snprintf(names + strlen(names), sizeof(names) - strlen(names),
					 "%s%s", i ? ", " : "", metrics[i].name);
			errbuf_printf(err, errlen, "%s: '%s' is not one of %s", what, name, names);
			free(copy);
			return -1;
		}
		bool dup = false;
		for (unsigned i = 0; i < *n; i++)
			dup |= out[i] == m;
		if (!dup && *n < max)
			out[(*n)++] = m;
	}
	free(copy);
	if (!*n)
		return errbuf_printf(err, errlen, "%s: no metric named in '%s'", what, list);
	return 0;
}

int threshold_parse(const char *s, double *out, char *err, size_t errlen)
{
	char *end;
	double v = strtod(s, &end);

	if (end != s && *end == '%') /* "2%" reads as meant */
		end++;
	if (end == s || *end || !isfinite(v) || v < 0.0 || v > 1000.0)
		return errbuf_printf(err, errlen,
				     "--threshold: '%s' is not a percentage from 0 to 1000", s);
	*out = v;
	return 0;
}

int opt_parse_metric_list(const struct opt_entry *e, const char *value, void *target, char *err,
			  size_t errlen)
{
	/* as with `plerig run` lists: the last one given wins */
	return metric_list_parse("--metric", value,
				 (const struct metric **)((char *)target + e->off), e->max_items,
				 (unsigned *)((char *)target + e->nr_off), err, errlen);
}

int opt_parse_threshold(const struct opt_entry *e, const char *value, void *target, char *err,
			size_t errlen)
{
	return threshold_parse(value, (double *)((char *)target + e->off), err, errlen);
}
