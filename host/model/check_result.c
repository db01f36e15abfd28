// SPDX-License-Identifier: GPL-2.0
#include "model/check_result.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int check_result_add(struct check_result *r, const char *scenario, const char *name,
		     enum check_outcome outcome, const char *fmt, ...)
{
	if (r->nr_cases == r->cap) {
		unsigned cap = r->cap ? 2 * r->cap : 32;
		struct check_case *c = realloc(r->cases, cap * sizeof(*c));
		if (!c)
			return -1;
		r->cases = c;
		r->cap = cap;
	}
	struct check_case *c = &r->cases[r->nr_cases++];
	memset(c, 0, sizeof(*c));
	snprintf(c->scenario, sizeof(c->scenario), "%s", scenario);
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->outcome = outcome;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->text, sizeof(c->text), fmt, ap);
	va_end(ap);
	return 0;
}

void check_result_brief(struct check_result *r, const char *fmt, ...)
{
	if (!r->nr_cases)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->cases[r->nr_cases - 1].brief, sizeof(r->cases[0].brief), fmt, ap);
	va_end(ap);
}

unsigned check_result_count(const struct check_result *r, enum check_outcome outcome)
{
	unsigned n = 0;
	for (unsigned i = 0; i < r->nr_cases; i++)
		n += r->cases[i].outcome == outcome;
	return n;
}

int check_result_status(const struct check_result *r)
{
	if (check_result_count(r, CHECK_FAIL))
		return CHECK_EXIT_FAILED;
	return r->scenarios_run ? CHECK_EXIT_OK : CHECK_EXIT_SKIPPED;
}

int check_status_worst(int a, int b)
{
	const int rank_a = a == CHECK_EXIT_OK ? 0 : a == CHECK_EXIT_SKIPPED ? 1 : 2;
	const int rank_b = b == CHECK_EXIT_OK ? 0 : b == CHECK_EXIT_SKIPPED ? 1 : 2;
	return rank_a >= rank_b ? a : b;
}

int check_result_append(struct check_result *to, const struct check_result *from, const char *host)
{
	for (unsigned i = 0; i < from->nr_cases; i++) {
		const struct check_case *c = &from->cases[i];
		if (check_result_add(to, c->scenario, c->name, c->outcome, "%s", c->text))
			return -1;
		struct check_case *copy = &to->cases[to->nr_cases - 1];
		*copy = *c;
		snprintf(copy->host, sizeof(copy->host), "%s", host);
	}
	to->scenarios_run += from->scenarios_run;
	to->scenarios_skipped += from->scenarios_skipped;
	to->seconds += from->seconds;
	to->interrupted |= from->interrupted;
	return 0;
}

const char *check_outcome_name(enum check_outcome o)
{
	switch (o) {
	case CHECK_PASS:
		return "pass";
	case CHECK_FAIL:
		return "fail";
	case CHECK_SKIP:
		return "skip";
	case CHECK_NOISY:
		return "too noisy";
	}
	return "?";
}

void check_result_free(struct check_result *r)
{
	free(r->cases);
	r->cases = NULL;
	r->nr_cases = r->cap = 0;
}
