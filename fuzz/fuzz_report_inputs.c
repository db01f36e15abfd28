// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: what `plerig report` reads (compare/html_inputs.c:
 * `plerig sweep --json` curves and `plerig run --json` results), on any
 * bytes, then the charts of an accepted document drawn as report draws
 * them, so that the drawing code sees every value the reader lets through.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compare/html_inputs.h"
#include "output/html_writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	if (fd < 0) {
		fd = memfd_create("plerig-fuzz-report", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	struct html_input in;
	char err[1024];
	if (html_input_load(path, &in, err, sizeof(err)) == 0) {
		char *page = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&page, &len);
		if (!out)
			abort();
		const char *schema =
		    json_object_get_string(json_object_object_get(in.doc, "schema"));
		if (schema && !strcmp(schema, "plerig-sweep"))
			html_sweep_section(out, &in, 0);
		else
			html_results_section(out, &in, 0);
		fclose(out);
		free(page);
		json_object_put(in.doc);
	}
	return 0;
}
