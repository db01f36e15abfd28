/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A command's options as one table. getopt's array, the --help text and
 * every range check all come from it, so an option is declared in one
 * place and the three cannot disagree.
 */
#ifndef PLERIG_OPTION_TABLE_H
#define PLERIG_OPTION_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/option_values.h"
#include "model/names.h"

enum opt_kind {
	OPT_END = 0,   /* ends the table */
	OPT_HEADING,   /* no option: @help heads a group in --help */
	OPT_UNSIGNED,  /* unsigned, min..max */
	OPT_U64,       /* uint64_t, min..max */
	OPT_REAL,      /* double in *real */
	OPT_PATH,      /* const char *, not empty */
	OPT_NAME,      /* one name of *names into an enum */
	OPT_NAME_LIST, /* names of *names into an enum array, their count at nr_off */
	OPT_FLAG,      /* bool set to true, no value */
	OPT_CUSTOM,    /* parse() */
	OPT_HELP,      /* no value: the caller prints --help */
};

struct opt_entry;
/* @target is the struct the table's offsets are into. */
typedef int opt_parse_fn(const struct opt_entry *e, const char *value, void *target, char *err,
			 size_t errlen);

struct opt_entry {
	enum opt_kind kind;
	const char *name; /* long name, no dashes */
	/*
	 * An older name of the option, still accepted (scripts use it), and
	 * named as such in --help; NULL when none.
	 */
	const char *alias;
	char letter; /* short option too, or 0 */
	const char *metavar;
	/* {range} is min..max (or the real range), {names} the names allowed */
	const char *help;
	const char *def; /* --help's default; NULL: read from the defaults, if a field */
	size_t off;	 /* of the field in the target */
	size_t nr_off;	 /* OPT_NAME_LIST: of the count */
	unsigned max_items;
	unsigned long long min, max;
	const struct real_range *real;
	const struct name_table *names;
	opt_parse_fn *parse;
};

/* Zero, or a compile error naming the field when its type is not @ctype. */
#define OPT_TYPE_IS(type, f, ctype)                                                                \
	(0 * sizeof(struct {                                                                       \
		 _Static_assert(__builtin_types_compatible_p(__typeof__(((type *)0)->f), ctype),   \
				#f " is not " #ctype);                                             \
		 char ok_;                                                                         \
	 }))
#define OPT_OFF(type, f, ctype) .off = offsetof(type, f) + OPT_TYPE_IS(type, f, ctype)

#define OPT_UNSIGNED_FIELD(type, f, lo, hi)                                                        \
	.kind = OPT_UNSIGNED, OPT_OFF(type, f, unsigned), .min = (lo), .max = (hi)
#define OPT_U64_FIELD(type, f, lo, hi)                                                             \
	.kind = OPT_U64, OPT_OFF(type, f, uint64_t), .min = (lo), .max = (hi)
#define OPT_REAL_FIELD(type, f, range) .kind = OPT_REAL, OPT_OFF(type, f, double), .real = (range)
#define OPT_PATH_FIELD(type, f)	       .kind = OPT_PATH, OPT_OFF(type, f, const char *)
#define OPT_FLAG_FIELD(type, f)	       .kind = OPT_FLAG, OPT_OFF(type, f, bool)
/* enums are unsigned int to GCC when no value is negative */
#define OPT_NAME_FIELD(type, f, table)                                                             \
	.kind = OPT_NAME, OPT_OFF(type, f, unsigned), .names = &(table)
#define OPT_NAME_LIST_FIELD(type, f, nr, table)                                                    \
	.kind = OPT_NAME_LIST, OPT_OFF(type, f[0], unsigned),                                      \
	.nr_off = offsetof(type, nr) + OPT_TYPE_IS(type, nr, unsigned), .names = &(table),         \
	.max_items = sizeof(((type *)0)->f) / sizeof(((type *)0)->f[0])

enum option_table_status {
	OPTION_TABLE_OK = 0,
	OPTION_TABLE_HELP = 1,	 /* the help option was given: the caller prints it */
	OPTION_TABLE_ERROR = -1, /* message in err */
};

/*
 * argv[0] is the command; options go into @target. Stops at the first
 * operand (never permuting argv) and puts its index, or argc, in *next.
 * Parsing twice works. @see_help ends the messages about the option names.
 */
enum option_table_status option_table_parse(const struct opt_entry *t, int argc, char **argv,
					    void *target, const char *see_help, int *next,
					    char *err, size_t errlen);

/*
 * The same for commands whose options may follow their operands (compare
 * A B --json F): argv is permuted so that the operands come last, from
 * *next on.
 */
enum option_table_status option_table_parse_anywhere(const struct opt_entry *t, int argc,
						     char **argv, void *target,
						     const char *see_help, int *next, char *err,
						     size_t errlen);

/*
 * Was the option called @name (or its alias) on the command line of the
 * last parse of @t? For options that mean nothing without another one:
 * refused with the reason, never silently ignored.
 */
bool option_table_given(const struct opt_entry *t, const char *name);

/*
 * What a command's parser returns for @status: 1 after printing @usage on
 * stdout (--help: exit 0), -1 (the message is in err: exit 2), 0 (go on).
 */
int option_table_outcome(enum option_table_status status, void (*usage)(FILE *out));

/* Every table's --help, before its OPT_END. */
#define OPT_HELP_ENTRY                                                                             \
	{                                                                                          \
		.name = "help", .letter = 'h', .kind = OPT_HELP, .help = "this text"               \
	}

/* The options as --help shows them; defaults not written in the table come from @defaults. */
void option_table_usage(const struct opt_entry *t, const void *defaults, FILE *out);

#endif
