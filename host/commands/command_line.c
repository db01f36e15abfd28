// SPDX-License-Identifier: GPL-2.0
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"
#include "util/errbuf.h"
#include "util/output_path.h"
#include "util/printable.h"
#include "util/text_file.h"
#include "util/uri_redact.h"

/*
 * Every argument by util/uri_redact.h's rule: a URI's credentials (--connect
 * URI, --connect=URI, each of a list) never reach results or reports.
 */
char *command_line_join(const char *prefix, int argc, char **argv)
{
	size_t len = strlen(prefix) + 1, n;
	char *s = malloc(len);
	if (!s)
		return NULL;
	memcpy(s, prefix, len);
	for (int i = 0; i < argc; i++) {
		char *arg = uri_redact_dup(argv[i]), *grown;
		if (!arg || !(grown = realloc(s, len + 1 + (n = strlen(arg))))) {
			free(arg);
			free(s);
			return NULL;
		}
		s = grown;
		s[len - 1] = ' ';
		memcpy(s + len, arg, n + 1);
		len += n + 1;
		free(arg);
	}
	return s;
}

int check_outputs(const char *who, const char *json_opt, const char *json_path, const char *csv_opt,
		  const char *csv_path)
{
	char err[ERRBUF_SIZE];

	if (json_path && csv_path && !strcmp(json_path, "-") && !strcmp(csv_path, "-")) {
		printable_printf(stderr, "%s: %s - and %s -: only one of them can have stdout\n",
				 who, json_opt, csv_opt);
		return EXIT_USAGE;
	}
	if ((json_path && output_path_check(json_opt, json_path, err, sizeof(err))) ||
	    (csv_path && output_path_check(csv_opt, csv_path, err, sizeof(err)))) {
		printable_printf(stderr, "%s: %s\n", who, err);
		return EXIT_USAGE;
	}
	return 0;
}

int check_guest(const char *who, const char *option_path, const char *path)
{
	const char *env = getenv("PLERIG_GUEST");
	char err[ERRBUF_SIZE];

	if (!option_path && !(env && !strcmp(env, path)))
		return 0;
	if (text_file_check_regular(path, err, sizeof(err))) {
		printable_printf(stderr, "%s: guest image %s: %s (pass --guest FILE)\n", who, path,
				 err);
		return EXIT_USAGE;
	}
	return 0;
}
