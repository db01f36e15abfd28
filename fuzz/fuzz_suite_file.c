// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the suite-file parser of `plerig check`
 * (cli/suite_file.c), on any bytes (NUL bytes included), then what the
 * check reads of an accepted suite: every scenario's plan, its paths, its
 * groups and metrics.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/suite_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct suite s;
	char err[1024];
	if (suite_parse("fuzz.cfg", (const char *)data, size, &s, err, sizeof(err))) {
		if (!memchr(err, '\0', sizeof(err)))
			abort();
		return 0;
	}
	if (!s.nr_scenarios)
		abort(); /* a suite without a scenario is an error */
	for (unsigned i = 0; i < s.nr_scenarios; i++) {
		const struct scenario *sc = &s.scenarios[i];
		const struct run_plan *p = sc->plan;
		/* the paths are the scenario's own: reading them must be safe after parsing */
		const char *paths[] = {p->guest_path, p->connect_uri, p->cache_dir};
		for (unsigned k = 0; k < 3; k++)
			if (paths[k] && strlen(paths[k]) >= SCENARIO_OPTIONS_LEN)
				abort();
		if (!scenario_in_group(sc, sc->name) || sc->nr_metrics > SCENARIO_MAX_METRICS)
			abort();
		for (unsigned m = 0; m < sc->nr_metrics; m++)
			if (!sc->metrics[m] || !sc->metrics[m]->name)
				abort();
	}
	suite_free(&s);
	return 0;
}
