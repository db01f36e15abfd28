// SPDX-License-Identifier: GPL-2.0
#include "stats/holm.h"

#include <math.h>
#include <stdlib.h>

struct ranked {
	double p;
	unsigned index;
};

static int by_p(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->index < y->index ? -1 : (x->index > y->index);
}

void holm_adjust(const double *p, unsigned n, double *adj)
{
	struct ranked stack[64];
	struct ranked *r = n <= 64 ? stack : malloc(n * sizeof(*r));
	unsigned m = 0;

	if (!r) { /* out of memory: Bonferroni, which Holm only improves on */
		for (unsigned i = 0; i < n; i++)
			adj[i] = isnan(p[i]) ? NAN : fmin(1.0, p[i] * n);
		return;
	}
	for (unsigned i = 0; i < n; i++)
		if (!isnan(p[i]))
			r[m++] = (struct ranked){p[i], i};
	for (unsigned i = 0; i < n; i++)
		if (isnan(p[i]))
			adj[i] = NAN;
	qsort(r, m, sizeof(*r), by_p);
	double running = 0.0;
	for (unsigned k = 0; k < m; k++) {
		double a = fmin(1.0, r[k].p * (double)(m - k));
		running = fmax(running, a); /* step-down: never below an earlier one */
		adj[r[k].index] = running;
	}
	if (r != stack)
		free(r);
}
