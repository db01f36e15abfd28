/* SPDX-License-Identifier: GPL-2.0 */
/* `plerig report` command line: the input files and the page to write. */
#ifndef PLERIG_REPORT_OPTIONS_H
#define PLERIG_REPORT_OPTIONS_H

#include <stddef.h>

#define REPORT_MAX_INPUTS 64

struct report_options {
	const char *output; /* -o FILE */
	const char *inputs[REPORT_MAX_INPUTS];
	unsigned nr_inputs;
};

/* 1: --help printed; 0: go; -1: message in @err (exit 2). argv[0] is "report". */
int report_options_parse(int argc, char **argv, struct report_options *o, char *err, size_t errlen);

#endif
