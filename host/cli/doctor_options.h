/* SPDX-License-Identifier: GPL-2.0 */
/* `plerig doctor` command line: text or JSON, this host or the emulated one. */
#ifndef PLERIG_DOCTOR_OPTIONS_H
#define PLERIG_DOCTOR_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

struct doctor_options {
	bool json;	     /* --json */
	const char *connect; /* --connect emulated[:VENDOR]: doctor inside L1; NULL: here */
	const char *kernel_path, *modules_path, *cache_dir, *module_params; /* with --connect */
};

/* 1: --help printed; 0: go; -1: message in @err (exit 2). argv[0] is "doctor". */
int doctor_options_parse(int argc, char **argv, struct doctor_options *o, char *err, size_t errlen);

#endif
