// SPDX-License-Identifier: GPL-2.0
#include "cli/suite_file.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/metric_options.h"
#include "cli/run_options.h"
#include "util/comma_list.h"
#include "util/errbuf.h"
#include "util/regular_file.h"
#include "util/strfmt.h"
#include "util/uri_redact.h"

#define SUITE_MAX_BYTES (256u * 1024u)
/* Far more than any suite runs in a CI job; the cap keeps a damaged file cheap to refuse. */
#define SUITE_MAX_SCENARIOS 1000u
#define MAX_ARGS	    128

enum suite_key {
	KEY_OPTIONS,
	KEY_GROUPS,
	KEY_MIN_CPUS,
	KEY_REQUIRES,
	KEY_EXPECT,
	KEY_METRICS,
	KEY_PARAMS,
	KEY_OTHER_REGIME,
	KEY_COUNT
};

static const char *const key_names[KEY_COUNT] = {
    [KEY_OPTIONS] = "options",	 [KEY_GROUPS] = "groups",
    [KEY_MIN_CPUS] = "min_cpus", [KEY_REQUIRES] = "requires",
    [KEY_EXPECT] = "expect",	 [KEY_METRICS] = "metrics",
    [KEY_PARAMS] = "params",	 [KEY_OTHER_REGIME] = "other_regime",
};

/* What a [section] says before its options become a plan. */
struct section {
	struct scenario s;
	char options[SCENARIO_OPTIONS_LEN]; /* its own, without the defaults' */
	unsigned key_line[KEY_COUNT];	    /* where each key was set in it; 0 not yet */
};

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* "a, b ,c" -> "a,b,c" in @out: comma lists as the rest of plerig reads them. */
static int squeeze_list(const char *value, char *out, size_t len)
{
	size_t o = 0;
	for (const char *p = value; *p; p++) {
		if (isspace((unsigned char)*p))
			continue;
		if (o + 1 >= len)
			return -1;
		out[o++] = *p;
	}
	out[o] = '\0';
	return 0;
}

/* Each item of @value through @lookup into bits of @mask. */
static int parse_names(const char *where, const char *key, const char *value,
		       int (*lookup)(const char *), const char *allowed, unsigned *mask, char *err,
		       size_t errlen)
{
	char list[512], item[LIST_ITEM_MAX];
	if (squeeze_list(value, list, sizeof(list)) || !*list)
		return errbuf_printf(err, errlen, "%s: %s: empty or too long (allowed: %s)", where,
				     key, allowed);
	const char *p = list;
	int rc;
	*mask = 0;
	while ((rc = list_next(&p, item, sizeof(item))) > 0) {
		int i = lookup(item);
		if (i < 0)
			return errbuf_printf(err, errlen, "%s: %s: unknown '%s' (allowed: %s)",
					     where, key, item, allowed);
		*mask |= 1u << i;
	}
	if (rc < 0)
		return errbuf_printf(err, errlen, "%s: %s: empty item in '%s'", where, key, value);
	return 0;
}

static int parse_metrics(const char *where, const char *value, struct scenario *s, char *err,
			 size_t errlen)
{
	char list[512], what[640];
	s->metrics_given = true;
	s->nr_metrics = 0;
	if (squeeze_list(value, list, sizeof(list)) || !strcmp(list, "none"))
		return 0;
	snprintf(what, sizeof(what), "%s: metrics", where);
	return metric_list_parse(what, list, s->metrics, SCENARIO_MAX_METRICS, &s->nr_metrics, err,
				 errlen);
}

/* "ple_window=1024, ple_gap=64": host PLE parameters, each once, as plerig sweep --param takes them
 */
static int parse_params(const char *where, const char *value, struct scenario *s, char *err,
			size_t errlen)
{
	char list[512], item[LIST_ITEM_MAX];
	const char *p = list;
	int rc;
	s->nr_params = 0; /* a section's own replace the defaults' */
	if (squeeze_list(value, list, sizeof(list)) || !*list)
		return errbuf_printf(err, errlen, "%s: params: empty or too long (NAME=VALUE, ...)",
				     where);
	while ((rc = list_next(&p, item, sizeof(item))) > 0) {
		char *eq = strchr(item, '=');
		if (!eq || eq == item || (size_t)(eq - item) >= PLE_NAME_LEN)
			return errbuf_printf(err, errlen, "%s: params: '%s' is not NAME=VALUE",
					     where, item);
		*eq = '\0';
		if (!ple_param_owner(item))
			return errbuf_printf(err, errlen,
					     "%s: params: %s is not a PLE parameter (%s)", where,
					     item, ple_params_known());
		if (!ple_value_valid(eq + 1) || strlen(eq + 1) >= PLE_VALUE_LEN)
			return errbuf_printf(
			    err, errlen,
			    "%s: params: %s=%s: not a decimal number from 0 to 4294967295", where,
			    item, eq + 1);
		for (unsigned i = 0; i < s->nr_params; i++)
			if (!strcmp(s->params[i].name, item))
				return errbuf_printf(err, errlen, "%s: params: %s given twice",
						     where, item);
		if (s->nr_params == PLE_MAX_PARAMS)
			return errbuf_printf(err, errlen, "%s: params: at most %d", where,
					     PLE_MAX_PARAMS);
		struct ple_setting *set = &s->params[s->nr_params++];
		str_copy(set->name, sizeof(set->name), item);
		str_copy(set->value, sizeof(set->value), eq + 1);
	}
	if (rc < 0)
		return errbuf_printf(err, errlen, "%s: params: empty item in '%s'", where, value);
	return 0;
}

static int set_value(const char *where, struct section *sec, enum suite_key key, const char *value,
		     char *err, size_t errlen)
{
	struct scenario *s = &sec->s;
	switch (key) {
	case KEY_OPTIONS:
		if (snprintf(sec->options, sizeof(sec->options), "%s", value) >=
		    (int)sizeof(sec->options))
			return errbuf_printf(err, errlen, "%s: options: too long", where);
		return 0;
	case KEY_GROUPS:
		if (squeeze_list(value, s->groups, sizeof(s->groups)))
			return errbuf_printf(err, errlen, "%s: groups: too long", where);
		return 0;
	case KEY_MIN_CPUS: {
		char *end;
		errno = 0;
		unsigned long n = strtoul(value, &end, 10);
		if (errno || end == value || *end || n > PLERIG_MAX_PCPUS)
			return errbuf_printf(err, errlen, "%s: min_cpus: '%s' is not a CPU count",
					     where, value);
		s->min_cpus = (unsigned)n;
		return 0;
	}
	case KEY_REQUIRES:
		return parse_names(where, key_names[key], value, requirement_by_name,
				   "ple, hw-virt, pv-yield, pv-unhalt, halt-poll", &s->requires,
				   err, errlen);
	case KEY_EXPECT:
		return parse_names(where, key_names[key], value, expectation_by_name,
				   "progress, no-stalls, stalls, ple-exits, no-ple-exits, "
				   "directed-yields, halts, ftrace-counts, halt-stats, "
				   "pv-fewer-ple-exits, module-params",
				   &s->expects, err, errlen);
	case KEY_METRICS:
		return parse_metrics(where, value, s, err, errlen);
	case KEY_PARAMS:
		return parse_params(where, value, s, err, errlen);
	case KEY_OTHER_REGIME: {
		char *end;
		errno = 0;
		double pct = strtod(value, &end);
		if (errno || end == value || *end || !(pct > 0.0 && pct <= 1000.0))
			return errbuf_printf(err, errlen,
					     "%s: other_regime: '%s' is not a percentage above 0, "
					     "at most 1000",
					     where, value);
		s->other_regime_pct = pct;
		return 0;
	}
	case KEY_COUNT:
		break;
	}
	return errbuf_printf(err, errlen, "%s: internal error: key %d", where, (int)key);
}

/* A key once per section: a second value silently winning hides a mistake. */
static int set_key(const char *where, unsigned line, struct section *sec, const char *key,
		   const char *value, char *err, size_t errlen)
{
	for (unsigned k = 0; k < KEY_COUNT; k++) {
		if (strcmp(key, key_names[k]))
			continue;
		if (sec->key_line[k])
			return errbuf_printf(err, errlen,
					     "%s: %s again in this section (first at line %u): "
					     "one value per key",
					     where, key, sec->key_line[k]);
		sec->key_line[k] = line;
		return set_value(where, sec, (enum suite_key)k, value, err, errlen);
	}
	return errbuf_printf(err, errlen,
			     "%s: unknown key '%s' (options, groups, min_cpus, requires, expect, "
			     "metrics, params, other_regime)",
			     where, key);
}

/* The scenario's options, the defaults' first, through `plerig run`'s parser. */
static int make_plan(const char *path, const struct section *defaults, struct section *sec,
		     char *err, size_t errlen)
{
	struct scenario *s = &sec->s;
	char *argv[MAX_ARGS + 2];
	int argc = 0;
	char why[ERRBUF_SIZE];

	if (snprintf(s->options, sizeof(s->options), "%s%s%s", defaults->options,
		     *defaults->options && *sec->options ? " " : "",
		     sec->options) >= (int)sizeof(s->options))
		return errbuf_printf(err, errlen, "%s:%u: [%s]: options: too long", path, s->line,
				     s->name);
	/* the plan's paths point into it: the scenario's own, through every copy of it */
	s->argbuf = strdup(s->options);
	if (!s->argbuf)
		return errbuf_printf(err, errlen, "out of memory");
	/* what is shown of them (check --list, each results' command_line): no credentials */
	uri_redact_in_place(s->options, sizeof(s->options));
	argv[argc++] = "run";
	for (char *save = NULL, *tok = strtok_r(s->argbuf, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (argc > MAX_ARGS)
			return errbuf_printf(err, errlen, "%s:%u: [%s]: more than %d options", path,
					     s->line, s->name, MAX_ARGS);
		argv[argc++] = tok;
	}
	argv[argc] = NULL;
	s->plan = calloc(1, sizeof(*s->plan));
	if (!s->plan)
		return errbuf_printf(err, errlen, "out of memory");
	switch (run_options_read(argc, argv, s->plan, why, sizeof(why))) {
	case RUN_OPTIONS_OK:
		break;
	case RUN_OPTIONS_HELP:
		return errbuf_printf(err, errlen,
				     "%s:%u: [%s]: --help is not an option of a scenario (`plerig "
				     "run --help` lists them)",
				     path, s->line, s->name);
	case RUN_OPTIONS_ERROR:
		return errbuf_printf(err, errlen, "%s:%u: [%s]: %s", path, s->line, s->name, why);
	}
	if (s->plan->json_path || s->plan->csv_path || s->plan->report_path)
		return errbuf_printf(
		    err, errlen,
		    "%s:%u: [%s]: %s belongs to `plerig check`, not to a scenario "
		    "(`plerig check --report FILE` draws every scenario's results)",
		    path, s->line, s->name,
		    s->plan->json_path	? "--json"
		    : s->plan->csv_path ? "--csv"
					: "--report");
	s->plan->quiet = true;
	return 0;
}

static void section_free(struct section *sec)
{
	free(sec->s.plan);
	free(sec->s.argbuf);
	sec->s.plan = NULL;
	sec->s.argbuf = NULL;
}

static int finish_section(const char *path, const struct section *defaults, struct section *sec,
			  struct suite *out, unsigned *cap, char *err, size_t errlen)
{
	for (unsigned i = 0; i < out->nr_scenarios; i++)
		if (!strcmp(out->scenarios[i].name, sec->s.name))
			return errbuf_printf(err, errlen, "%s:%u: [%s] again (first at line %u)",
					     path, sec->s.line, sec->s.name,
					     out->scenarios[i].line);
	if (sec->s.expects & (1u << EXPECT_MODULE_PARAMS) && !sec->s.nr_params)
		return errbuf_printf(
		    err, errlen,
		    "%s:%u: [%s]: expect = module-params holds a scenario's params "
		    "= to the modules: this one has none",
		    path, sec->s.line, sec->s.name);
	if (make_plan(path, defaults, sec, err, errlen)) {
		section_free(sec);
		return -1;
	}
	if (out->nr_scenarios == *cap) {
		unsigned c = *cap ? 2 * *cap : 16;
		struct scenario *grown = realloc(out->scenarios, c * sizeof(*out->scenarios));
		if (!grown) {
			section_free(sec);
			return errbuf_printf(err, errlen, "out of memory");
		}
		out->scenarios = grown;
		*cap = c;
	}
	out->scenarios[out->nr_scenarios++] = sec->s;
	return 0;
}

static bool valid_name(const char *name)
{
	if (!*name || strlen(name) >= SCENARIO_NAME_LEN)
		return false;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.-", *p))
			return false;
	return true;
}

/*
 * The [suite] section's one key: what holds for the whole suite rather
 * than a scenario. A second value is refused as in any section.
 */
static int set_suite_key(const char *where, unsigned line, unsigned *given, struct suite *out,
			 const char *key, const char *value, char *err, size_t errlen)
{
	if (strcmp(key, "host_runs_nothing_else"))
		return errbuf_printf(err, errlen,
				     "%s: unknown key '%s' in [suite] (host_runs_nothing_else)",
				     where, key);
	if (*given)
		return errbuf_printf(err, errlen,
				     "%s: %s again in this section (first at line %u): one value "
				     "per key",
				     where, key, *given);
	*given = line;
	if (!strcmp(value, "yes") || !strcmp(value, "no")) {
		out->host_runs_nothing_else = !strcmp(value, "yes");
		return 0;
	}
	return errbuf_printf(err, errlen, "%s: %s: '%s' is not yes or no", where, key, value);
}

/* A new section: the defaults' keys, then its own. */
static void open_section(struct section *sec, const struct section *defaults, const char *name,
			 unsigned line)
{
	*sec = *defaults;
	sec->options[0] = '\0';
	memset(sec->key_line, 0, sizeof(sec->key_line));
	snprintf(sec->s.name, sizeof(sec->s.name), "%s", name);
	sec->s.line = line;
}

static int parse_lines(const char *path, char *text, struct section *defaults, struct suite *out,
		       char *err, size_t errlen)
{
	struct section *cur = NULL, sec;
	unsigned line = 0, cap = 0, suite_key_line = 0;
	bool in_suite = false;
	char where[600];

	for (char *next = text; next;) {
		char *raw = next;
		next = strchr(raw, '\n');
		if (next)
			*next++ = '\0';
		line++;
		char *hash = strchr(raw, '#');
		if (hash)
			*hash = '\0';
		char *l = trim(raw);
		if (!*l)
			continue;
		snprintf(where, sizeof(where), "%s:%u", path, line);
		if (*l == '[') {
			char *close = strchr(l, ']');
			if (!close || close[1])
				return errbuf_printf(err, errlen, "%s: a section is [NAME]", where);
			*close = '\0';
			char *name = trim(l + 1);
			if (!valid_name(name))
				return errbuf_printf(err, errlen,
						     "%s: section name '%s': letters, digits, _ . "
						     "- (at most %d)",
						     where, name, SCENARIO_NAME_LEN - 1);
			if (cur == &sec &&
			    finish_section(path, defaults, &sec, out, &cap, err, errlen))
				return -1;
			if (out->nr_scenarios == SUITE_MAX_SCENARIOS)
				return errbuf_printf(err, errlen,
						     "%s: more than %u scenarios: split the suite",
						     where, SUITE_MAX_SCENARIOS);
			const bool was_suite = in_suite;
			in_suite = false;
			if (!strcmp(name, "suite")) {
				if (out->nr_scenarios || cur || was_suite)
					return errbuf_printf(
					    err, errlen, "%s: [suite] comes first, once", where);
				in_suite = true;
				continue;
			}
			if (!strcmp(name, "defaults")) {
				if (out->nr_scenarios || cur)
					return errbuf_printf(err, errlen,
							     "%s: [defaults] comes first", where);
				cur = defaults;
				continue;
			}
			open_section(&sec, defaults, name, line);
			cur = &sec;
			continue;
		}
		char *eq = strchr(l, '=');
		if (!eq)
			return errbuf_printf(err, errlen, "%s: expected KEY = VALUE or [NAME]",
					     where);
		*eq = '\0';
		if (in_suite) {
			if (set_suite_key(where, line, &suite_key_line, out, trim(l), trim(eq + 1),
					  err, errlen))
				return -1;
			continue;
		}
		if (!cur)
			return errbuf_printf(err, errlen, "%s: KEY = VALUE before any [section]",
					     where);
		if (set_key(where, line, cur, trim(l), trim(eq + 1), err, errlen))
			return -1;
	}
	if (cur == &sec && finish_section(path, defaults, &sec, out, &cap, err, errlen))
		return -1;
	if (!out->nr_scenarios)
		return errbuf_printf(err, errlen, "%s: no scenario (a [NAME] section)", path);
	return 0;
}

/* A NUL byte would end the text early, and every section after it would be lost unsaid. */
static int refuse_nul(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
	const char *nul = memchr(text, '\0', len);
	if (!nul)
		return 0;
	unsigned line = 1;
	for (const char *p = text; p < nul; p++)
		line += *p == '\n';
	return errbuf_printf(err, errlen, "%s:%u: a NUL byte: a suite file is text", path, line);
}

int suite_parse(const char *path, const char *text, size_t len, struct suite *out, char *err,
		size_t errlen)
{
	struct section defaults;

	memset(out, 0, sizeof(*out));
	memset(&defaults, 0, sizeof(defaults));
	snprintf(out->path, sizeof(out->path), "%s", path);
	if (refuse_nul(path, text, len, err, errlen))
		return -1;
	char *copy = malloc(len + 1);
	if (!copy)
		return errbuf_printf(err, errlen, "out of memory");
	memcpy(copy, text, len);
	copy[len] = '\0';
	int rc = parse_lines(path, copy, &defaults, out, err, errlen);
	free(copy);
	if (rc)
		suite_free(out);
	return rc;
}

int suite_load(const char *path, struct suite *out, char *err, size_t errlen)
{
	char why[ERRBUF_SIZE], *text;
	size_t len;

	memset(out, 0, sizeof(*out));
	/* a FIFO or a device is refused at once: it could block for ever, or never end */
	if (regular_file_read(AT_FDCWD, path, 0, SUITE_MAX_BYTES, &text, &len, why, sizeof(why)))
		return errbuf_printf(err, errlen, "cannot read suite '%s': %s", path, why);
	int rc = suite_parse(path, text, len, out, err, errlen);
	free(text);
	return rc;
}
