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

typedef int command_fn(int argc, char **argv, const char *guest_path);

command_fn cmd_run;
command_fn cmd_compare;
command_fn cmd_sweep;
command_fn cmd_doctor;
command_fn cmd_check;

/* "plerig run --x y": argv joined with spaces behind @prefix; malloc'ed, NULL out of memory. */
char *command_line_join(const char *prefix, int argc, char **argv);

#endif
