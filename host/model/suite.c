// SPDX-License-Identifier: GPL-2.0
#include "model/suite.h"

#include <stdlib.h>
#include <string.h>

static const char *const expectation_names[EXPECT_COUNT] = {
    [EXPECT_PROGRESS] = "progress",
    [EXPECT_NO_STALLS] = "no-stalls",
    [EXPECT_STALLS] = "stalls",
    [EXPECT_PLE_EXITS] = "ple-exits",
    [EXPECT_NO_PLE_EXITS] = "no-ple-exits",
    [EXPECT_DIRECTED_YIELDS] = "directed-yields",
    [EXPECT_HALTS] = "halts",
    [EXPECT_FTRACE_COUNTS] = "ftrace-counts",
    [EXPECT_HALT_STATS] = "halt-stats",
    [EXPECT_PV_FEWER_PLE_EXITS] = "pv-fewer-ple-exits",
    [EXPECT_MODULE_PARAMS] = "module-params",
    [EXPECT_EXIT_TIMES] = "exit-times",
    [EXPECT_YIELD_TRACE] = "yield-trace",
    [EXPECT_KICK_TRACE] = "kick-trace",
};

static const char *const requirement_names[REQUIRE_COUNT] = {
    [REQUIRE_PLE] = "ple",
    [REQUIRE_HW_VIRT] = "hw-virt",
    [REQUIRE_PV_YIELD] = "pv-yield",
    [REQUIRE_PV_UNHALT] = "pv-unhalt",
    [REQUIRE_HALT_POLL] = "halt-poll",
};

static int index_of(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

const char *expectation_name(enum expectation e)
{
	return e < EXPECT_COUNT ? expectation_names[e] : "?";
}

int expectation_by_name(const char *name)
{
	return index_of(expectation_names, EXPECT_COUNT, name);
}

const char *requirement_name(enum requirement r)
{
	return r < REQUIRE_COUNT ? requirement_names[r] : "?";
}

int requirement_by_name(const char *name)
{
	return index_of(requirement_names, REQUIRE_COUNT, name);
}

bool scenario_in_group(const struct scenario *s, const char *group)
{
	size_t len = strlen(group);
	if (!strcmp(s->name, group))
		return true;
	for (const char *g = s->groups; *g;) {
		size_t n = strcspn(g, ",");
		if (n == len && !strncmp(g, group, len))
			return true;
		g += n;
		g += *g == ',';
	}
	return false;
}

void suite_free(struct suite *s)
{
	for (unsigned i = 0; i < s->nr_scenarios; i++) {
		free(s->scenarios[i].plan);
		free(s->scenarios[i].argbuf);
	}
	free(s->scenarios);
	s->scenarios = NULL;
	s->nr_scenarios = 0;
}
