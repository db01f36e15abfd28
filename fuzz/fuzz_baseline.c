// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the baseline loader of `plerig check`
 * (experiment/baseline_store.c), on any bytes as the file of the machine
 * "cpu-2cpu-smt0-kvm_pvm"; an accepted baseline must be found entry by
 * entry, and must read back the same after it is written out again.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/baseline_store.h"

#define KEY "cpu-2cpu-smt0-kvm_pvm"

static void check_entries(const struct baseline *b)
{
	for (unsigned i = 0; i < b->nr_entries; i++) {
		const struct baseline_entry *e = &b->entries[i];
		if (baseline_find(b, e->scenario, e->variant, e->metric) != e)
			abort();
		for (unsigned k = 0; k < e->n; k++)
			if (!isfinite(e->values[k]) || e->values[k] < 0.0 ||
			    e->values[k] > BASELINE_VALUE_MAX)
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct baseline b, again;
	char err[1024];
	if (baseline_parse("fuzz.json", KEY, (const char *)data, size, &b, err, sizeof(err)))
		return 0;
	check_entries(&b);
	char *text = baseline_text(&b);
	if (!text)
		abort();
	if (baseline_parse("again.json", KEY, text, strlen(text), &again, err, sizeof(err)) ||
	    again.nr_entries != b.nr_entries)
		abort();
	check_entries(&again);
	if (b.nr_entries) {
		baseline_drop_scenario(&again, b.entries[0].scenario);
		if (baseline_find(&again, b.entries[0].scenario, b.entries[0].variant,
				  b.entries[0].metric))
			abort();
	}
	free(text);
	baseline_free(&again);
	baseline_free(&b);
	return 0;
}
