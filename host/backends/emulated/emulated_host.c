// SPDX-License-Identifier: GPL-2.0
#include "backends/emulated/emulated_host.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dirent.h>

#include "backends/emulated/bochs.h"
#include "backends/emulated/emulated_vendor.h"
#include "backends/emulated/l1_blob.h"
#include "backends/emulated/l1_medium.h"
#include "backends/emulated/l1_session.h"
#include "backends/emulated/l1_state.h"
#include "backends/run_result.h"
#include "model/connect_list.h"
#include "util/cache_dir.h"
#include "util/clock.h"
#include "util/data_path.h"
#include "util/errbuf.h"
#include "util/printable.h"
#include "util/remove_tree.h"
#include "util/strfmt.h"

#define WHO "emulated host"

struct emulated_host {
	struct l1_session l1;
	struct l1_medium medium;
	struct host_info host; /* L1's identity, as this host names it */
	struct emulated_vendor vendor;
	char name[32]; /* emulated, emulated:amd: as --connect named it */
	char who[48];  /* its messages begin so: "emulated host", "emulated host (amd)" */
	char bochs_version[32];
	char bios[PATH_MAX]; /* "": Debian's */
	char run_dir[PATH_MAX];
	unsigned requests;
	bool failed; /* keep the run's directory: the messages point into it */
	char description[2048];
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
static int check_bochs(const char *who, const char *prog, const char *bios, char *err,
		       size_t errlen)
{
	const char *const need[] = {bios[0] ? bios : "/usr/share/bochs/BIOS-bochs-latest",
				    "/usr/share/vgabios/vgabios.bin"};
	bool ok = on_path(prog);
	for (size_t i = 0; ok && !getenv("PLERIG_BOCHS") && i < 2; i++)
		ok = access(need[i], R_OK) == 0;
	if (!ok)
		return errbuf_printf(err, errlen,
				     "%s: no Bochs here (%s, its BIOS and VGA BIOS): it needs the "
				     "packages bochs bochsbios vgabios bochs-term (scripts/setup "
				     "ple-test installs them, or apt-get install them)",
				     who, prog);
	return 0;
}

/*
 * A vendor whose Bochs is not Debian's (vendors.cfg: bochs = VERSION): the
 * newest CACHE/bochs-V/bin/bochs, V at least VERSION, that scripts/setup
 * ple-test-VENDOR CACHE put there (its BIOS in CACHE/bochs-V/share/).
 */
static int cached_bochs(const struct emulated_vendor *v, const char *cache, char *prog, size_t len,
			char *bios, size_t bios_len, char *err, size_t errlen)
{
	char best[NAME_MAX + 1] = "", path[PATH_MAX];
	DIR *d = opendir(cache);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (strncmp(e->d_name, "bochs-", 6) ||
		    !emulated_vendor_version_ok(e->d_name + 6, v->bochs) ||
		    pathf(path, sizeof(path), "%s/%s/bin/bochs", cache, e->d_name) ||
		    access(path, X_OK))
			continue;
		/* the newer of two: 3.10 after 3.9 */
		if (!best[0] || (emulated_vendor_version_ok(e->d_name + 6, best + 6) &&
				 strcmp(e->d_name, best)))
			str_copy(best, sizeof(best), e->d_name);
	}
	if (d)
		closedir(d);
	if (!best[0])
		return errbuf_printf(
		    err, errlen,
		    WHO " (%s): it needs Bochs %s or later (%s; Debian 12's 2.7 "
			"lacks what it needs) and %s has none: scripts/setup "
			"ple-test-%s %s puts one there (or name one with PLERIG_BOCHS)",
		    v->name, v->bochs, v->virt, cache, v->name, cache);
	if (pathf(prog, len, "%s/%s/bin/bochs", cache, best) ||
	    pathf(bios, bios_len, "%s/%s/share/BIOS-bochs-latest", cache, best))
		return errbuf_printf(err, errlen, WHO ": %s: path too long", cache);
	return 0;
}

/* One request to L1 and the file that answers it (ID.result, ID.exec) or refuses it (ID.error). */
static int request(struct emulated_host *h, const char *kind, const struct l1_blob *blob,
		   const char *answer, const struct l1_hooks *hooks, char *id, size_t idlen,
		   struct l1_file *f, char *err, size_t errlen)
{
	char *line = NULL, want[L1_NAME_MAX], refused[L1_NAME_MAX];
	snprintf(id, idlen, "%s-%u", kind, ++h->requests);
	(void)l1_answer_name(want, sizeof(want), id, answer);
	(void)l1_answer_name(refused, sizeof(refused), id, "error");
	int rc = l1_request_format(id, kind, (long long)time(NULL), blob->data, blob->len, &line,
				   err, errlen) ||
		 l1_session_send(&h->l1, line, err, errlen) ||
		 l1_session_wait(&h->l1, want, refused, hooks, f, err, errlen);
	free(line);
	if (rc) {
		h->failed = true;
		return -1;
	}
	if (!strcmp(f->name, refused)) {
		errbuf_printf(err, errlen, "L1's plerig refused it: %.*s", (int)f->len,
			      (const char *)f->data);
		l1_file_free(f);
		return -1;
	}
	return 0;
}

int emulated_host_run(struct emulated_host *h, const struct variant *v, struct variant_result *r)
{
	char id[32], err[ERRBUF_SIZE];
	struct l1_blob req = {0};
	struct l1_file f = {0};
	if (l1_blob_variant(v, &req, err, sizeof(err)) ||
	    request(h, "run", &req, "result", NULL, id, sizeof(id), &f, err, sizeof(err))) {
		l1_blob_free(&req);
		variant_result_init(r, v);
		return run_fail(r, "%s: %s", h->who, err);
	}
	l1_blob_free(&req);
	int rc = l1_blob_read_result(f.data, f.len, r, err, sizeof(err));
	l1_file_free(&f);
	if (rc) {
		h->failed = true;
		variant_result_init(r, v);
		return run_fail(r, "%s: %s", h->who, err);
	}
	/* its place in this experiment (the host index) is this host's to say */
	r->variant = *v;
	return r->ok ? 0 : -1;
}

/* While a command runs in L1: its stderr lines to the relay, its files collected. */
struct exec_ctx {
	const char *id;
	FILE *relay;
	struct emulated_exec *res;
	bool failed; /* out of memory */
};

static void exec_line(void *arg, const char *line)
{
	struct exec_ctx *c = arg;
	/* a line the command wrote on its stderr */
	const char *text = c->relay ? l1_err_text(line, c->id) : NULL;
	if (text) {
		printable_printf(c->relay, "%s\n", text);
		fflush(c->relay);
	}
}

static void exec_file(void *arg, struct l1_file *f)
{
	struct exec_ctx *c = arg;
	struct emulated_exec *res = c->res;
	const char *rel = NULL;
	enum l1_output what = l1_output_of(f->name, c->id, &rel);
	if (what == L1_OUTPUT_STDOUT) {
		free(res->stdout_text);
		res->stdout_text = realloc(f->data, f->len + 1);
		if (!res->stdout_text) {
			free(f->data);
			c->failed = true;
			return;
		}
		res->stdout_text[f->len] = '\0';
		res->stdout_len = f->len;
		return;
	}
	if (what == L1_OUTPUT_FILE) {
		struct emulated_file *o =
		    realloc(res->outs, (res->nr_outs + 1) * sizeof(*res->outs));
		if (!o) {
			free(f->data);
			c->failed = true;
			return;
		}
		res->outs = o;
		str_copy(o[res->nr_outs].name, sizeof(o->name), rel);
		o[res->nr_outs].data = f->data;
		o[res->nr_outs++].len = f->len;
		return;
	}
	l1_file_free(f);
}

int emulated_host_exec(struct emulated_host *h, const char *const *argv, unsigned argc,
		       const struct emulated_file *ins, unsigned nr_ins, FILE *relay,
		       struct emulated_exec *res, char *err, size_t errlen)
{
	char id[32], e[ERRBUF_SIZE];
	struct l1_blob req = {0};
	struct l1_file f = {0};
	struct l1_file *files = calloc(nr_ins ? nr_ins : 1, sizeof(*files));
	memset(res, 0, sizeof(*res));
	if (!files)
		return errbuf_printf(err, errlen, "%s: out of memory", h->who);
	for (unsigned i = 0; i < nr_ins; i++) {
		str_copy(files[i].name, sizeof(files[i].name), ins[i].name);
		files[i].data = (uint8_t *)(uintptr_t)ins[i].data;
		files[i].len = ins[i].len;
	}
	int rc = l1_blob_exec(argv, argc, files, nr_ins, &req, e, sizeof(e));
	free(files);
	if (rc)
		return errbuf_printf(err, errlen, "%s: %s", h->who, e);
	/* the id is known once the request is made: the hooks match it from the first line */
	struct exec_ctx c = {.id = id, .relay = relay, .res = res};
	snprintf(id, sizeof(id), "exec-%u", h->requests + 1);
	const struct l1_hooks hooks = {.file = exec_file, .line = exec_line, .ctx = &c};
	/*
	 * a whole check or sweep: as long as L1's console goes on (the stall and
	 * idle limits end a hang); the default suite took over 1800 s at load 25
	 */
	const double wall = h->l1.limits.wall_s;
	h->l1.limits.wall_s = limit("PLERIG_L1_WALL", 0);
	rc = request(h, "exec", &req, "exec", &hooks, id, sizeof(id), &f, e, sizeof(e));
	h->l1.limits.wall_s = wall;
	l1_blob_free(&req);
	if (rc) {
		emulated_exec_free(res);
		return errbuf_printf(err, errlen, "%s: %s", h->who, e);
	}
	rc = sscanf((const char *)f.data, "%d", &res->status) == 1 ? 0 : -1;
	l1_file_free(&f);
	if (rc || c.failed) {
		emulated_exec_free(res);
		return errbuf_printf(err, errlen, "%s: %s", h->who,
				     c.failed ? "out of memory for the command's files"
					      : "no exit status from L1's plerig");
	}
	if (!res->stdout_text && !(res->stdout_text = calloc(1, 1))) {
		emulated_exec_free(res);
		return errbuf_printf(err, errlen, "%s: out of memory", h->who);
	}
	return 0;
}

void emulated_exec_free(struct emulated_exec *res)
{
	for (unsigned i = 0; i < res->nr_outs; i++)
		free((void *)res->outs[i].data);
	free(res->outs);
	free(res->stdout_text);
	memset(res, 0, sizeof(*res));
}

int emulated_host_hold(struct emulated_host *h, bool hold, char *err, size_t errlen)
{
	char e[ERRBUF_SIZE];
	if (l1_session_hold(&h->l1, hold, e, sizeof(e)))
		return errbuf_printf(err, errlen, "%s: %s", h->who, e);
	return 0;
}

const struct host_info *emulated_host_info(const struct emulated_host *h)
{
	return &h->host;
}

const char *emulated_host_description(const struct emulated_host *h)
{
	return h->description;
}

void emulated_host_close(struct emulated_host *h)
{
	if (!h)
		return;
	l1_session_end(&h->l1);
	/* a failure's messages point into the run's directory: it stays */
	if (h->run_dir[0] && !h->failed && !h->l1.gone[0])
		remove_tree(h->run_dir);
	free(h);
}

/* L1 as it sees itself (its hello), named as this host's outputs name it. */
static int identity(struct emulated_host *h, const struct l1_file *hello, char *err, size_t errlen)
{
	char e[ERRBUF_SIZE];
	if (l1_blob_read_host(hello->data, hello->len, &h->host, e, sizeof(e)))
		return errbuf_printf(err, errlen, "%s: L1's identity: %s", h->who, e);
	struct host_info *i = &h->host;
	str_copy(i->name, sizeof(i->name), h->name);
	str_copy(i->connection, sizeof(i->connection), h->name);
	/* a longer name is cut, never refused: it only describes */
	(void)!pathf(i->hypervisor, sizeof(i->hypervisor), "Bochs %s: an emulated %s, %u CPUs, %s",
		     h->bochs_version[0] ? h->bochs_version : "(version unknown)",
		     h->vendor.cpu_name, BOCHS_CPUS, h->vendor.virt);
	snprintf(i->clock, sizeof(i->clock),
		 "emulated seconds: Bochs' instruction clock, %llu instructions a second, "
		 "whatever this machine's speed",
		 BOCHS_IPS);
	snprintf(h->description, sizeof(h->description),
		 "emulated %s (Bochs %s), kernel %s, %s (%s%s%s), times in emulated seconds",
		 h->vendor.cpu_name, h->bochs_version, i->kernel, i->kvm_module,
		 i->ple_params[0] ? i->ple_params : "no PLE parameters",
		 i->module_params[0] ? "; given " : "", i->module_params);
	return 0;
}

/* The run's own directory: bochsrc, consoles, logs; kept when something failed. */
static int make_run_dir(struct emulated_host *h, const char *cache, char *err, size_t errlen)
{
	char runs[PATH_MAX];
	if (pathf(runs, sizeof(runs), "%s/runs", cache) || mkdir_p(runs, err, errlen) ||
	    pathf(h->run_dir, sizeof(h->run_dir), "%s/run-XXXXXX", runs))
		return errbuf_printf(err, errlen, "%s: %s: cannot hold a run", h->who, cache);
	if (!mkdtemp(h->run_dir)) {
		int en = errno;
		h->run_dir[0] = '\0';
		return errbuf_printf(err, errlen, "%s: creating a run directory in %s: %s", h->who,
				     runs, strerror(en));
	}
	return 0;
}

/* fixed-time.so and save-state.so, for LD_PRELOAD (those the build or install has). */
static void preloads(char *out, size_t len)
{
	static const char *const names[] = {"fixed-time.so", "save-state.so"};
	char path[PATH_MAX];
	out[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		data_path("images/l1", names[i], path, sizeof(path));
		if (!access(path, R_OK) && strlen(out) + strlen(path) + 2 < len) {
			if (out[0])
				strcat(out, " ");
			strcat(out, path);
		}
	}
}

/* Start Bochs (booting, or restoring @restore) and wait for L1's identity (file @hello). */
static int boot(struct emulated_host *h, const struct bochs_config *c, const char *hello_name,
		bool ping, FILE *progress, char *err, size_t errlen)
{
	const struct l1_limits lim = {.stall_cpu_s = limit("PLERIG_L1_STALL", 120),
				      .idle_s = limit("PLERIG_L1_IDLE", 300),
				      .wall_s = limit("PLERIG_L1_WALL", 1800)};
	char e[ERRBUF_SIZE], id[32];
	struct l1_file hello;
	if (l1_session_start(&h->l1, c, &lim, progress, h->who, e, sizeof(e)))
		return errbuf_printf(err, errlen, "starting Bochs: %s", e);
	/*
	 * a restored L1 waits on COM2 already: it says who it is when asked,
	 * at once (one that heartbeats but never answers is no use)
	 */
	h->l1.answer_cpu_s = ping ? limit("PLERIG_L1_ANSWER", 60) : 0;
	int rc = ping ? request(h, "hello", &(struct l1_blob){(uint8_t *)"", 0}, "hello", NULL, id,
				sizeof(id), &hello, e, sizeof(e))
		      : l1_session_wait(&h->l1, hello_name, NULL, NULL, &hello, e, sizeof(e));
	h->l1.answer_cpu_s = 0;
	if (rc)
		return errbuf_printf(err, errlen, "%s", e);
	rc = identity(h, &hello, err, errlen);
	l1_file_free(&hello);
	return rc;
}

/*
 * Warm: the state saved for this medium, restored. 0; 1 when there is none
 * or it did not come up (said, removed: the caller boots cold); -1 with @err.
 */
static int start_warm(struct emulated_host *h, const struct bochs_config *proto, const char *key,
		      const char *cache, FILE *progress, char *err, size_t errlen)
{
	char dir[PATH_MAX], staged[PATH_MAX], e[ERRBUF_SIZE] = "";
	if (!l1_state_find(cache, key, dir, sizeof(dir)))
		return 1;
	if (l1_state_stage(dir, h->run_dir, staged, sizeof(staged), e, sizeof(e)))
		return errbuf_printf(err, errlen, "%s: the saved state %s: %s", h->who, dir, e);
	if (progress)
		printable_printf(progress,
				 "%s: restoring L1 (kernel %s) from its saved state %.16s under "
				 "Bochs %s; its console: %s/serial.log\n",
				 h->who,
				 h->medium.kernel_release[0] ? h->medium.kernel_release : "?", key,
				 h->bochs_version, h->run_dir);
	struct bochs_config c = *proto;
	c.restore = staged;
	const uint64_t t0 = monotonic_ns();
	if (!boot(h, &c, NULL, true, progress, e, sizeof(e)) &&
	    !strcmp(h->host.kernel, h->medium.kernel_release)) {
		if (progress)
			printable_printf(progress, "%s: L1 restored in %.1f s\n", h->who,
					 (double)(monotonic_ns() - t0) / 1e9);
		h->l1.ready = true; /* no "@@ple ready" again: it was before the save */
		return 0;
	}
	/* the state of another kernel (or one Bochs cannot restore): never used again */
	if (!e[0])
		errbuf_printf(e, sizeof(e), "it runs kernel %s, the medium holds %s",
			      h->host.kernel, h->medium.kernel_release);
	l1_session_end(&h->l1);
	/* what the restored Bochs and L1 said stays beside the cold boot's: the run is kept */
	char from[PATH_MAX], to[PATH_MAX];
	for (unsigned i = 0; i < 2; i++) {
		const char *name = i ? "bochs.log" : "serial.log";
		if (!pathf(from, sizeof(from), "%s/%s", h->run_dir, name) &&
		    !pathf(to, sizeof(to), "%s/restore.%s", h->run_dir, name))
			(void)rename(from, to);
	}
	h->failed = true;
	printable_printf(stderr,
			 "%s: the saved state %s is unusable (%s): removed, booting L1 "
			 "(the restore's console and log: %s/restore.*)\n",
			 h->who, dir, e, h->run_dir);
	memset(&h->l1, 0, sizeof(h->l1));
	h->requests = 0;
	l1_state_remove(dir);
	return 1;
}

/* Cold: boot the medium, then have Bochs save the booted L1 for the next run. */
static int start_cold(struct emulated_host *h, const struct bochs_config *proto, const char *key,
		      const char *cache, FILE *progress, char *err, size_t errlen)
{
	char save[PATH_MAX], e[ERRBUF_SIZE] = "";
	struct bochs_config c = *proto;
	/* without save-state.so, SIGUSR2 would end Bochs */
	const bool saving = c.preload && strstr(c.preload, "save-state.so") &&
			    !l1_state_begin(cache, save, sizeof(save), e, sizeof(e));
	if (saving)
		c.save = save;
	if (progress)
		printable_printf(progress,
				 "%s: booting L1 (kernel %s) under Bochs %s, an emulated %s; "
				 "its console: %s/serial.log\n",
				 h->who,
				 h->medium.kernel_release[0] ? h->medium.kernel_release : "?",
				 h->bochs_version, h->vendor.cpu_name, h->run_dir);
	if (boot(h, &c, "hello", false, progress, e, sizeof(e))) {
		if (saving)
			l1_state_remove(save);
		return errbuf_printf(err, errlen, "%s: L1 did not come up: %s", h->who, e);
	}
	if (!saving)
		return 0;
	/*
	 * What L1's plerig does once, done before the save and not again after
	 * every restore: its kvm backend opened (0.03 emulated s), the PLE
	 * tracepoints registered (0.02 s) and a first VM created (1.1 emulated s
	 * in a cold boot's first run, where the next took 0.02; Linux 6.1 under
	 * Bochs 2.7).
	 */
	char id[32];
	struct l1_file warm;
	if (!request(h, "warm", &(struct l1_blob){(uint8_t *)"", 0}, "warm", NULL, id, sizeof(id),
		     &warm, e, sizeof(e)))
		l1_file_free(&warm);
	else if (h->l1.gone[0]) {
		l1_state_remove(save);
		return errbuf_printf(err, errlen, WHO ": L1 did not come up: %s", e);
	}
	h->requests = 0; /* the command's own requests are numbered from 1 */
	e[0] = '\0';
	/* L1 waits on COM2 now: nothing in flight but its heartbeat */
	const uint64_t t0 = monotonic_ns();
	int saved = bochs_save(&h->l1.bochs, e, sizeof(e)) ? -1 : 0;
	/* Bochs saves at its next display update, a GiB or so: seconds */
	while (!saved && bochs_running(&h->l1.bochs) && monotonic_ns() - t0 < 60e9) {
		sleep_ns(200000000);
		saved = l1_state_saved(save);
	}
	if (saved > 0 &&
	    !l1_state_commit(save, cache, key, c.cpu_model ? c.cpu_model : BOCHS_CPU_MODEL,
			     h->run_dir, e, sizeof(e))) {
		if (progress)
			printable_printf(progress,
					 "%s: L1's state saved in %.1f s: later runs "
					 "restore it\n",
					 h->who, (double)(monotonic_ns() - t0) / 1e9);
		return 0;
	}
	printable_printf(stderr,
			 "%s: L1's state could not be saved (%s): the next run boots "
			 "L1 again\n",
			 h->who,
			 saved < 0 ? "Bochs said it failed"
			 : e[0]	   ? e
				   : "no answer");
	l1_state_remove(save);
	return 0;
}

/*
 * --module-params: L1's modules reloaded with them, after the vendor's stock
 * ones, once L1 is up (warm or cold: its saved state stays stock); L1's
 * identity then names them. 0, or -1 with @err and whose fault it is.
 */
static int reload_modules(struct emulated_host *h, const char *given, FILE *progress,
			  enum emulated_failure *why, char *err, size_t errlen)
{
	char text[1024], id[32], e[ERRBUF_SIZE];
	struct l1_file f;
	const int n = snprintf(text, sizeof(text), "%s\n%s\n", h->vendor.params, given);
	*why = EMULATED_USAGE;
	if (n < 0 || (size_t)n >= sizeof(text))
		return errbuf_printf(err, errlen, "%s: --module-params: too long", h->who);
	const uint64_t t0 = monotonic_ns();
	if (request(h, "modparams", &(struct l1_blob){(uint8_t *)text, (size_t)n}, "modparams",
		    NULL, id, sizeof(id), &f, e, sizeof(e))) {
		/* refused by L1's plerig: the parameters' fault; anything else, the host's */
		if (h->failed)
			*why = EMULATED_BROKEN;
		return errbuf_printf(err, errlen, "%s: --module-params '%s': %s", h->who, given, e);
	}
	int rc = identity(h, &f, err, errlen);
	l1_file_free(&f);
	if (rc) {
		*why = EMULATED_BROKEN;
		return rc;
	}
	if (progress)
		printable_printf(
		    progress, "%s: L1's %s reloaded with the parameters given, now %s (%.1f s)\n",
		    h->who, h->vendor.module, h->host.module_params,
		    (double)(monotonic_ns() - t0) / 1e9);
	return 0;
}

static int start_l1(struct emulated_host *h, const struct emulated_options *o, const char *cache,
		    const char *program, char *err, size_t errlen)
{
	char preload[2 * PATH_MAX + 2], key[65];
	if (make_run_dir(h, cache, err, errlen))
		return -1;
	preloads(preload, sizeof(preload));
	const struct bochs_config c = {.program = program,
				       .dir = h->run_dir,
				       .iso = h->medium.iso,
				       .preload = preload[0] ? preload : NULL,
				       .cpu_model = h->vendor.cpu,
				       .bios = h->bios[0] ? h->bios : NULL};
	FILE *progress = o->quiet ? NULL : stderr;
	l1_state_key(h->medium.key, h->bochs_version, c.cpu_model, key);
	int rc = start_warm(h, &c, key, cache, progress, err, errlen);
	return rc <= 0 ? rc : start_cold(h, &c, key, cache, progress, err, errlen);
}

/* images/l1/: beside the binary in a build tree, else installed (PLERIG_L1_DIR: tests) */
static void scripts_dir(char *scripts, size_t len)
{
	const char *dir = getenv("PLERIG_L1_DIR");
	if (dir && *dir) {
		str_copy(scripts, len, dir);
	} else {
		data_path("images/l1", "build-medium", scripts, len);
		str_copy(scripts, len, dirname(scripts));
	}
}

static int vendor_read(const char *scripts, const char *name, struct emulated_vendor *v, char *err,
		       size_t errlen)
{
	char cfg[PATH_MAX];
	return pathf(cfg, sizeof(cfg), "%s/vendors.cfg", scripts)
		   ? errbuf_printf(err, errlen, "%s: path too long", scripts)
		   : emulated_vendor_read(cfg, name, v, err, errlen);
}

int emulated_host_vendor(const char *vendor, struct emulated_vendor *v, char *err, size_t errlen)
{
	char scripts[PATH_MAX];
	scripts_dir(scripts, sizeof(scripts));
	return vendor_read(scripts, vendor, v, err, errlen);
}

struct emulated_host *emulated_host_open(const struct emulated_options *o,
					 enum emulated_failure *why, char *err, size_t errlen)
{
	char cache[PATH_MAX], top[PATH_MAX], scripts[PATH_MAX], e[ERRBUF_SIZE];
	char own[PATH_MAX];
	const char *program = getenv("PLERIG_BOCHS");
	enum emulated_failure dummy;
	if (!why)
		why = &dummy;
	*why = EMULATED_BROKEN;
	scripts_dir(scripts, sizeof(scripts));
	struct emulated_host *h = calloc(1, sizeof(*h));
	if (!h) {
		errbuf_printf(err, errlen, WHO ": out of memory");
		return NULL;
	}
	int vr = vendor_read(scripts, o->vendor, &h->vendor, e, sizeof(e));
	if (vr) {
		errbuf_printf(err, errlen, WHO ": %s", e);
		*why = vr == EMULATED_VENDOR_UNKNOWN ? EMULATED_USAGE : EMULATED_BROKEN;
		free(h);
		return NULL;
	}
	snprintf(h->name, sizeof(h->name), "%s%s%s", CONNECT_EMULATED, o->vendor ? ":" : "",
		 o->vendor ? o->vendor : "");
	/* Intel's, the first, as it always was; another vendor's names it */
	snprintf(h->who, sizeof(h->who), WHO "%s%s%s", o->vendor ? " (" : "",
		 o->vendor ? o->vendor : "", o->vendor ? ")" : "");
	/* absolute: a staged state's links and Bochs' paths resolve from elsewhere */
	if (o->cache_dir ? cache_dir_absolute(o->cache_dir, top, sizeof(top), e, sizeof(e))
			 : cache_dir_default(top, sizeof(top), e, sizeof(e))) {
		errbuf_printf(err, errlen, "%s: %s", h->who, e);
		free(h);
		return NULL;
	}
	if (program && *program) {
		/* the user's Bochs: it must be one the vendor can run on */
		if (strcmp(h->vendor.bochs, "system")) {
			bochs_version(program, h->bochs_version, sizeof(h->bochs_version));
			if (!emulated_vendor_version_ok(h->bochs_version, h->vendor.bochs)) {
				errbuf_printf(
				    err, errlen,
				    WHO " (%s): PLERIG_BOCHS=%s is Bochs %s; it needs %s or "
					"later (%s): scripts/setup ple-test-%s CACHE puts one "
					"in CACHE",
				    h->vendor.name, program,
				    h->bochs_version[0] ? h->bochs_version : "(no version)",
				    h->vendor.bochs, h->vendor.virt, h->vendor.name);
				free(h);
				return NULL;
			}
		}
	} else if (strcmp(h->vendor.bochs, "system")) {
		if (cached_bochs(&h->vendor, top, own, sizeof(own), h->bios, sizeof(h->bios), err,
				 errlen)) {
			free(h);
			return NULL;
		}
		program = own;
	} else {
		program = "bochs-bin";
	}
	if (check_bochs(h->who, program, h->bios, err, errlen)) {
		free(h);
		return NULL;
	}
	if (pathf(cache, sizeof(cache), "%s/emulated", top) || mkdir_p(cache, e, sizeof(e))) {
		errbuf_printf(err, errlen, "%s: %s", h->who, e);
		free(h);
		return NULL;
	}
	if (!h->bochs_version[0])
		bochs_version(program, h->bochs_version, sizeof(h->bochs_version));
	const struct l1_medium_inputs in = {.kernel = o->kernel,
					    .modules = o->modules,
					    .cache = cache,
					    .guest = o->guest_path,
					    .scripts = scripts,
					    .vendor = h->vendor.name,
					    .who = h->who,
					    .progress = o->quiet ? NULL : stderr};
	bool refused = false;
	if (l1_medium_get(&in, &h->medium, &refused, e, sizeof(e))) {
		errbuf_printf(err, errlen, "%s: %s", h->who, e);
		*why = refused ? EMULATED_KERNEL_UNUSABLE : EMULATED_BROKEN;
		free(h);
		return NULL;
	}
	if (start_l1(h, o, cache, program, err, errlen)) {
		*why =
		    l1_session_kernel_unusable(&h->l1) ? EMULATED_KERNEL_UNUSABLE : EMULATED_BROKEN;
		h->failed = true;
		emulated_host_close(h);
		return NULL;
	}
	if (o->module_params &&
	    reload_modules(h, o->module_params, o->quiet ? NULL : stderr, why, err, errlen)) {
		emulated_host_close(h);
		return NULL;
	}
	return h;
}
