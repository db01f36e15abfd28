/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A whole command on the emulated host (check, sweep --connect emulated):
 * L1 booted, the command run there by the plerig inside, its stdout and
 * files brought back where this command line names them, its exit status
 * passed on. Shared by commands/check_emulated.c, sweep.c and tune.c.
 */
#ifndef PLERIG_EMULATED_PROXY_H
#define PLERIG_EMULATED_PROXY_H

#include <stdio.h>

#include "backends/emulated/emulated_host.h"

/* A file the command writes in L1 (under out/) and where it goes here ("-": stdout). */
struct proxy_out {
	const char *path; /* NULL: not asked for */
	const char *file; /* its name under out/ */
	const char *what; /* "TAP", "JSON", ...: for messages */
	const char *opt;  /* proxy_command: the option that asks for it ("--json") */
};

/*
 * Boot the emulated host; its identity on stderr unless @o->quiet. NULL
 * after one line "WHO: why" on stderr, *@status then 125 (the kernel cannot
 * be tested) or 77 (the emulated host could not start).
 */
struct emulated_host *proxy_open(const char *who, const struct emulated_options *o, int *status);

/*
 * Run `plerig ARGV...` there with @ins, its stderr relayed to stderr as it
 * comes, its stdout onto @summary, the @outs written. The command's exit
 * status; 1 where an output could not be written; 77 when L1 stopped
 * answering (said on stderr). @x keeps what came back (emulated_exec_free).
 */
int proxy_exec(const char *who, struct emulated_host *h, const char *const *argv, unsigned argc,
	       const struct emulated_file *ins, unsigned nr_ins, const struct proxy_out *outs,
	       unsigned nr_outs, FILE *summary, struct emulated_exec *x);

/*
 * A command whose files are all named on its command line (sweep, tune):
 * `plerig HEAD... [OPT out/FILE]... TAIL...`, each output asked for here
 * asked for there by its opt; the table onto stdout unless an output took
 * it. Boot, run, close: the exit status as proxy_open and proxy_exec give it.
 */
struct proxy_command {
	const char *const *head;
	unsigned nr_head;
	const struct emulated_file *ins;
	unsigned nr_ins;
	const struct proxy_out *outs;
	unsigned nr_outs;
	const char *const *tail; /* "--" and the run options */
	unsigned nr_tail;
};
int proxy_command(const char *who, const struct emulated_options *o, const struct proxy_command *c);

/* The file @name (under out/) of @x, or NULL. */
const struct emulated_file *proxy_find(const struct emulated_exec *x, const char *name);

#endif
