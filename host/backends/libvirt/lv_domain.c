// SPDX-License-Identifier: GPL-2.0
#include "util/clock.h"
#include "backends/libvirt/lv_domain.h"

#include <errno.h>
#include <dirent.h>
#include <libvirt/virterror.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "backends/libvirt/connection.h"
#include "backends/libvirt/run_dir.h"
#include "util/errbuf.h"
#include "util/printable.h"

/* A log longer than the largest report is not a plerig guest's. */
#define SERIAL_MAX  (2 * PLERIG_FRAME_REPORT_MAX)
#define REAP_WAIT_S 5

int lv_domain_init(struct lv_domain *d, unsigned index, unsigned nr_vcpus, char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	d->index = index;
	d->nr_vcpus = nr_vcpus;
	d->tids = calloc(nr_vcpus, sizeof(d->tids[0]));
	d->results = calloc(nr_vcpus, sizeof(d->results[0]));
	if (!d->tids || !d->results)
		return errbuf_printf(err, errlen, "out of memory for VM %u", index);
	d->rep.nr_vcpus = nr_vcpus;
	d->rep.vcpus = d->results;
	return 0;
}

int lv_domain_create(struct lv_domain *d, virConnectPtr conn, bool autodestroy, const char *xml,
		     char *err, size_t errlen)
{
	/* paused, so that every VM of the variant starts its guest at once;
	 * autodestroy (not for embedded drivers): should plerig die, libvirtd
	 * destroys what it left */
	d->dom = virDomainCreateXML(
	    conn, xml, VIR_DOMAIN_START_PAUSED | (autodestroy ? VIR_DOMAIN_START_AUTODESTROY : 0));
	if (!d->dom)
		return errbuf_printf(err, errlen, "VM %u: creating domain %s: %s", d->index,
				     d->name, lv_last_error());
	return 0;
}

/* Does /proc/PID/cmdline hold "guest=NAME," (QEMU's -name of domain NAME)? */
static bool runs_domain(const char *pid, const char *name)
{
	char path[320], err[ERRBUF_SIZE], want[96];
	unsigned char *text;
	size_t len;
	snprintf(path, sizeof(path), "/proc/%s/comm", pid);
	if (read_whole_file(path, 256, &text, &len, err, sizeof(err)))
		return false;
	const bool qemu = !strncmp((const char *)text, "qemu-system-", 12);
	free(text);
	snprintf(path, sizeof(path), "/proc/%s/cmdline", pid);
	if (!qemu || read_whole_file(path, 1 << 16, &text, &len, err, sizeof(err)))
		return false;
	snprintf(want, sizeof(want), "guest=%s,", name);
	bool found = false;
	for (size_t at = 0; at < len && !found; at += strlen((const char *)text + at) + 1)
		found = !strncmp((const char *)text + at, want, strlen(want));
	free(text);
	return found;
}

static pid_t find_qemu(const char *name)
{
	DIR *proc = opendir("/proc");
	struct dirent *e;
	pid_t pid = 0;
	while (proc && !pid && (e = readdir(proc)))
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && runs_domain(e->d_name, name))
			pid = (pid_t)strtol(e->d_name, NULL, 10);
	if (proc)
		closedir(proc);
	return pid;
}

/*
 * The pid in the embedded driver's pid file of domain @name, if that
 * process runs it: two small reads where a /proc scan reads two files
 * of every process. 0 otherwise.
 */
static pid_t pid_from_file(const char *root, const char *name)
{
	char path[PATH_MAX + 128], err[ERRBUF_SIZE], pid_s[24];
	unsigned char *text;
	size_t len;
	if (!root ||
	    snprintf(path, sizeof(path), "%s/run/qemu/%s.pid", root, name) >= (int)sizeof(path) ||
	    read_whole_file(path, 32, &text, &len, err, sizeof(err)))
		return 0;
	snprintf(pid_s, sizeof(pid_s), "%.*s", (int)len, (const char *)text);
	free(text);
	const long pid = strtol(pid_s, NULL, 10);
	snprintf(pid_s, sizeof(pid_s), "%ld", pid);
	return pid > 0 && runs_domain(pid_s, name) ? (pid_t)pid : 0;
}

int lv_domain_find_threads(struct lv_domain *d, const char *root, char *err, size_t errlen)
{
	char path[64];
	d->qemu_pid = pid_from_file(root, d->name);
	if (d->qemu_pid <= 0)
		d->qemu_pid = find_qemu(d->name);
	if (d->qemu_pid <= 0)
		return errbuf_printf(
		    err, errlen,
		    "VM %u: no QEMU process of domain %s in /proc (is libvirt's "
		    "QEMU in another PID namespace? then connect as to a remote host)",
		    d->index, d->name);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)d->qemu_pid);
	DIR *tasks = opendir(path);
	struct dirent *e;
	unsigned found = 0;
	while (tasks && (e = readdir(tasks))) {
		char comm_path[352], comm[64] = "", err2[ERRBUF_SIZE];
		unsigned char *text;
		size_t len;
		unsigned vcpu;
		snprintf(comm_path, sizeof(comm_path), "%s/%s/comm", path, e->d_name);
		if (e->d_name[0] == '.' ||
		    read_whole_file(comm_path, 256, &text, &len, err2, sizeof(err2)))
			continue;
		snprintf(comm, sizeof(comm), "%.*s", (int)len, (const char *)text);
		free(text);
		/* QEMU names its vCPU threads "CPU N/KVM" (or /TCG) */
		if (sscanf(comm, "CPU %u/", &vcpu) == 1 && vcpu < d->nr_vcpus && !d->tids[vcpu]) {
			d->tids[vcpu] = (pid_t)strtol(e->d_name, NULL, 10);
			found++;
		}
	}
	if (tasks)
		closedir(tasks);
	if (found != d->nr_vcpus)
		return errbuf_printf(err, errlen,
				     "VM %u: %u of %u vCPU threads (\"CPU N/...\") found in QEMU "
				     "process %d",
				     d->index, found, d->nr_vcpus, (int)d->qemu_pid);
	return 0;
}

static void *reap(void *arg)
{
	const pid_t pid = *(const pid_t *)arg;
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return NULL;
}

void lv_domain_start_reaper(struct lv_domain *d)
{
	/* only a child of ours can be waited for; else init reaps it */
	if (d->qemu_pid <= 0 || waitpid(d->qemu_pid, NULL, WNOHANG) < 0)
		return;
	d->reaping = pthread_create(&d->reaper, NULL, reap, &d->qemu_pid) == 0;
}

int lv_domain_resume(struct lv_domain *d, char *err, size_t errlen)
{
	if (virDomainResume(d->dom) < 0)
		return errbuf_printf(err, errlen, "VM %u: resuming domain %s: %s", d->index,
				     d->name, lv_last_error());
	return 0;
}

bool lv_domain_active(struct lv_domain *d)
{
	return d->dom && virDomainIsActive(d->dom) == 1;
}

int lv_domain_open_console(struct lv_domain *d, virConnectPtr conn, char *err, size_t errlen)
{
	d->console_buf = malloc(SERIAL_MAX);
	d->console = virStreamNew(conn, VIR_STREAM_NONBLOCK);
	if (!d->console_buf || !d->console)
		return errbuf_printf(err, errlen, "VM %u: out of memory for its console", d->index);
	if (virDomainOpenConsole(d->dom, NULL, d->console, VIR_DOMAIN_CONSOLE_FORCE) < 0)
		return errbuf_printf(err, errlen, "VM %u: opening the console of domain %s: %s",
				     d->index, d->name, lv_last_error());
	return 0;
}

/* Whatever the console has for us now; -1 with decode_error once it cannot be read. */
static int drain_console(struct lv_domain *d)
{
	for (;;) {
		if (d->console_len == SERIAL_MAX)
			return errbuf_printf(d->decode_error, sizeof(d->decode_error),
					     "more than %u bytes on the console: not a plerig "
					     "guest's report",
					     (unsigned)SERIAL_MAX);
		const int n = virStreamRecv(d->console, (char *)d->console_buf + d->console_len,
					    SERIAL_MAX - d->console_len);
		if (n == -2 || n == 0) /* nothing now; or QEMU closed it, having sent it all */
			return 0;
		if (n < 0)
			return errbuf_printf(d->decode_error, sizeof(d->decode_error),
					     "reading the console: %s", lv_last_error());
		d->console_len += (size_t)n;
	}
}

void lv_domain_poll_serial(struct lv_domain *d, uint64_t now_ns)
{
	unsigned char *data;
	size_t len;
	if (d->status != SERIAL_INCOMPLETE)
		return; /* complete or corrupt: nothing more to learn */
	if (d->console) {
		if (drain_console(d)) {
			d->status = SERIAL_CORRUPT;
			return;
		}
		data = d->console_buf;
		len = d->console_len;
	} else if (read_whole_file(d->serial_path, SERIAL_MAX, &data, &len, d->decode_error,
				   sizeof(d->decode_error))) {
		if (errno != ENOENT) /* not there yet: QEMU has not opened it */
			d->status = SERIAL_CORRUPT;
		return;
	}
	d->status = serial_decode(data, len, &d->rep, d->decode_error, sizeof(d->decode_error));
	if (!d->console)
		free(data);
	if (d->rep.have_hello && !d->hello_ns)
		d->hello_ns = now_ns;
	if (d->rep.have_end && !d->end_ns)
		d->end_ns = now_ns;
}

void lv_domain_snapshot(const struct lv_domain *d, bool local, const struct lv_vcpu_stats *st,
			struct counter_snapshot *out, bool *sched_ok)
{
	char err[ERRBUF_SIZE];
	for (unsigned i = 0; i < d->nr_vcpus; i++) {
		out[i].kvm = st[i].kvm;
		memset(&out[i].sched, 0, sizeof(out[i].sched));
		/* ns and timeslices where the thread is ours to read; ticks otherwise */
		if (local && !schedstat_read_any(d->tids[i], &out[i].sched, err, sizeof(err)))
			continue;
		if (!local && st[i].delay_valid && st[i].time_valid) {
			out[i].sched.wait_ns = st[i].delay_ns;
			out[i].sched.run_ns = st[i].time_ns;
			continue;
		}
		*sched_ok = false;
	}
}

#define SETTLE_WAIT_MS 2000

void lv_domain_settle(virDomainPtr dom)
{
	for (unsigned ms = 0; ms < SETTLE_WAIT_MS && virDomainIsActive(dom) == 1; ms++)
		sleep_ns(1000000);
	if (virDomainIsActive(dom) == 1)
		virDomainDestroy(dom);
	virDomainFree(dom);
}

void lv_domain_teardown(struct lv_domain *d, virDomainPtr *later)
{
	bool reaped = false;
	if (d->reaping && d->dom && virDomainIsActive(d->dom) == 1) {
		/* end QEMU ourselves and reap it: libvirt's destroy would signal it and
		 * then poll for it every 200 ms */
		struct timespec limit;
		clock_gettime(CLOCK_REALTIME, &limit);
		limit.tv_sec += REAP_WAIT_S;
		if (kill(d->qemu_pid, SIGKILL) == 0 &&
		    pthread_timedjoin_np(d->reaper, NULL, &limit) == 0) {
			d->reaping = false;
			reaped = true;
		}
	}
	if (d->dom && reaped && later) {
		/*
		 * libvirt's event thread sees the monitor close and removes the
		 * transient domain itself; it sleeps 200 ms on the way (its kill
		 * loop finds QEMU between our kill and our reap). That sleep need
		 * not be ours: the caller settles the domain when it closes.
		 */
		*later = d->dom;
		d->dom = NULL;
	}
	if (d->dom) {
		/* gone already if libvirt handled the guest's power-off; destroy kills
		 * QEMU and waits until it is reaped */
		if (virDomainIsActive(d->dom) == 1 && virDomainDestroy(d->dom) < 0 &&
		    virDomainIsActive(d->dom) == 1)
			printable_printf(stderr, "plerig: destroying domain %s: %s\n", d->name,
					 lv_last_error());
		virDomainFree(d->dom);
		d->dom = NULL;
	}
	if (d->reaping) {
		/* libvirt returns from destroy once QEMU is gone, so the reaper has returned;
		 * should QEMU outlive a failed destroy, do not wait for it here */
		if (kill(d->qemu_pid, 0) == 0)
			pthread_detach(d->reaper);
		else
			pthread_join(d->reaper, NULL);
		d->reaping = false;
	}
	if (d->console) {
		virStreamAbort(d->console);
		virStreamFree(d->console);
		d->console = NULL;
	}
	free(d->console_buf);
	d->console_buf = NULL;
	free(d->tids);
	free(d->results);
	d->tids = NULL;
	d->results = NULL;
}
