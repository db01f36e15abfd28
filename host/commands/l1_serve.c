// SPDX-License-Identifier: GPL-2.0
/*
 * `plerig l1-serve CONSOLE REQUESTS`: plerig inside L1, the Linux that the
 * emulated host boots under Bochs (images/l1/init starts it once kvm_intel
 * is loaded). It says who L1 is, then runs each variant the controlling
 * plerig sends on REQUESTS (L1's COM2) with the backend it names, kvm or
 * native, and sends the whole result back on CONSOLE (COM1), in the
 * protocol of backends/emulated/l1_protocol.h. Not a command for people:
 * `plerig run --connect emulated` drives it.
 */
#include "commands/commands.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "backends/backend.h"
#include "backends/emulated/bochs.h"
#include "backends/emulated/l1_blob.h"
#include "backends/emulated/l1_protocol.h"
#include "backends/kvm/kvm_backend.h"
#include "backends/native/native_backend.h"
#include "measure/kvm_system.h"
#include "ple/host_params.h"
#include "ple/module_params.h"
#include "util/cache_dir.h"
#include "util/errbuf.h"
#include "util/printable.h"
#include "util/remove_tree.h"
#include "util/strfmt.h"

#define HEARTBEAT_S 10

struct server {
	FILE *console;
	struct l1_side side;  /* the answers' bytes, where L1 has the parallel port */
	pthread_mutex_t lock; /* one writer at a time: a heartbeat never cuts a frame */
	const char *guest_path;
	struct backend *backends[BACKEND_COUNT];
};

static double uptime(void)
{
	struct timespec t;
	clock_gettime(CLOCK_BOOTTIME, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* So that the controlling host's stall watch tells slow from stuck. */
static void *heartbeat(void *arg)
{
	struct server *s = arg;
	for (;;) {
		sleep(HEARTBEAT_S);
		pthread_mutex_lock(&s->lock);
		fprintf(s->console, "@@ple alive uptime=%.2f\n", uptime());
		fflush(s->console);
		pthread_mutex_unlock(&s->lock);
	}
	return NULL;
}

/* A request's answer: its end line and its one file. */
static void answer(struct server *s, const char *id, int rc, const char *file, const void *data,
		   size_t len)
{
	char err[ERRBUF_SIZE];
	pthread_mutex_lock(&s->lock);
	l1_step_end_print(s->console, id, rc, uptime());
	if (l1_frame_write(s->console, &s->side, file, data, len, err, sizeof(err)))
		printable_printf(s->console, "@@ple fatal cannot send %s: %s\n", file, err);
	fflush(s->console);
	pthread_mutex_unlock(&s->lock);
}

static void answer_error(struct server *s, const char *id, const char *msg)
{
	char name[L1_NAME_MAX + 8];
	(void)l1_answer_name(name, sizeof(name), id, "error");
	answer(s, id, EXIT_USAGE, name, msg, strlen(msg));
}

/* L1's clock starts at 2000-01-01; what it dates must carry this host's date. */
static void set_clock(long long epoch)
{
	struct timeval now;
	if (epoch <= 0 || gettimeofday(&now, NULL) || llabs(now.tv_sec - epoch) < 2)
		return;
	struct timeval tv = {.tv_sec = (time_t)epoch};
	(void)settimeofday(&tv, NULL); /* not root (a test): the dates stay L1's */
}

static struct backend *backend_for(struct server *s, enum backend_kind k, char *err, size_t errlen)
{
	if (s->backends[k])
		return s->backends[k];
	switch (k) {
	case BACKEND_KVM:
		s->backends[k] = kvm_backend_open(s->guest_path, err, errlen);
		break;
	case BACKEND_NATIVE:
		s->backends[k] = native_backend_open(err, errlen);
		break;
	default:
		errbuf_printf(err, errlen,
			      "the emulated host runs plerig's kvm and native backends, not %s",
			      backend_name(k));
		return NULL;
	}
	return s->backends[k];
}

static void run_variant(struct server *s, const struct l1_request *q)
{
	char err[ERRBUF_SIZE], name[L1_NAME_MAX + 8];
	struct variant v;
	if (l1_blob_read_variant(q->blob, q->len, &v, err, sizeof(err))) {
		answer_error(s, q->id, err);
		return;
	}
	struct backend *b = (unsigned)v.backend < BACKEND_COUNT
				? backend_for(s, v.backend, err, sizeof(err))
				: NULL;
	if (!b) {
		answer_error(s, q->id, err);
		return;
	}
	struct variant_result r;
	b->run(b, &v, &r);
	struct l1_blob out;
	if (l1_blob_result(&r, &out, err, sizeof(err))) {
		variant_result_free(&r);
		answer_error(s, q->id, err);
		return;
	}
	variant_result_free(&r);
	(void)l1_answer_name(name, sizeof(name), q->id, "result");
	answer(s, q->id, EXIT_OK, name, out.data, out.len);
	l1_blob_free(&out);
}

/*
 * Before the controlling host saves L1: the kvm backend opened (its
 * tracepoints held) and one VM created and destroyed, so that what L1's
 * first request and first VM cost is paid once, in the boot, and not again
 * after every restore. ID.warm says what was done.
 */
static void warm_up(struct server *s, const char *id)
{
	char err[ERRBUF_SIZE] = "", text[ERRBUF_SIZE + 16], name[L1_NAME_MAX + 8];
	struct backend *b = backend_for(s, BACKEND_KVM, err, sizeof(err));
	if (b && !kvm_backend_warm_up(b, err, sizeof(err)))
		snprintf(text, sizeof(text), "kvm: one VM created and destroyed\n");
	else
		snprintf(text, sizeof(text), "kvm: %s\n", err);
	(void)l1_answer_name(name, sizeof(name), id, "warm");
	answer(s, id, EXIT_OK, name, text, strlen(text));
}

static int identity(struct l1_blob *b, char *err, size_t errlen);

/*
 * This server's own backends closed (a run request opens them again): their
 * fds on /dev/kvm (the warm-up's, a run's) hold the vendor module, and a
 * reload, ours or a command's (check's params =, sweep, tune), needs it
 * unused. Seen in L1: a gate's sweep points skipped, "kvm_intel is in use
 * (refcnt 1): 123 plerig (1 fd)", l1-serve's own.
 */
static void close_backends(struct server *s)
{
	for (unsigned k = 0; k < BACKEND_COUNT; k++)
		if (s->backends[k]) {
			s->backends[k]->close(s->backends[k]);
			s->backends[k] = NULL;
		}
}

/*
 * The controller's --module-params: L1's KVM modules reloaded with them,
 * after the vendor's stock ones (the blob: "STOCK\nGIVEN\n"). Every later
 * command here records them (PLERIG_MODULE_PARAMS, read by host_info), and
 * ID.modparams is L1's identity with them; ID.error says why not.
 */
static void apply_module_params(struct server *s, const struct l1_request *q)
{
	char err[ERRBUF_SIZE] = "", text[2048], applied[512], name[L1_NAME_MAX + 16];
	struct module_params stock = {0}, given;
	char *nl = q->len < sizeof(text) ? memcpy(text, q->blob, q->len) : NULL;
	if (nl) {
		text[q->len] = '\0';
		nl = strchr(text, '\n');
	}
	if (!nl) {
		answer_error(s, q->id, "module parameters: not the stock line and the given one");
		return;
	}
	*nl = '\0';
	nl[1 + strcspn(nl + 1, "\n")] = '\0';
	const char *module = ple_loaded_module(ple_sysfs_root());
	if ((text[0] && module_params_parse(text, &stock, err, sizeof(err))) ||
	    module_params_parse(nl + 1, &given, err, sizeof(err))) {
		answer_error(s, q->id, err);
		return;
	}
	if (!module[0]) {
		answer_error(s, q->id,
			     "no KVM vendor module is loaded in L1 to give parameters to");
		return;
	}
	close_backends(s);
	struct l1_blob b;
	if (module_params_apply(module, &stock, &given, applied, sizeof(applied), err,
				sizeof(err)) ||
	    setenv("PLERIG_MODULE_PARAMS", applied, 1) || identity(&b, err, sizeof(err))) {
		answer_error(s, q->id, err[0] ? err : "out of memory");
		return;
	}
	(void)l1_answer_name(name, sizeof(name), q->id, "modparams");
	answer(s, q->id, EXIT_OK, name, b.data, b.len);
	l1_blob_free(&b);
}

/* A whole file into memory; NULL (and errno) when it cannot be read. */
static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0, r;
	if (!f)
		return NULL;
	do {
		if (n == cap) {
			uint8_t *b = realloc(buf, cap = cap ? cap * 2 : 65536);
			if (!b) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r);
	fclose(f);
	*len = n;
	return buf;
}

/* The files a command left under out/, collected by nftw (which takes no context). */
static struct {
	char **paths;
	unsigned n;
} out_files;

static int collect(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	if (flag != FTW_F)
		return 0;
	char **p = realloc(out_files.paths, (out_files.n + 1) * sizeof(*p));
	if (!p || !(p[out_files.n] = strdup(path)))
		return -1;
	out_files.paths = p;
	out_files.n++;
	return 0;
}

/*
 * Each file under @dir/out as "ID/out/RELPATH", then stdout, then the
 * status (ID.exec); @dir is removed before the status.
 */
static void send_outputs(struct server *s, const char *id, const char *dir, int status)
{
	char outdir[PATH_MAX], path[PATH_MAX], name[L1_NAME_MAX * 2], err[ERRBUF_SIZE];
	size_t len;
	snprintf(outdir, sizeof(outdir), "%s/out", dir);
	memset(&out_files, 0, sizeof(out_files));
	(void)nftw(outdir, collect, 16, FTW_PHYS);
	pthread_mutex_lock(&s->lock);
	l1_step_end_print(s->console, id, status, uptime());
	for (unsigned i = 0; i <= out_files.n; i++) {
		const char *file = i < out_files.n ? out_files.paths[i] : NULL;
		int too_long =
		    l1_output_name(name, sizeof(name), id, file ? file + strlen(outdir) + 1 : NULL);
		snprintf(path, sizeof(path), "%s/%s", dir,
			 file ? file + strlen(dir) + 1 : "stdout");
		uint8_t *data = slurp(path, &len);
		if ((data || !errno) && !too_long && strlen(name) < L1_NAME_MAX &&
		    !l1_frame_write(s->console, &s->side, name, data ? data : (uint8_t *)"",
				    data ? len : 0, err, sizeof(err))) {
			free(data);
			continue;
		}
		char text[L1_NAME_MAX * 2 + ERRBUF_SIZE + 64];
		snprintf(text, sizeof(text), "plerig l1-serve: cannot send %s: %s", name,
			 data ? err : strerror(errno));
		l1_err_print(s->console, id, text);
		free(data);
	}
	/*
	 * gone before the status that ends the request: the controller stops
	 * Bochs once it has it, and L1 with it (a fake L1's TMPDIR outlives it)
	 */
	remove_tree(dir);
	char text[16];
	snprintf(text, sizeof(text), "%d\n", status);
	(void)l1_answer_name(name, sizeof(name), id, "exec");
	if (l1_frame_write(s->console, &s->side, name, text, strlen(text), err, sizeof(err)))
		printable_printf(s->console, "@@ple fatal cannot send %s: %s\n", name, err);
	fflush(s->console);
	pthread_mutex_unlock(&s->lock);
	for (unsigned i = 0; i < out_files.n; i++)
		free(out_files.paths[i]);
	free(out_files.paths);
}

/* @x's files under @dir (in/..., out/...): what the command reads by relative paths. */
static int write_inputs(const char *dir, const struct l1_exec_request *x, char *err, size_t errlen)
{
	char path[PATH_MAX], parent[PATH_MAX];
	for (unsigned i = 0; i < x->nr_files; i++) {
		if (pathf(path, sizeof(path), "%s/%s", dir, x->files[i].name))
			return errbuf_printf(err, errlen, "%s: name too long", x->files[i].name);
		str_copy(parent, sizeof(parent), path);
		*strrchr(parent, '/') = '\0';
		if (mkdir_p(parent, err, errlen))
			return -1;
		FILE *f = fopen(path, "wb");
		if (!f || fwrite(x->files[i].data, 1, x->files[i].len, f) != x->files[i].len ||
		    fclose(f))
			return errbuf_printf(err, errlen, "writing %s: %s", path, strerror(errno));
	}
	return 0;
}

/*
 * `plerig ARGS` in a directory of its own (in/ its inputs, out/ what comes
 * back), its stderr relayed line by line as it comes ("@@ple err ID ..."):
 * a check that runs for minutes shows its progress, and feeds the stall watch.
 */
static void run_exec(struct server *s, const struct l1_request *q)
{
	/* room for its files' names behind it: out/, stdout */
	char dir[PATH_MAX - 64], path[PATH_MAX], err[ERRBUF_SIZE] = "";
	struct l1_exec_request x;
	/* TMPDIR's, as every temporary directory of plerig's (L1's init sets none: /tmp) */
	const char *tmp = getenv("TMPDIR");
	if (pathf(dir, sizeof(dir), "%s/plerig-l1-XXXXXX", tmp && *tmp ? tmp : "/tmp")) {
		answer_error(s, q->id, "TMPDIR: path too long");
		return;
	}
	if (l1_blob_read_exec(q->blob, q->len, &x, err, sizeof(err))) {
		answer_error(s, q->id, err);
		return;
	}
	int pipefd[2] = {-1, -1};
	bool made = mkdtemp(dir) != NULL;
	if (!made || pathf(path, sizeof(path), "%s/out", dir) || mkdir_p(path, err, sizeof(err)) ||
	    write_inputs(dir, &x, err, sizeof(err)) || pipe2(pipefd, O_CLOEXEC)) {
		if (!made)
			errbuf_printf(err, sizeof(err), "preparing the command: %s: %s", dir,
				      strerror(errno));
		else if (!err[0] || pipefd[0] < 0)
			errbuf_printf(err, sizeof(err), "preparing the command: %s",
				      strerror(errno));
		answer_error(s, q->id, err);
		if (made) /* what was written before the failure goes too */
			remove_tree(dir);
		l1_exec_request_free(&x);
		return;
	}
	/* the command opens KVM itself, and may reload the module */
	close_backends(s);
	char *argv[x.argc + 2];
	argv[0] = "plerig";
	for (unsigned i = 0; i < x.argc; i++)
		argv[i + 1] = x.argv[i];
	argv[x.argc + 1] = NULL;
	snprintf(path, sizeof(path), "%s/stdout", dir);
	pid_t pid = fork();
	if (pid == 0) {
		int o = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int n = open("/dev/null", O_RDONLY);
		if (chdir(dir) || o < 0 || n < 0 || dup2(n, 0) < 0 || dup2(o, 1) < 0 ||
		    dup2(pipefd[1], 2) < 0)
			_exit(127);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(pipefd[1]);
	FILE *e = fdopen(pipefd[0], "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while (e && (n = getline(&line, &cap, e)) >= 0) {
		line[strcspn(line, "\r\n")] = '\0';
		pthread_mutex_lock(&s->lock);
		l1_err_print(s->console, q->id, line);
		fflush(s->console);
		pthread_mutex_unlock(&s->lock);
	}
	free(line);
	if (e)
		fclose(e);
	else
		close(pipefd[0]);
	int st = 0;
	int status = pid < 0 || waitpid(pid, &st, 0) != pid ? 127
		     : WIFEXITED(st)			    ? WEXITSTATUS(st)
							    : 128 + WTERMSIG(st);
	send_outputs(s, q->id, dir, status);
	l1_exec_request_free(&x);
}

/* Who L1 is, as it sees itself: the controlling host names it "emulated". */
static int identity(struct l1_blob *b, char *err, size_t errlen)
{
	struct host_info h;
	host_info_collect(&h, kvm_active_module());
	return l1_blob_host(&h, b, err, errlen);
}

/* Who L1 is, asked again (a restored L1): ID.hello. */
static void send_hello(struct server *s, const char *id)
{
	char err[ERRBUF_SIZE], name[L1_NAME_MAX + 8];
	struct l1_blob b;
	if (identity(&b, err, sizeof(err))) {
		answer_error(s, id, err);
		return;
	}
	snprintf(name, sizeof(name), "%s.hello", id);
	answer(s, id, EXIT_OK, name, b.data, b.len);
	l1_blob_free(&b);
}

/* Who L1 is, said once it reads requests: the file hello. */
static int hello(struct server *s)
{
	char err[ERRBUF_SIZE];
	struct l1_blob b;
	if (identity(&b, err, sizeof(err)))
		return -1;
	pthread_mutex_lock(&s->lock);
	fprintf(s->console, "@@ple ready uptime=%.2f\n", uptime());
	int rc = l1_frame_write(s->console, &s->side, "hello", b.data, b.len, err, sizeof(err));
	fflush(s->console);
	pthread_mutex_unlock(&s->lock);
	l1_blob_free(&b);
	return rc;
}

/*
 * COM2 as a plain byte pipe: no echo onto the console, no line length
 * limit; and at 115200 baud, as the console (COM1) is, not the 9600 it
 * comes up with: Bochs delivers a byte per byte time of the emulated
 * clock, and a run's request (~1 KB) took an emulated second at 9600.
 */
static void raw_tty(int fd)
{
	struct termios t;
	if (!isatty(fd) || tcgetattr(fd, &t))
		return;
	cfmakeraw(&t);
	(void)cfsetspeed(&t, B115200);
	(void)tcsetattr(fd, TCSANOW, &t);
}

static int serve(struct server *s, FILE *requests)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	char err[ERRBUF_SIZE];
	while ((n = getline(&line, &cap, requests)) >= 0) {
		/* raw COM2 keeps the CR of a terminal's line end, and noise before a request */
		char *start = strstr(line, "@@ple req ");
		err[0] = '\0';
		if (!start)
			continue;
		struct l1_request q;
		if (l1_request_parse(start, &q, err, sizeof(err))) {
			char id[L1_NAME_MAX] = "?";
			sscanf(start, "@@ple req %255s", id);
			answer_error(s, id, err);
			continue;
		}
		set_clock(q.epoch);
		pthread_mutex_lock(&s->lock);
		printable_printf(s->console, "@@ple step %s begin uptime=%.2f\n", q.id, uptime());
		fflush(s->console);
		pthread_mutex_unlock(&s->lock);
		if (!strcmp(q.kind, "quit")) {
			l1_request_free(&q);
			break;
		}
		if (!strcmp(q.kind, "run"))
			run_variant(s, &q);
		else if (!strcmp(q.kind, "exec"))
			run_exec(s, &q);
		else if (!strcmp(q.kind, "hello"))
			send_hello(s, q.id);
		else if (!strcmp(q.kind, "warm"))
			warm_up(s, q.id);
		else if (!strcmp(q.kind, "modparams"))
			apply_module_params(s, &q);
		else
			answer_error(s, q.id, "unknown request kind");
		l1_request_free(&q);
	}
	free(line);
	pthread_mutex_lock(&s->lock);
	fprintf(s->console, "@@ple done uptime=%.2f\n", uptime());
	fflush(s->console);
	pthread_mutex_unlock(&s->lock);
	return EXIT_OK;
}

int cmd_l1_serve(int argc, char **argv, const char *guest_path)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr,
			"usage: plerig l1-serve CONSOLE REQUESTS [SIDE] (inside L1, started by its "
			"init: plerig run --connect emulated drives it; SIDE ioport:0x378, the "
			"parallel port its files go through, l1_side.h)\n");
		return EXIT_USAGE;
	}
	struct server s = {.lock = PTHREAD_MUTEX_INITIALIZER, .guest_path = guest_path};
	char err[ERRBUF_SIZE];
	/* without it (or where it does not answer) the files go on the console, base64 */
	if (argc == 4 && l1_side_open(&s.side, argv[3], err, sizeof(err)))
		printable_printf(stderr, "plerig l1-serve: %s: files on the console\n", err);
	int out = open(argv[1], O_WRONLY | O_NOCTTY | O_APPEND | O_CLOEXEC);
	int in = open(argv[2], O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (out < 0 || in < 0) {
		printable_printf(stderr, "plerig l1-serve: opening %s: %s\n",
				 out < 0 ? argv[1] : argv[2], strerror(errno));
		return EXIT_FAILED;
	}
	raw_tty(in);
	s.console = fdopen(out, "w");
	FILE *requests = fdopen(in, "r");
	if (!s.console || !requests) {
		printable_printf(stderr, "plerig l1-serve: %s\n", strerror(errno));
		return EXIT_FAILED;
	}
	/* every command run here says what its seconds are (host_info's clock) */
	char clock_text[160];
	snprintf(clock_text, sizeof(clock_text),
		 "emulated seconds: Bochs' instruction clock, %llu instructions a second, "
		 "whatever this machine's speed",
		 BOCHS_IPS);
	setenv("PLERIG_CLOCK", clock_text, 1);
	/* its JSON on one line: a third of the bytes through the serial line (json_util.h) */
	setenv("PLERIG_JSON_COMPACT", "1", 1);
	pthread_t t;
	if (hello(&s) || pthread_create(&t, NULL, heartbeat, &s)) {
		fprintf(stderr, "plerig l1-serve: cannot start\n");
		return EXIT_FAILED;
	}
	int rc = serve(&s, requests);
	close_backends(&s);
	l1_side_close(&s.side);
	return rc;
}
