/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A whole command on the emulated host (check, sweep --connect emulated):
 * L1 booted, the command run there by the plerig inside, its stdout and
 * files brought back where this command line names them, its exit status
 * passed on. Shared by commands/check_emulated.c, sweep.c and tune.c.
 */
#ifndef PLERIG_EMULATED_PROXY_H
#define PLERIG_EMULATED_PROXY_H

#include <stdbool.h>
#include <stdio.h>

#include "backends/emulated/emulated_host.h"
#include "model/connect_list.h"

/* A file the command writes in L1 (under out/) and where it goes here ("-": stdout). */
struct proxy_out {
	const char *path; /* NULL: not asked for */
	const char *file; /* its name under out/ */
	const char *what; /* "TAP", "JSON", ...: for messages */
	const char *opt;  /* proxy_command: the option that asks for it ("--json") */
	bool tell;	  /* say on stderr where it was written (one of several hosts') */
	bool json;	  /* JSON L1 wrote on one line: written here as plerig writes it */
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

/*
 * --connect emulated,emulated:amd: @c[i] on host i of @l in turn, each in
 * an L1 of its own (@o with that host's vendor), each host's table on
 * stdout under a line "host LABEL", each file asked for written once per
 * host (proxy_host_path). Refused (EXIT_USAGE, said on stderr) before any
 * host boots where several hosts would share stdout. One host's failure
 * (said naming the host) keeps the others' results; the worst status
 * (proxy_status_worst). One host: proxy_command, unchanged.
 */
int proxy_fleet(const char *cmd, const struct connect_list *l, const struct emulated_options *o,
		const struct proxy_command *c);

/*
 * The name a host's messages go under: @cmd alone ("plerig sweep"), or with
 * @nr hosts "plerig sweep: host emulated:amd".
 */
void proxy_who(const char *cmd, const char *label, unsigned nr, char *buf, size_t len);

/*
 * Host @label's file where @nr hosts write one each: @path alone, else the
 * label before the extension, ':' as '-' ("r.json": "r.emulated-amd.json");
 * "-" stays "-". NULL (@path too long) after one line on stderr.
 */
const char *proxy_host_path(const char *who, const char *path, const char *label, unsigned nr,
			    char *buf, size_t len);

/* @nr hosts and a file of @outs on stdout ("-"): refused on stderr, EXIT_USAGE; else 0. */
int proxy_outputs_apart(const char *who, unsigned nr, const struct proxy_out *outs,
			unsigned nr_outs);

/*
 * The worse of two hosts' exit statuses: a broken harness or bad usage (2,
 * 3, 128 + N...), then a failure (1), a kernel that cannot be tested
 * (125), nothing run (77), passed (0).
 */
int proxy_status_worst(int a, int b);

/*
 * Why host @label of the list (emulated, emulated:amd) has no parameter
 * @name: "ple_window is kvm_intel's, and emulated:amd runs kvm_amd (its
 * own: pause_filter_count, ...)" into @why; NULL where its KVM modules have
 * it (kvm's halt polling: every host), or where plerig cannot tell (an
 * unknown name, a vendor it cannot read: that host's L1 says why).
 */
const char *proxy_param_misfit(const char *label, const char *name, char *why, size_t len);

/* The file @name (under out/) of @x, or NULL. */
const struct emulated_file *proxy_find(const struct emulated_exec *x, const char *name);

#endif
