/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The subcommands, one file each (like kvmtool's builtin-*.c), dispatched
 * from one table in main.c. Each takes its argv (argv[0] is its own
 * name) and the default guest image, and returns the process exit status.
 */
#ifndef PLERIG_COMMANDS_H
#define PLERIG_COMMANDS_H

/* Exit statuses every command shares; 128 + N after signal N. */
#define EXIT_OK	    0
#define EXIT_FAILED 1 /* a run failed, a regression, or the host cannot run VMs */
#define EXIT_USAGE  2 /* bad command line or input */
/* the kernel under test cannot be tested (--connect emulated): what git bisect run skips */
#define EXIT_CANNOT_TEST 125

typedef int command_fn(int argc, char **argv, const char *guest_path);

command_fn cmd_run;
command_fn cmd_compare;
command_fn cmd_sweep;
command_fn cmd_doctor;
command_fn cmd_check;
command_fn cmd_report;
command_fn cmd_tune;
command_fn cmd_l1_serve; /* inside L1 only: not in plerig --help */

/* "plerig run --x y": argv joined with spaces behind @prefix; malloc'ed, NULL out of memory. */
char *command_line_join(const char *prefix, int argc, char **argv);

/*
 * Before the first VM boots: can the results be written? @json_opt and
 * @csv_opt name the options ("--json"); a NULL path is not asked for.
 * 0, or EXIT_USAGE after one line "WHO: OPTION PATH: reason" on stderr.
 */
int check_outputs(const char *who, const char *json_opt, const char *json_path, const char *csv_opt,
		  const char *csv_path);

/*
 * The guest image @path, when the user named it (@option_path, from --guest,
 * or PLERIG_GUEST), is a regular file: a FIFO would block. 0, or EXIT_USAGE
 * after one line. The built-in default is left to the backend's message.
 */
int check_guest(const char *who, const char *option_path, const char *path);

struct run_plan;
/*
 * sweep and tune change this machine's KVM parameters. The run options
 * @argv (after --) into @plan: 0; -1 after --help (exit 0); EXIT_USAGE
 * after one line "WHO: run options: ..." (a bad option, --connect to
 * another host, which would not see the parameters: "NOUN sets this
 * machine's KVM parameters").
 */
int host_plan_parse(const char *who, const char *noun, int argc, char **argv,
		    struct run_plan *plan);
/* The checks of host_plan_parse on a plan made otherwise (a suite's scenario). */
int host_plan_check(const char *who, const char *noun, const struct run_plan *plan);
struct sweep_curve;
/* @curve's charts as the HTML page @path (one line on stderr when that fails): 0 or -1. */
int sweep_curve_report(const char *who, const char *path, const char *name,
		       const struct sweep_curve *curve);
/* `WHO --restore`: put back what a killed sweep or tune left changed. The exit status. */
int host_params_restore(const char *who);

#endif
