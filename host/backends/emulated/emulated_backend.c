// SPDX-License-Identifier: GPL-2.0
#define _XOPEN_SOURCE 700 /* nftw */
#include "backends/emulated/emulated_backend.h"

#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends/emulated/bochs.h"
#include "backends/emulated/l1_blob.h"
#include "backends/emulated/l1_medium.h"
#include "backends/emulated/l1_session.h"
#include "backends/run_result.h"
#include "model/connect_list.h"
#include "util/cache_dir.h"
#include "util/clock.h"
#include "util/data_path.h"
#include "util/errbuf.h"
#include "util/strfmt.h"

#define WHO "emulated host"

struct emulated_backend {
	struct backend base; /* first: the runner sees only this */
	struct l1_session l1;
	struct l1_medium medium;
	struct host_info host; /* L1's identity, as this host names it */
	char bochs_version[32];
	char run_dir[PATH_MAX];
	unsigned requests;
	bool failed; /* keep the run's directory: the messages point into it */
	char description[1024];
};

/* A limit of the console watch: PLERIG_L1_NAME seconds, else @def. */
static double limit(const char *name, double def)
{
	const char *v = getenv(name);
	char *end;
	double d = v && *v ? strtod(v, &end) : 0;
	return v && *v && !*end && d > 0 ? d : def;
}

static bool on_path(const char *prog)
{
	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	const char *path = getenv("PATH");
	char dir[PATH_MAX];
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		if (!pathf(dir, sizeof(dir), "%.*s/%s", (int)n, p, prog) && !access(dir, X_OK))
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

/* Bochs, its BIOS and its VGA BIOS: the packages, not a fake of the tests (PLERIG_BOCHS). */
static int check_bochs(const char *prog, char *err, size_t errlen)
{
	static const char *const need[] = {"/usr/share/bochs/BIOS-bochs-latest",
					   "/usr/share/vgabios/vgabios.bin"};
	bool ok = on_path(prog);
	for (size_t i = 0; ok && !getenv("PLERIG_BOCHS") && i < 2; i++)
		ok = access(need[i], R_OK) == 0;
	if (!ok)
		return errbuf_printf(err, errlen,
				     WHO
				     ": no Bochs here (%s, its BIOS and VGA BIOS): it needs the "
				     "packages bochs bochsbios vgabios bochs-term (scripts/setup "
				     "ple-test installs them, or apt-get install them)",
				     prog);
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(path) && errno != ENOENT ? -1 : 0;
}

static int em_run(struct backend *base, const struct variant *v, struct variant_result *r)
{
	struct emulated_backend *b = (struct emulated_backend *)base;
	char id[32], err[ERRBUF_SIZE], *line = NULL;
	struct l1_blob req = {0};
	struct l1_file f = {0};
	snprintf(id, sizeof(id), "run-%u", ++b->requests);
	char result[48], refused[48];
	snprintf(result, sizeof(result), "%s.result", id);
	snprintf(refused, sizeof(refused), "%s.error", id);
	if (l1_blob_variant(v, &req, err, sizeof(err)) ||
	    l1_request_format(id, "variant", (long long)time(NULL), req.data, req.len, &line, err,
			      sizeof(err)) ||
	    l1_session_send(&b->l1, line, err, sizeof(err)) ||
	    l1_session_wait(&b->l1, result, refused, &f, err, sizeof(err)))
		goto fail;
	free(line);
	l1_blob_free(&req);
	if (!strcmp(f.name, refused)) {
		errbuf_printf(err, sizeof(err), "L1's plerig refused the run: %.*s", (int)f.len,
			      (const char *)f.data);
		l1_file_free(&f);
		variant_result_init(r, v);
		return run_fail(r, WHO ": %s", err);
	}
	int rc = l1_blob_read_result(f.data, f.len, r, err, sizeof(err));
	l1_file_free(&f);
	if (rc) {
		b->failed = true;
		variant_result_init(r, v);
		return run_fail(r, WHO ": %s", err);
	}
	/* its place in this experiment (the host index) is this host's to say */
	r->variant = *v;
	return r->ok ? 0 : -1;
fail:
	free(line);
	l1_blob_free(&req);
	b->failed = true;
	variant_result_init(r, v);
	return run_fail(r, WHO ": %s", err);
}

static int em_remote_host(struct backend *base, struct host_info *h)
{
	const struct emulated_backend *b = (const struct emulated_backend *)base;
	*h = b->host;
	return 0;
}

static void em_close(struct backend *base)
{
	struct emulated_backend *b = (struct emulated_backend *)base;
	l1_session_end(&b->l1);
	/* a failure's messages point into the run's directory: it stays */
	if (b->run_dir[0] && !b->failed && !b->l1.gone[0])
		(void)nftw(b->run_dir, remove_one, 32, FTW_DEPTH | FTW_PHYS);
	free(b);
}

/* L1 as it sees itself (its hello), named as this host's outputs name it. */
static int identity(struct emulated_backend *b, const struct l1_file *hello, char *err,
		    size_t errlen)
{
	char e[ERRBUF_SIZE];
	if (l1_blob_read_host(hello->data, hello->len, &b->host, e, sizeof(e)))
		return errbuf_printf(err, errlen, WHO ": L1's identity: %s", e);
	struct host_info *h = &b->host;
	str_copy(h->name, sizeof(h->name), CONNECT_EMULATED);
	str_copy(h->connection, sizeof(h->connection), CONNECT_EMULATED);
	snprintf(h->hypervisor, sizeof(h->hypervisor),
		 "Bochs %s: an emulated %s, %u CPUs, VMX with PAUSE-loop exiting",
		 b->bochs_version[0] ? b->bochs_version : "(version unknown)", BOCHS_CPU_NAME,
		 BOCHS_CPUS);
	snprintf(h->clock, sizeof(h->clock),
		 "emulated seconds: Bochs' instruction clock, %llu instructions a second, "
		 "whatever this machine's speed",
		 BOCHS_IPS);
	snprintf(b->description, sizeof(b->description),
		 "emulated %s (Bochs %s), kernel %s, %s (%s), times in emulated seconds",
		 BOCHS_CPU_NAME, b->bochs_version, h->kernel, h->kvm_module,
		 h->ple_params[0] ? h->ple_params : "no PLE parameters");
	return 0;
}

static int start_l1(struct emulated_backend *b, const struct emulated_options *o, const char *cache,
		    const char *program, char *err, size_t errlen)
{
	char runs[PATH_MAX], preload[PATH_MAX], e[ERRBUF_SIZE];
	if (pathf(runs, sizeof(runs), "%s/runs", cache) || mkdir_p(runs, err, errlen) ||
	    pathf(b->run_dir, sizeof(b->run_dir), "%s/run-XXXXXX", runs))
		return errbuf_printf(err, errlen, WHO ": %s: cannot hold a run", cache);
	if (!mkdtemp(b->run_dir)) {
		int en = errno;
		b->run_dir[0] = '\0';
		return errbuf_printf(err, errlen, WHO ": creating a run directory in %s: %s", runs,
				     strerror(en));
	}
	data_path("images/l1", "fixed-time.so", preload, sizeof(preload));
	const struct bochs_config c = {.program = program,
				       .dir = b->run_dir,
				       .iso = b->medium.iso,
				       .preload = access(preload, R_OK) ? NULL : preload};
	const struct l1_limits lim = {.stall_cpu_s = limit("PLERIG_L1_STALL", 120),
				      .idle_s = limit("PLERIG_L1_IDLE", 300),
				      .wall_s = limit("PLERIG_L1_WALL", 1800)};
	FILE *progress = o->quiet ? NULL : stderr;
	if (progress)
		fprintf(progress,
			"emulated host: booting L1 (kernel %s) under Bochs %s, an emulated %s; "
			"its console: %s/serial.log\n",
			b->medium.kernel_release[0] ? b->medium.kernel_release : "?",
			b->bochs_version, BOCHS_CPU_NAME, b->run_dir);
	if (l1_session_start(&b->l1, &c, &lim, progress, e, sizeof(e)))
		return errbuf_printf(err, errlen, WHO ": starting Bochs: %s", e);
	struct l1_file hello;
	if (l1_session_wait(&b->l1, "hello", NULL, &hello, e, sizeof(e)))
		return errbuf_printf(err, errlen, WHO ": L1 did not come up: %s", e);
	int rc = identity(b, &hello, err, errlen);
	l1_file_free(&hello);
	return rc;
}

struct backend *emulated_backend_open(const struct emulated_options *o, char *err, size_t errlen)
{
	char cache[PATH_MAX], scripts[PATH_MAX], e[ERRBUF_SIZE];
	const char *program = getenv("PLERIG_BOCHS");
	if (!program || !*program)
		program = "bochs-bin";
	if (check_bochs(program, err, errlen))
		return NULL;
	if (o->cache_dir)
		str_copy(cache, sizeof(cache), o->cache_dir);
	else if (cache_dir_default(cache, sizeof(cache), e, sizeof(e))) {
		errbuf_printf(err, errlen, WHO ": %s", e);
		return NULL;
	}
	if (strlen(cache) + 10 >= sizeof(cache) || !strcat(cache, "/emulated") ||
	    mkdir_p(cache, e, sizeof(e))) {
		errbuf_printf(err, errlen, WHO ": %s", e);
		return NULL;
	}
	/* images/l1/: beside the binary in a build tree, else installed (PLERIG_L1_DIR: tests) */
	const char *dir = getenv("PLERIG_L1_DIR");
	if (dir && *dir) {
		str_copy(scripts, sizeof(scripts), dir);
	} else {
		data_path("images/l1", "build-medium", scripts, sizeof(scripts));
		str_copy(scripts, sizeof(scripts), dirname(scripts));
	}
	struct emulated_backend *b = calloc(1, sizeof(*b));
	if (!b) {
		errbuf_printf(err, errlen, WHO ": out of memory");
		return NULL;
	}
	bochs_version(program, b->bochs_version, sizeof(b->bochs_version));
	const struct l1_medium_inputs in = {.kernel = o->kernel,
					    .modules = o->modules,
					    .cache = cache,
					    .guest = o->guest_path,
					    .scripts = scripts,
					    .progress = o->quiet ? NULL : stderr};
	if (l1_medium_get(&in, &b->medium, e, sizeof(e))) {
		errbuf_printf(err, errlen, WHO ": %s", e);
		free(b);
		return NULL;
	}
	if (start_l1(b, o, cache, program, err, errlen)) {
		b->failed = true;
		em_close(&b->base);
		return NULL;
	}
	b->base.kind = BACKEND_KVM;
	b->base.run = em_run;
	b->base.close = em_close;
	/* L1 is a VMX host: ring 0 runs natively there, and Intel PLE counts only at CPL 0 */
	b->base.default_ring = PLERIG_RING_KERNEL;
	b->base.description = b->description;
	b->base.remote_host = em_remote_host;
	return &b->base;
}
