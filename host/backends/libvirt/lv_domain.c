// SPDX-License-Identifier: GPL-2.0
#include "util/clock.h"
#include "backends/libvirt/lv_domain.h"

#include <errno.h>
#include <libvirt/libvirt-qemu.h>
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

/* A log longer than the largest report is not a plerig guest's. */
#define SERIAL_MAX  (2 * PLERIG_FRAME_REPORT_MAX)
#define REAP_WAIT_S 5

int lv_domain_init(struct lv_domain *d, unsigned index, unsigned nr_vcpus, char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	d->index = index;
	d->nr_vcpus = nr_vcpus;
	d->vcpus = calloc(nr_vcpus, sizeof(d->vcpus[0]));
	d->results = calloc(nr_vcpus, sizeof(d->results[0]));
	if (!d->vcpus || !d->results)
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

static char *monitor(struct lv_domain *d, const char *cmd, char *err, size_t errlen)
{
	char *reply = NULL;
	if (virDomainQemuMonitorCommand(d->dom, cmd, &reply, 0) < 0) {
		errbuf_printf(err, errlen, "VM %u: QEMU monitor command %.40s: %s", d->index, cmd,
			      lv_last_error());
		return NULL;
	}
	return reply;
}

int lv_domain_query_vcpus(struct lv_domain *d, char *err, size_t errlen)
{
	char why[ERRBUF_SIZE];
	char *reply = monitor(d, "{\"execute\":\"query-cpus-fast\"}", err, errlen);
	if (!reply)
		return -1;
	int rc = qmp_parse_cpus_fast(reply, d->vcpus, d->nr_vcpus, why, sizeof(why));
	if (rc)
		errbuf_printf(err, errlen, "VM %u: %s", d->index, why);
	free(reply);
	return rc;
}

/* The process a thread belongs to: the Tgid line of /proc/TID/status. */
static pid_t process_of(pid_t tid)
{
	char path[64], err[ERRBUF_SIZE];
	unsigned char *text;
	size_t len;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (tid <= 0 || read_whole_file(path, 1 << 16, &text, &len, err, sizeof(err)))
		return 0;
	const char *tgid = strstr((const char *)text, "\nTgid:");
	pid_t pid = tgid ? (pid_t)strtol(tgid + 6, NULL, 10) : 0;
	free(text);
	return pid;
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
	d->qemu_pid = process_of(d->vcpus[0].tid);
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

void lv_domain_poll_serial(struct lv_domain *d, uint64_t now_ns)
{
	unsigned char *data;
	size_t len;
	if (d->status != SERIAL_INCOMPLETE)
		return; /* complete or corrupt: nothing more to learn */
	if (read_whole_file(d->serial_path, SERIAL_MAX, &data, &len, d->decode_error,
			    sizeof(d->decode_error))) {
		if (errno != ENOENT) /* not there yet: QEMU has not opened it */
			d->status = SERIAL_CORRUPT;
		return;
	}
	d->status = serial_decode(data, len, &d->rep, d->decode_error, sizeof(d->decode_error));
	free(data);
	if (d->rep.have_hello && !d->hello_ns)
		d->hello_ns = now_ns;
	if (d->rep.have_end && !d->end_ns)
		d->end_ns = now_ns;
}

void lv_domain_snapshot(struct lv_domain *d, bool local, struct counter_snapshot *out)
{
	struct kvm_stats_snapshot kvm[PLERIG_MAX_VCPUS];
	char err[ERRBUF_SIZE];
	for (unsigned i = 0; i < d->nr_vcpus; i++)
		if (!local || schedstat_read_any(d->vcpus[i].tid, &out[i].sched, err, sizeof(err)))
			memset(&out[i].sched, 0, sizeof(out[i].sched));
	/* no stats (TCG, an old QEMU) are reported as absent, not as a failed run */
	char *reply = monitor(d, qmp_query_stats_command(), err, sizeof(err));
	if (!reply || qmp_parse_stats(reply, d->vcpus, d->nr_vcpus, kvm, err, sizeof(err)))
		memset(kvm, 0, d->nr_vcpus * sizeof(kvm[0]));
	for (unsigned i = 0; i < d->nr_vcpus; i++)
		out[i].kvm = kvm[i];
	free(reply);
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
			fprintf(stderr, "plerig: destroying domain %s: %s\n", d->name,
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
	free(d->vcpus);
	free(d->results);
	d->vcpus = NULL;
	d->results = NULL;
}
