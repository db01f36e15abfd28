// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"

char *command_line_join(const char *prefix, int argc, char **argv)
{
	size_t len = strlen(prefix) + 1;
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *s = malloc(len);
	if (!s)
		return NULL;
	strcpy(s, prefix);
	for (int i = 0; i < argc; i++) {
		strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}
