// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: `plerig run`'s command-line parser (cli/run_options.c).
 * The input is argv after "run", arguments separated by NUL bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/run_options.h"

#define MAX_ARGS 64

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	/* --help prints the usage to stdout each time */
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	char *argv[MAX_ARGS + 2];
	int argc = 0;
	if (!buf)
		abort();
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[argc++] = "run";
	for (size_t at = 0; at <= size && argc <= MAX_ARGS; at += strlen(buf + at) + 1)
		argv[argc++] = buf + at;
	argv[argc] = NULL;
	struct run_plan *plan = malloc(sizeof(*plan));
	char err[512];
	if (!plan)
		abort();
	enum run_options_status st = run_options_parse(argc, argv, plan, err, sizeof(err));
	if (st == RUN_OPTIONS_ERROR && !err[0])
		abort(); /* a refusal always says why */
	free(plan);
	free(buf);
	return 0;
}
