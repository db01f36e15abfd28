// SPDX-License-Identifier: GPL-2.0
#include "commands/emulated_proxy.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"
#include "model/check_result.h"
#include "util/atomic_file.h"
#include "util/errbuf.h"
#include "util/printable.h"

struct emulated_host *proxy_open(const char *who, const struct emulated_options *o, int *status)
{
	char err[ERRBUF_SIZE];
	enum emulated_failure why;
	struct emulated_host *h = emulated_host_open(o, &why, err, sizeof(err));
	if (!h) {
		printable_printf(stderr, "%s: %s\n", who, err);
		*status = why == EMULATED_KERNEL_UNUSABLE ? EXIT_CANNOT_TEST
			  : why == EMULATED_USAGE	  ? EXIT_USAGE
							  : CHECK_EXIT_SKIPPED;
		return NULL;
	}
	if (!o->quiet)
		printable_printf(stderr, "%s: %s\n", who, emulated_host_description(h));
	return h;
}

const struct emulated_file *proxy_find(const struct emulated_exec *x, const char *name)
{
	for (unsigned i = 0; i < x->nr_outs; i++)
		if (!strcmp(x->outs[i].name, name))
			return &x->outs[i];
	return NULL;
}

int proxy_exec(const char *who, struct emulated_host *h, const char *const *argv, unsigned argc,
	       const struct emulated_file *ins, unsigned nr_ins, const struct proxy_out *outs,
	       unsigned nr_outs, FILE *summary, struct emulated_exec *x)
{
	char err[ERRBUF_SIZE];
	if (emulated_host_exec(h, argv, argc, ins, nr_ins, stderr, x, err, sizeof(err))) {
		printable_printf(stderr, "%s: %s\n", who, err);
		return CHECK_EXIT_SKIPPED;
	}
	fwrite(x->stdout_text, 1, x->stdout_len, summary);
	fflush(summary);
	int status = x->status;
	for (unsigned i = 0; i < nr_outs; i++) {
		const struct emulated_file *f = outs[i].path ? proxy_find(x, outs[i].file) : NULL;
		/* none: the command in L1 said why */
		if (f && atomic_file_write(outs[i].path, outs[i].what, f->data, f->len, err,
					   sizeof(err))) {
			printable_printf(stderr, "%s: %s\n", who, err);
			if (!status)
				status = EXIT_FAILED;
		}
	}
	return status;
}

int proxy_command(const char *who, const struct emulated_options *o, const struct proxy_command *c)
{
	const char **args = calloc(c->nr_head + 2 * c->nr_outs + c->nr_tail + 1, sizeof(*args));
	char(*files)[L1_NAME_MAX] = calloc(c->nr_outs + 1, sizeof(*files));
	bool stdout_taken = false;
	unsigned n = 0;
	int status = EXIT_FAILED;
	if (!args || !files) {
		printable_printf(stderr, "%s: out of memory\n", who);
		goto out;
	}
	for (unsigned i = 0; i < c->nr_head; i++)
		args[n++] = c->head[i];
	for (unsigned i = 0; i < c->nr_outs; i++)
		if (c->outs[i].path) {
			snprintf(files[i], sizeof(files[i]), "out/%s", c->outs[i].file);
			args[n++] = c->outs[i].opt;
			args[n++] = files[i];
			stdout_taken |= !strcmp(c->outs[i].path, "-");
		}
	for (unsigned i = 0; i < c->nr_tail; i++)
		args[n++] = c->tail[i];
	struct emulated_host *h = proxy_open(who, o, &status);
	if (h) {
		struct emulated_exec x;
		status = proxy_exec(who, h, args, n, c->ins, c->nr_ins, c->outs, c->nr_outs,
				    stdout_taken ? stderr : stdout, &x);
		emulated_exec_free(&x);
		emulated_host_close(h);
	}
out:
	free(args);
	free(files);
	return status;
}
