// SPDX-License-Identifier: GPL-2.0
#include "backends/libvirt/connection.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libvirt/virterror.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "backends/libvirt/lv_log.h"
#include "backends/libvirt/run_dir.h"
#include "backends/libvirt/state_in_memory.h"
#include "util/cache_dir.h"
#include "util/regular_file.h"
#include "util/errbuf.h"
#include "util/safe_dir.h"
#include "util/uri_redact.h"

/*
 * What the embedded driver needs as root (DESIGN.md): QEMU runs as root
 * with no security driver, its stdout/stderr goes to a file (there is no
 * virtlogd without a daemon), and no namespaces or cgroups (neither is
 * set up for an embedded driver). QEMU runs as root, so files need no
 * relabelling either: without dynamic_ownership libvirt forks no helper to
 * chown them at every start (and that helper logs to our stderr).
 */
static const char qemu_conf[] = "# written by plerig: what libvirt's embedded QEMU driver needs\n"
				"user = \"root\"\n"
				"group = \"root\"\n"
				"security_driver = \"none\"\n"
				"stdio_handler = \"file\"\n"
				"namespaces = []\n"
				"cgroup_controllers = []\n"
				"dynamic_ownership = 0\n"
				"remember_owner = 0\n";

/* One event loop for the process, started with the first connection. */
static pthread_mutex_t loop_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned loop_users;
static pthread_t loop_thread;
static volatile int loop_stop;
static bool loop_registered;

static void *event_loop(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&loop_stop, __ATOMIC_ACQUIRE))
		if (virEventRunDefaultImpl() < 0)
			break;
	return NULL;
}

static void wake_loop(int timer, void *opaque)
{
	(void)opaque;
	virEventRemoveTimeout(timer);
}

/* Errors come back through virGetLastError: libvirt must not also print them. */
static void quiet_errors(void *opaque, virErrorPtr e)
{
	(void)opaque;
	(void)e;
}

static int loop_get(char *err, size_t errlen)
{
	int rc = 0;
	pthread_mutex_lock(&loop_lock);
	if (loop_users++ == 0) {
		if (!loop_registered) {
			virSetErrorFunc(NULL, quiet_errors);
			if (virEventRegisterDefaultImpl() < 0) {
				errbuf_printf(err, errlen, "libvirt event loop: %s",
					      lv_last_error());
				rc = -1;
			}
			loop_registered = rc == 0;
		}
		loop_stop = 0;
		if (!rc && (errno = pthread_create(&loop_thread, NULL, event_loop, NULL))) {
			errbuf_printf(err, errlen, "libvirt event loop thread: %s",
				      strerror(errno));
			rc = -1;
		}
		if (rc)
			loop_users = 0;
	}
	pthread_mutex_unlock(&loop_lock);
	return rc;
}

static void loop_put(void)
{
	pthread_mutex_lock(&loop_lock);
	if (loop_users && --loop_users == 0) {
		__atomic_store_n(&loop_stop, 1, __ATOMIC_RELEASE);
		/* a timer that fires at once: the loop returns and sees the flag */
		virEventAddTimeout(0, wake_loop, NULL, NULL);
		pthread_join(loop_thread, NULL);
		/* no libvirt thread runs or forks now: its log can be copied */
		lv_log_copy(0);
	}
	pthread_mutex_unlock(&loop_lock);
}

bool lv_uri_is_remote(const char *uri)
{
	/* "qemu:///system" has no host part: QEMU runs here */
	const char *scheme_end = strstr(uri, "://");
	return !scheme_end || scheme_end[3] != '/';
}

const char *lv_last_error(void)
{
	const char *m = virGetLastErrorMessage();
	return m ? m : "unknown libvirt error";
}

/* Write qemu.conf unless it already says exactly that: the driver reads it at connect. */
static int write_qemu_conf(int rootfd, const char *root, char *err, size_t errlen)
{
	char shown[PATH_MAX + 8], why[ERRBUF_SIZE], *now = NULL;
	size_t n = 0;
	const int etc = safe_dir_open_at(rootfd, root, "etc", SAFE_DIR_CREATE, err, errlen);
	if (etc < 0)
		return -1;
	snprintf(shown, sizeof(shown), "%s/etc", root);
	int rc = 0;
	if (regular_file_read(etc, "qemu.conf", O_NOFOLLOW, sizeof(qemu_conf), &now, &n, why,
			      sizeof(why)) ||
	    n != sizeof(qemu_conf) - 1 || memcmp(now, qemu_conf, n))
		rc = safe_file_replace(etc, shown, "qemu.conf", qemu_conf, sizeof(qemu_conf) - 1,
				       0644, err, errlen);
	free(now);
	close(etc);
	return rc;
}

/* The root goes into a URI query: escape what a URI does not allow there. */
static int uri_escape(const char *s, char *out, size_t len)
{
	size_t n = 0;
	for (; *s; s++) {
		const unsigned char c = (unsigned char)*s;
		const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				   (c >= '0' && c <= '9') || strchr("/._-~", c);
		int w = plain ? snprintf(out + n, len - n, "%c", c)
			      : snprintf(out + n, len - n, "%%%02X", c);
		if (w < 0 || (size_t)w >= len - n)
			return -1;
		n += (size_t)w;
	}
	return 0;
}

/*
 * QEMU's monitor socket is ROOT/lib/qemu/domain-ID-NAME/monitor.sock, with
 * NAME cut to 20 characters by libvirt, and a UNIX socket's path has room
 * for 107. A root too deep for it fails every domain with libvirt's
 * "UNIX socket path ... too long": say so once, before anything starts,
 * leaving room for a domain ID of 6 digits.
 */
#define MONITOR_SOCKET_SUFFIX "/lib/qemu/domain-999999-12345678901234567890/monitor.sock"
#define SOCKET_PATH_MAX	      (sizeof(((struct sockaddr_un *)0)->sun_path) - 1)

static int check_socket_room(const char *root, char *err, size_t errlen)
{
	const size_t room = SOCKET_PATH_MAX - (sizeof(MONITOR_SOCKET_SUFFIX) - 1);
	if (strlen(root) <= room)
		return 0;
	return errbuf_printf(
	    err, errlen,
	    "the libvirt root %s is %zu characters long: QEMU's monitor socket under it "
	    "would not fit the %zu characters of a UNIX socket path; choose a --cache-dir "
	    "of at most %zu characters",
	    root, strlen(root), SOCKET_PATH_MAX, room - (sizeof("/libvirt") - 1));
}

/*
 * Where a domain starts, libvirt checks the guest CPU QEMU made. With
 * QEMU's "unavailable-features" (the cpu-unavailable-features flag of its
 * capabilities) it does so generically: qom-list of the vCPU, then one
 * qom-get round trip per property, about 400 here (half of a libvirt
 * run's start-up, measured with libvirt's monitor log). Without the flag
 * it reads two properties, feature-words and filtered-features, which is
 * libvirt's x86 way and all an x86 guest needs. The flag lives in
 * libvirt's capability cache, in our own embed root: dropping it there
 * before connecting makes every later start take the short way. A cache
 * without the flag (another libvirt, a fresh probe) is left as it is.
 */
#define UNAVAILABLE_FEATURES_FLAG "  <flag name='cpu-unavailable-features'/>\n"

static void drop_generic_cpu_check(int rootfd, const char *root)
{
	char dir[PATH_MAX + 32], err[ERRBUF_SIZE];
	snprintf(dir, sizeof(dir), "%s/cache/qemu/capabilities", root);
	const int dfd =
	    safe_dir_open_at(rootfd, root, "cache/qemu/capabilities", 0, err, sizeof(err));
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	struct dirent *e;
	if (!d && dfd >= 0)
		close(dfd);
	while (d && (e = readdir(d))) {
		char *text;
		size_t len;
		const size_t n = strlen(e->d_name);
		if (n < 5 || strcmp(e->d_name + n - 4, ".xml") ||
		    regular_file_read(dfd, e->d_name, O_NOFOLLOW, 4u << 20, &text, &len, err,
				      sizeof(err)))
			continue;
		char *flag = strstr(text, UNAVAILABLE_FEATURES_FLAG);
		if (flag) {
			const size_t cut = sizeof(UNAVAILABLE_FEATURES_FLAG) - 1;
			memmove(flag, flag + cut, len - (size_t)(flag - text) - cut + 1);
			safe_file_replace(dfd, dir, e->d_name, text, len - cut, 0600, err,
					  sizeof(err));
		}
		free(text);
	}
	if (d)
		closedir(d);
}

/*
 * The cache directory and the root in it, walked from / by util/safe_dir's
 * rules: plerig writes qemu.conf there as root and removes what ROOT/run
 * links to, so no other user may decide what these names lead to.
 */
static int open_root(const char *cache_dir, char *err, size_t errlen)
{
	char why[ERRBUF_SIZE];
	const int cache = safe_dir_open(cache_dir, SAFE_DIR_CREATE, why, sizeof(why));
	const int fd = cache < 0 ? -1
				 : safe_dir_open_at(cache, cache_dir, "libvirt", SAFE_DIR_CREATE,
						    why, sizeof(why));
	if (cache >= 0)
		close(cache);
	if (fd < 0)
		return errbuf_printf(err, errlen,
				     "the cache directory %s cannot hold the embedded driver's "
				     "state: %s (--cache-dir chooses another)",
				     cache_dir, why);
	return fd;
}

static int open_embedded(struct lv_connection *c, const char *cache_dir, char *err, size_t errlen)
{
	char esc[PATH_MAX * 3];
	if (geteuid() != 0)
		return errbuf_printf(
		    err, errlen,
		    "libvirt's embedded QEMU driver needs root here (QEMU runs as root "
		    "without a security driver): run plerig as root, or pass --connect "
		    "qemu:///session or qemu:///system");
	if (snprintf(c->root, sizeof(c->root), "%s/libvirt", cache_dir) >= (int)sizeof(c->root))
		return errbuf_printf(err, errlen, "--cache-dir path too long");
	if (check_socket_room(c->root, err, errlen))
		return -1;
	if (uri_escape(c->root, esc, sizeof(esc)))
		return errbuf_printf(err, errlen, "--cache-dir path too long");
	const int rootfd = open_root(cache_dir, err, errlen);
	if (rootfd < 0)
		return -1;
	if (write_qemu_conf(rootfd, c->root, err, errlen)) {
		close(rootfd);
		return -1;
	}
	snprintf(c->uri, sizeof(c->uri), "qemu:///embed?root=%s", esc);
	c->embedded = c->local = true;
	drop_generic_cpu_check(rootfd, c->root);
	close(rootfd);
	state_in_memory(c->root);
	return 0;
}

int lv_connection_open(struct lv_connection *c, const char *uri, const char *cache_dir, char *err,
		       size_t errlen)
{
	memset(c, 0, sizeof(*c));
	if (!uri) {
		if (open_embedded(c, cache_dir, err, errlen))
			return -1;
	} else {
		/* ssh must never wait for a password on the terminal: batch mode */
		const bool ssh = strstr(uri, "+ssh://") && !strstr(uri, "no_tty=");
		snprintf(c->uri, sizeof(c->uri), "%s%s", uri,
			 !ssh		    ? ""
			 : strchr(uri, '?') ? "&no_tty=1"
					    : "?no_tty=1");
		c->local = !lv_uri_is_remote(uri);
	}
	lv_log_hide(uri);
	lv_log_choose(cache_dir);
	uri_redact(c->uri, c->shown, sizeof(c->shown));
	if (loop_get(err, errlen))
		return -1;
	/* libvirt's remote driver writes to its transport (ssh's pipe); when ssh
	 * has died (a refused connection) that write raised SIGPIPE and killed
	 * plerig mid-run, results and cleanup lost. libvirt asks its clients to
	 * ignore it: the write then fails with EPIPE, reported as the open's error */
	signal(SIGPIPE, SIG_IGN);
	c->conn = virConnectOpen(c->uri);
	if (!c->conn) {
		/* ssh's own words may name the keyfile, over several lines */
		char why[ERRBUF_SIZE];
		uri_redact_text(c->uri, lv_last_error(), why, sizeof(why));
		errbuf_printf(err, errlen, "connecting to %s: %s%s", c->shown, why,
			      c->embedded ? " (is another plerig using the same --cache-dir?)"
					  : "");
		loop_put();
		return -1;
	}
	return 0;
}

void lv_connection_close(struct lv_connection *c)
{
	if (!c->conn)
		return;
	virConnectClose(c->conn);
	c->conn = NULL;
	loop_put();
	if (c->embedded)
		state_in_memory_release(c->root);
}
