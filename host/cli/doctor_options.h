/* SPDX-License-Identifier: GPL-2.0 */
/* `plerig doctor` command line: text or JSON, nothing else. */
#ifndef PLERIG_DOCTOR_OPTIONS_H
#define PLERIG_DOCTOR_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

struct doctor_options {
	bool json; /* --json */
};

/* 1: --help printed; 0: go; -1: message in @err (exit 2). argv[0] is "doctor". */
int doctor_options_parse(int argc, char **argv, struct doctor_options *o, char *err, size_t errlen);

#endif
