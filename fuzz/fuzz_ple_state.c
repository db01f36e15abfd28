// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the PLE state file (ple/state_file.c) that `plerig
 * sweep --restore` trusts with the original module parameters, on any
 * bytes; an accepted file must survive a format/parse round trip
 * unchanged, and hold only values plerig would pass to modprobe.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ple/state_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ple_state s, back;
	static char text[3 * PATH_MAX], err[512];
	char *copy = malloc(size + 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	copy[size] = '\0';
	if (ple_state_parse(copy, &s, err, sizeof(err)) == 0) {
		if (s.pid <= 0 || !s.root[0] || !s.module[0] || s.n > PLE_MAX_PARAMS)
			abort();
		for (unsigned i = 0; i < s.n; i++)
			if (!ple_value_valid(s.orig[i].value) || !s.orig[i].name[0])
				abort();
		if (ple_state_format(&s, text, sizeof(text)) ||
		    ple_state_parse(text, &back, err, sizeof(err)) || memcmp(&s, &back, sizeof(s)))
			abort();
	}
	free(copy);
	return 0;
}
