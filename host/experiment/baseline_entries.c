// SPDX-License-Identifier: GPL-2.0
/* A baseline's entries in memory, sorted by scenario, variant and metric. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/baseline_store.h"

static int entry_order(const char *scenario, const char *variant, const char *metric,
		       const struct baseline_entry *e)
{
	int c = strcmp(scenario, e->scenario);
	if (!c)
		c = strcmp(variant, e->variant);
	return c ? c : strcmp(metric, e->metric);
}

/* Where @scenario x @variant x @metric is, or would go; *found says which. */
static unsigned entry_slot(const struct baseline *b, const char *scenario, const char *variant,
			   const char *metric, bool *found)
{
	unsigned lo = 0, hi = b->nr_entries;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		int c = entry_order(scenario, variant, metric, &b->entries[mid]);
		if (!c) {
			*found = true;
			return mid;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	*found = false;
	return lo;
}

const struct baseline_entry *baseline_find(const struct baseline *b, const char *scenario,
					   const char *variant, const char *metric)
{
	bool found;
	if (!b)
		return NULL;
	unsigned i = entry_slot(b, scenario, variant, metric, &found);
	return found ? &b->entries[i] : NULL;
}

int baseline_grow(struct baseline *b)
{
	if (b->nr_entries < b->cap_entries)
		return 0;
	unsigned cap = b->cap_entries ? 2 * b->cap_entries : 64;
	struct baseline_entry *grown = realloc(b->entries, cap * sizeof(*grown));
	if (!grown)
		return -1;
	b->entries = grown;
	b->cap_entries = cap;
	return 0;
}

int baseline_put(struct baseline *b, const char *scenario, const char *variant, const char *metric,
		 const double *values, unsigned n)
{
	bool found;
	double *copy = malloc((n ? n : 1) * sizeof(*copy));
	if (!copy)
		return -1;
	if (n)
		memcpy(copy, values, n * sizeof(*copy));
	unsigned i = entry_slot(b, scenario, variant, metric, &found);
	if (!found) {
		if (baseline_grow(b)) {
			free(copy);
			return -1;
		}
		memmove(&b->entries[i + 1], &b->entries[i],
			(b->nr_entries - i) * sizeof(*b->entries));
		b->nr_entries++;
		struct baseline_entry *e = &b->entries[i];
		memset(e, 0, sizeof(*e));
		snprintf(e->scenario, sizeof(e->scenario), "%s", scenario);
		snprintf(e->variant, sizeof(e->variant), "%s", variant);
		snprintf(e->metric, sizeof(e->metric), "%s", metric);
	}
	free(b->entries[i].values);
	b->entries[i].values = copy;
	b->entries[i].n = n;
	return 0;
}

void baseline_drop_scenario(struct baseline *b, const char *scenario)
{
	unsigned o = 0;
	for (unsigned i = 0; i < b->nr_entries; i++) {
		if (!strcmp(b->entries[i].scenario, scenario))
			free(b->entries[i].values);
		else
			b->entries[o++] = b->entries[i];
	}
	b->nr_entries = o;
}

void baseline_free(struct baseline *b)
{
	for (unsigned i = 0; i < b->nr_entries; i++)
		free(b->entries[i].values);
	free(b->entries);
	b->entries = NULL;
	b->nr_entries = 0;
	b->cap_entries = 0;
}

int baseline_entry_cmp(const void *a, const void *b)
{
	const struct baseline_entry *y = b;
	return entry_order(((const struct baseline_entry *)a)->scenario,
			   ((const struct baseline_entry *)a)->variant,
			   ((const struct baseline_entry *)a)->metric, y);
}
