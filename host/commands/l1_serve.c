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
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "backends/backend.h"
#include "backends/emulated/l1_blob.h"
#include "backends/emulated/l1_protocol.h"
#include "backends/kvm/kvm_backend.h"
#include "backends/native/native_backend.h"
#include "measure/kvm_system.h"
#include "util/errbuf.h"

#define HEARTBEAT_S 10

struct server {
	FILE *console;
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
	fprintf(s->console, "@@ple step %s end rc=%d uptime=%.2f\n", id, rc, uptime());
	if (l1_frame_write(s->console, file, data, len, err, sizeof(err)))
		fprintf(s->console, "@@ple fatal cannot send %s: %s\n", file, err);
	fflush(s->console);
	pthread_mutex_unlock(&s->lock);
}

static void answer_error(struct server *s, const char *id, const char *msg)
{
	char name[L1_NAME_MAX + 8];
	snprintf(name, sizeof(name), "%s.error", id);
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
	snprintf(name, sizeof(name), "%s.result", q->id);
	answer(s, q->id, EXIT_OK, name, out.data, out.len);
	l1_blob_free(&out);
}

/* Who L1 is, as it sees itself: the controlling host names it "emulated". */
static int hello(struct server *s)
{
	char err[ERRBUF_SIZE];
	struct host_info h;
	struct l1_blob b;
	host_info_collect(&h, kvm_detect_module());
	if (l1_blob_host(&h, &b, err, sizeof(err)))
		return -1;
	pthread_mutex_lock(&s->lock);
	fprintf(s->console, "@@ple ready uptime=%.2f\n", uptime());
	int rc = l1_frame_write(s->console, "hello", b.data, b.len, err, sizeof(err));
	fflush(s->console);
	pthread_mutex_unlock(&s->lock);
	l1_blob_free(&b);
	return rc;
}

/* COM2 as a plain byte pipe: no echo onto the console, no line length limit. */
static void raw_tty(int fd)
{
	struct termios t;
	if (!isatty(fd) || tcgetattr(fd, &t))
		return;
	cfmakeraw(&t);
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
		if (!start)
			continue;
		struct l1_request q;
		if (l1_request_parse(start, &q, err, sizeof(err))) {
			char id[L1_NAME_MAX] = "?";
			sscanf(start, "@@ple req %127s", id);
			answer_error(s, id, err);
			continue;
		}
		set_clock(q.epoch);
		pthread_mutex_lock(&s->lock);
		fprintf(s->console, "@@ple step %s begin uptime=%.2f\n", q.id, uptime());
		fflush(s->console);
		pthread_mutex_unlock(&s->lock);
		if (!strcmp(q.kind, "quit")) {
			l1_request_free(&q);
			break;
		}
		if (!strcmp(q.kind, "variant"))
			run_variant(s, &q);
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
	if (argc != 3) {
		fprintf(stderr,
			"usage: plerig l1-serve CONSOLE REQUESTS (inside L1, started by its "
			"init: plerig run --connect emulated drives it)\n");
		return EXIT_USAGE;
	}
	struct server s = {.lock = PTHREAD_MUTEX_INITIALIZER, .guest_path = guest_path};
	int out = open(argv[1], O_WRONLY | O_NOCTTY | O_APPEND | O_CLOEXEC);
	int in = open(argv[2], O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (out < 0 || in < 0) {
		fprintf(stderr, "plerig l1-serve: opening %s: %s\n", out < 0 ? argv[1] : argv[2],
			strerror(errno));
		return EXIT_FAILED;
	}
	raw_tty(in);
	s.console = fdopen(out, "w");
	FILE *requests = fdopen(in, "r");
	if (!s.console || !requests) {
		fprintf(stderr, "plerig l1-serve: %s\n", strerror(errno));
		return EXIT_FAILED;
	}
	pthread_t t;
	if (hello(&s) || pthread_create(&t, NULL, heartbeat, &s)) {
		fprintf(stderr, "plerig l1-serve: cannot start\n");
		return EXIT_FAILED;
	}
	int rc = serve(&s, requests);
	for (unsigned k = 0; k < BACKEND_COUNT; k++)
		if (s.backends[k])
			s.backends[k]->close(s.backends[k]);
	return rc;
}
