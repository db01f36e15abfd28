// SPDX-License-Identifier: GPL-2.0
#include "commands/emulated_proxy.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"
#include "model/check_result.h"
#include "output/json_util.h"
#include "ple/host_params.h"
#include "util/atomic_file.h"
#include "util/errbuf.h"
#include "util/interrupt.h"
#include "util/printable.h"
#include "util/strfmt.h"

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
		char *pretty = NULL;
		size_t len = f ? f->len : 0;
		if (f && outs[i].json &&
		    json_text_pretty(f->data, f->len, &pretty, &len, err, sizeof(err))) {
			printable_printf(stderr, "%s: the %s L1 wrote: %s\n", who, outs[i].what,
					 err);
			if (!status)
				status = EXIT_FAILED;
			continue;
		}
		/* none: the command in L1 said why */
		const int rc =
		    f && atomic_file_write(outs[i].path, outs[i].what, pretty ? pretty : f->data,
					   len, err, sizeof(err));
		free(pretty);
		if (rc) {
			printable_printf(stderr, "%s: %s\n", who, err);
			if (!status)
				status = EXIT_FAILED;
		} else if (f && outs[i].tell) {
			printable_printf(stderr, "%s: %s written to %s\n", who, outs[i].what,
					 outs[i].path);
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

void proxy_who(const char *cmd, const char *label, unsigned nr, char *buf, size_t len)
{
	if (nr > 1)
		snprintf(buf, len, "%s: host %s", cmd, label);
	else
		str_copy(buf, len, cmd);
}

const char *proxy_host_path(const char *who, const char *path, const char *label, unsigned nr,
			    char *buf, size_t len)
{
	if (!path || nr < 2 || !strcmp(path, "-"))
		return path;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	if (!dot || dot == base) /* no extension (a dot file's name is its name) */
		dot = base + strlen(base);
	char tag[CONNECT_URI_MAX];
	str_copy(tag, sizeof(tag), label);
	for (char *t = tag; *t; t++)
		if (*t == ':')
			*t = '-';
	if (pathf(buf, len, "%.*s.%s%s", (int)(dot - path), path, tag, dot)) {
		printable_printf(stderr, "%s: %s: path too long with the host's name\n", who, path);
		return NULL;
	}
	return buf;
}

int proxy_outputs_apart(const char *who, unsigned nr, const struct proxy_out *outs,
			unsigned nr_outs)
{
	for (unsigned i = 0; nr > 1 && i < nr_outs; i++)
		if (outs[i].path && !strcmp(outs[i].path, "-")) {
			printable_printf(stderr,
					 "%s: %s -: %u hosts write a %s each, and stdout takes "
					 "one: name a file (each host's beside it, the host's "
					 "name before its extension)\n",
					 who, outs[i].opt, nr, outs[i].what);
			return EXIT_USAGE;
		}
	return 0;
}

static int status_rank(int s)
{
	switch (s) {
	case EXIT_OK:
		return 0;
	case CHECK_EXIT_SKIPPED:
		return 1;
	case EXIT_CANNOT_TEST:
		return 2;
	case EXIT_FAILED:
		return 3;
	default:
		return 4;
	}
}

int proxy_status_worst(int a, int b)
{
	return status_rank(b) > status_rank(a) ? b : a;
}

int proxy_fleet(const char *cmd, const struct connect_list *l, const struct emulated_options *o,
		const struct proxy_command *c)
{
	char who[256];
	int status = EXIT_OK;
	if (l->nr == 1) {
		struct emulated_options eo = *o;
		eo.vendor = connect_emulated_vendor(l->uris[0]);
		return proxy_command(cmd, &eo, c);
	}
	if (proxy_outputs_apart(cmd, l->nr, c[0].outs, c[0].nr_outs))
		return EXIT_USAGE;
	for (unsigned i = 0; i < l->nr && !interrupt_requested(); i++) {
		struct proxy_out outs[8];
		char paths[8][PATH_MAX];
		struct proxy_command one = c[i];
		struct emulated_options eo = *o;
		int st = EXIT_OK;
		eo.vendor = connect_emulated_vendor(l->uris[i]);
		proxy_who(cmd, l->uris[i], l->nr, who, sizeof(who));
		one.nr_outs = one.nr_outs < 8 ? one.nr_outs : 8;
		for (unsigned k = 0; k < one.nr_outs; k++) {
			outs[k] = one.outs[k];
			outs[k].path = proxy_host_path(who, outs[k].path, l->uris[i], l->nr,
						       paths[k], sizeof(paths[k]));
			outs[k].tell = true;
			if (one.outs[k].path && !outs[k].path)
				st = EXIT_USAGE;
		}
		one.outs = outs;
		if (!st) {
			if (i)
				fputs("\n", stdout);
			printable_printf(stdout, "host %s\n", l->uris[i]);
			fflush(stdout);
			st = proxy_command(who, &eo, &one);
		}
		status = proxy_status_worst(status, st);
	}
	return status;
}

const char *proxy_param_misfit(const char *label, const char *name, char *why, size_t len)
{
	struct emulated_vendor v;
	char err[ERRBUF_SIZE];
	const char *owner = ple_param_owner(name);
	if (!owner || !strcmp(owner, "kvm") ||
	    emulated_host_vendor(connect_emulated_vendor(label), &v, err, sizeof(err)) ||
	    !strcmp(owner, v.module))
		return NULL;
	char own[256] = "";
	size_t used = 0;
	const char *const *p = ple_module_params(v.module);
	for (unsigned i = 0; p && p[i] && used < sizeof(own); i++)
		used +=
		    (size_t)snprintf(own + used, sizeof(own) - used, "%s%s", i ? ", " : "", p[i]);
	(void)errbuf_printf(why, len, "%s is %s's, and %s runs %s (its own: %s)", name, owner,
			    label, v.module, own[0] ? own : "none");
	return why;
}
