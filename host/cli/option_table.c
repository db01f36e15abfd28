// SPDX-License-Identifier: GPL-2.0
/* Command line -> struct through an option table: getopt, its errors, and each kind of value. */
#include "cli/option_table.h"

#include <getopt.h>
#include <stdbool.h>
#include <string.h>

#include "util/errbuf.h"

#define LONG_ONLY 256 /* above any char: getopt's value for entry i is LONG_ONLY + i */

static bool takes_value(const struct opt_entry *e)
{
	return e->kind != OPT_FLAG && e->kind != OPT_HELP;
}

static size_t count_entries(const struct opt_entry *t)
{
	size_t n = 0;

	while (t[n].kind != OPT_END)
		n++;
	return n;
}

/*
 * @lo has room for every entry, its alias and the terminator, @shorts for
 * "+:" and two characters per entry. '+': stop at the first operand
 * instead of permuting the caller's argv (unless @anywhere); ':': a
 * missing value is ':'.
 */
static void build_getopt(const struct opt_entry *t, size_t n, struct option *lo, char *shorts,
			 bool anywhere)
{
	size_t k = 0;
	char *s = shorts;

	if (!anywhere)
		*s++ = '+';
	*s++ = ':';
	for (size_t i = 0; i < n; i++) {
		if (t[i].kind == OPT_HEADING)
			continue;
		lo[k].name = t[i].name;
		lo[k].has_arg = takes_value(&t[i]) ? required_argument : no_argument;
		lo[k].flag = NULL;
		lo[k].val = t[i].letter ? t[i].letter : LONG_ONLY + (int)i;
		k++;
		if (t[i].alias) {
			lo[k] = lo[k - 1];
			lo[k].name = t[i].alias;
			k++;
		}
		if (t[i].letter) {
			*s++ = t[i].letter;
			if (takes_value(&t[i]))
				*s++ = ':';
		}
	}
	memset(&lo[k], 0, sizeof(lo[k]));
	*s = '\0';
}

static const struct opt_entry *entry_of(const struct opt_entry *t, size_t n, int c)
{
	if (c >= LONG_ONLY && (size_t)(c - LONG_ONLY) < n)
		return &t[c - LONG_ONLY];
	for (size_t i = 0; i < n; i++)
		if (t[i].letter && t[i].letter == c)
			return &t[i];
	return NULL;
}

/* Exact name or unique abbreviation, as getopt_long itself matches; *ambiguous when several. */
static const struct option *find_long(const struct option *lo, const char *name, size_t len,
				      bool *ambiguous)
{
	const struct option *found = NULL;

	*ambiguous = false;
	for (; lo->name; lo++) {
		if (strncmp(lo->name, name, len) != 0)
			continue;
		if (strlen(lo->name) == len)
			return lo;
		if (found) {
			*ambiguous = true;
			return NULL;
		}
		found = lo;
	}
	return found;
}

/*
 * getopt's own messages are off (opterr = 0) so that errors come back in
 * @err like all others; rebuild them here. @arg is the argv element getopt
 * consumed last: the long option itself, or the cluster a short one is in
 * (or even the element before it), so a short option is named by optopt.
 */
static int getopt_error(const struct option *longs, int c, const char *arg, const char *see_help,
			char *err, size_t errlen)
{
	bool is_long = strncmp(arg, "--", 2) == 0, ambiguous = false;
	size_t len = is_long ? strcspn(arg, "=") : 0;
	const struct option *lo = is_long ? find_long(longs, arg + 2, len - 2, &ambiguous) : NULL;

	if (c == '?' && optopt > 0 && optopt < LONG_ONLY && !(lo && lo->val == optopt))
		return errbuf_printf(err, errlen, "unknown option '-%c' (%s)", optopt, see_help);
	if (c == ':')
		return errbuf_printf(err, errlen, "%.*s needs a value (%s)", (int)len, arg,
				     see_help);
	if (lo && lo->has_arg == no_argument && arg[len] == '=')
		return errbuf_printf(err, errlen, "%.*s does not take a value (%s)", (int)len, arg,
				     see_help);
	return errbuf_printf(err, errlen, "%s option '%s' (%s)",
			     ambiguous ? "ambiguous" : "unknown", arg, see_help);
}

static int apply(const struct opt_entry *e, const char *value, void *target, char *err,
		 size_t errlen)
{
	char opt[64];
	char *field = (char *)target + e->off;

	snprintf(opt, sizeof(opt), "--%s", e->name);
	switch (e->kind) {
	case OPT_UNSIGNED:
		return opt_parse_unsigned(opt, value, (unsigned)e->min, (unsigned)e->max,
					  (unsigned *)field, err, errlen);
	case OPT_U64: {
		unsigned long long v;
		if (opt_parse_u64(opt, value, e->min, e->max, &v, err, errlen))
			return -1;
		*(uint64_t *)field = v;
		return 0;
	}
	case OPT_REAL:
		return opt_parse_real(opt, value, e->real, (double *)field, err, errlen);
	case OPT_PATH:
		return opt_parse_path(opt, value, (const char **)field, err, errlen);
	case OPT_NAME:
		return opt_parse_name(opt, e->names, value, (unsigned *)field, err, errlen);
	case OPT_NAME_LIST:
		return opt_parse_name_list(opt, e->names, value, (unsigned *)field, e->max_items,
					   (unsigned *)((char *)target + e->nr_off), err, errlen);
	case OPT_FLAG:
		*(bool *)field = true;
		return 0;
	case OPT_CUSTOM:
		return e->parse(e, value, target, err, errlen);
	case OPT_END:
	case OPT_HEADING:
	case OPT_HELP:
		break;
	}
	return errbuf_printf(err, errlen, "internal error: %s not handled", opt);
}

/* The options the last parse of a table saw (option_table_given). */
#define MAX_ENTRIES 128
static const struct opt_entry *given_table;
static bool given[MAX_ENTRIES];

bool option_table_given(const struct opt_entry *t, const char *name)
{
	if (t != given_table)
		return false;
	for (size_t i = 0; t[i].kind != OPT_END && i < MAX_ENTRIES; i++)
		if (t[i].name && !strcmp(t[i].name, name))
			return given[i];
	return false;
}

static enum option_table_status parse(const struct opt_entry *t, int argc, char **argv,
				      void *target, const char *see_help, int *next, char *err,
				      size_t errlen, bool anywhere)
{
	const size_t n = count_entries(t);
	struct option longs[2 * n + 1];
	char shorts[2 * n + 3];
	int c;

	build_getopt(t, n, longs, shorts, anywhere);
	given_table = t;
	memset(given, 0, sizeof(given));
	if (errlen)
		err[0] = '\0';
	/* 0, not 1: glibc then reinitialises fully, so parsing twice works */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		if (c == '?' || c == ':') {
			getopt_error(longs, c, argv[optind - 1], see_help, err, errlen);
			return OPTION_TABLE_ERROR;
		}
		const struct opt_entry *e = entry_of(t, n, c);
		if (!e) {
			errbuf_printf(err, errlen, "internal error: option %d not in the table", c);
			return OPTION_TABLE_ERROR;
		}
		if (e->kind == OPT_HELP)
			return OPTION_TABLE_HELP;
		if ((size_t)(e - t) < MAX_ENTRIES)
			given[e - t] = true;
		if (apply(e, optarg, target, err, errlen))
			return OPTION_TABLE_ERROR;
	}
	*next = optind;
	return OPTION_TABLE_OK;
}

enum option_table_status option_table_parse(const struct opt_entry *t, int argc, char **argv,
					    void *target, const char *see_help, int *next,
					    char *err, size_t errlen)
{
	return parse(t, argc, argv, target, see_help, next, err, errlen, false);
}

enum option_table_status option_table_parse_anywhere(const struct opt_entry *t, int argc,
						     char **argv, void *target,
						     const char *see_help, int *next, char *err,
						     size_t errlen)
{
	return parse(t, argc, argv, target, see_help, next, err, errlen, true);
}

int option_table_outcome(enum option_table_status status, void (*usage)(FILE *out))
{
	switch (status) {
	case OPTION_TABLE_HELP:
		usage(stdout);
		return 1;
	case OPTION_TABLE_ERROR:
		return -1;
	case OPTION_TABLE_OK:
		break;
	}
	return 0;
}
