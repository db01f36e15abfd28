// SPDX-License-Identifier: GPL-2.0
/*
 * The libvirt backend: opened once (the connection, the guest image and
 * domain template, what a killed plerig left), then one variant at a time
 * in order: a transient domain per VM, created paused and resumed together
 * (lv_start.c); the guest reads its config from fw_cfg, times its own
 * phases and writes its results to the serial log (lv_watch.c follows
 * it); the host snapshots its own figures around the measured interval
 * it expects the guest to keep and collects the results (lv_measure.c);
 * the domains and their files destroyed on every path.
 */
#include "backends/libvirt/libvirt_backend.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "backends/run_result.h"
#include "measure/kvm_system.h"
#include "measure/tsc.h"
#include "model/backend_limits.h"
#include "backends/libvirt/domain_owner.h"
#include "backends/libvirt/lv_host_info.h"
#include "backends/libvirt/lv_run.h"
#include "backends/libvirt/orphans.h"
#include "backends/libvirt/probe_cpu.h"
#include "util/cache_dir.h"
#include "util/clock.h"
#include "util/data_path.h"
#include "util/errbuf.h"

#define TEMPLATE_MAX   65536
#define IMAGE_MAX      (64u << 20)
#define QEMU_LOGS_KEPT 32 /* plerig-*.log of the embedded driver: the newest are kept */
/*
 * QEMU's build for microvm alone (Debian's qemu-system-x86 has it): 10
 * shared libraries to load where the full one has 51, and about half its
 * CPU time from exec to an answering monitor (13 against 27 ms here),
 * which is most of a libvirt start on a busy host. KVM only, and no
 * isa-debug-exit device (domain_xml.c). Where it is not, libvirt's QEMU.
 */
#define MICROVM_QEMU "/usr/bin/qemu-system-x86_64-microvm"

static uint64_t since_start(const struct lv_run *run)
{
	return monotonic_ns() - run->t0;
}

/* A place for one more settling domain, or NULL (then teardown waits for it). */
static virDomainPtr *settle_slot(struct lv_backend *b)
{
	virDomainPtr *grown = realloc(b->settling, (b->nr_settling + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	b->settling = grown;
	b->settling[b->nr_settling] = NULL;
	return &b->settling[b->nr_settling++];
}

static int lv_run_variant(struct backend *base, const struct variant *v, struct variant_result *r)
{
	struct lv_run run = {.b = (struct lv_backend *)base, .v = v, .r = r, .t0 = monotonic_ns()};
	char err[ERRBUF_SIZE];
	if (variant_result_init(r, v))
		return -1;
	/* the matrix leaves these out (plan_left_out): a plan built otherwise is told why */
	if (v->ple == PLE_OFF && backend_cannot(v->backend, SETTING_PLE_OFF))
		return run_fail(r, "--ple off: %s", backend_cannot(v->backend, SETTING_PLE_OFF));
	if (v->halt_poll_ns != HALT_POLL_HOST)
		return run_fail(r, "--halt-poll: %s",
				backend_cannot(v->backend, SETTING_HALT_POLL));
	r->tsc_khz = run.b->tsc_khz;
	run_note_ple(r, &run.b->ple);

	if (run_dir_create(&run.dir, err, sizeof(err)))
		run_fail(r, "%s", err);
	else if (!lv_start_domains(&run)) {
		r->timing.created_ns = since_start(&run);
		if (!lv_start_resume(&run) && !lv_watch_boot(&run) && !lv_measure_interval(&run))
			lv_measure_collect(&run);
	}
	for (unsigned i = 0; i < run.nr_doms; i++)
		lv_domain_teardown(&run.doms[i], settle_slot(run.b));
	if (run.config_vol[0])
		lv_pool_delete(&run.b->pool, run.config_vol);
	free(run.doms);
	run_dir_remove(&run.dir);
	r->timing.torn_down_ns = since_start(&run);
	return r->ok ? 0 : -1;
}

static int lv_remote_host(struct backend *base, struct host_info *h)
{
	const struct lv_backend *b = (const struct lv_backend *)base;
	if (b->lc.local)
		return -1;
	*h = b->remote;
	return 0;
}

static void lv_close(struct backend *base)
{
	struct lv_backend *b = (struct lv_backend *)base;
	for (unsigned i = 0; i < b->nr_settling; i++)
		if (b->settling[i])
			lv_domain_settle(b->settling[i]);
	free(b->settling);
	lv_pool_close(&b->pool);
	lv_connection_close(&b->lc);
	free(b->template_text);
	free(b);
}

/* Domains a plerig killed before it could clean up (in our own embed root only). */
static void destroy_leftovers(struct lv_backend *b)
{
	virDomainPtr *doms = NULL;
	char mine[32];
	if (!b->lc.embedded)
		return;
	/* this process's own run on another host of --connect that reaches this driver */
	snprintf(mine, sizeof(mine), "plerig-%d-", (int)getpid());
	int n = virConnectListAllDomains(b->lc.conn, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	for (int i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);
		if (name && !strncmp(name, "plerig-", 7) && strncmp(name, mine, strlen(mine)))
			virDomainDestroy(doms[i]);
		virDomainFree(doms[i]);
	}
	free(doms);
}

/*
 * QEMU runs on another host, which need not have any of plerig's files:
 * remove what a killed plerig of this machine left there, then make our
 * pool and put the guest image in it.
 */
static int ship_guest(struct lv_backend *b, char *err, size_t errlen)
{
	unsigned char *data;
	size_t len;
	b->ship = true;
	lv_pool_sweep(b->lc.conn, stderr);
	if (lv_pool_open(&b->pool, b->lc.conn, err, errlen) ||
	    read_whole_file(b->guest_path, IMAGE_MAX, &data, &len, err, errlen))
		return -1;
	const int rc = lv_pool_upload(&b->pool, "plerig-guest.elf", data, len, b->guest_remote,
				      sizeof(b->guest_remote), err, errlen);
	free(data);
	return rc;
}

static int load_files(struct lv_backend *b, const struct libvirt_backend_options *o, char *err,
		      size_t errlen)
{
	char tpl[PATH_MAX + 32];
	unsigned char *data;
	size_t len;
	if (!realpath(o->guest_path, b->guest_path))
		return errbuf_printf(err, errlen,
				     "guest image %s: %s (rebuild it with make, or pass --guest)",
				     o->guest_path, strerror(errno));
	if (read_whole_file(b->guest_path, IMAGE_MAX, &data, &len, err, errlen))
		return -1;
	const bool elf = len > 4 && !memcmp(data, "\177ELF", 4);
	free(data);
	if (!elf)
		return errbuf_printf(err, errlen,
				     "guest image %s is not an ELF file: not a plerig guest",
				     b->guest_path);
	if (o->template_path)
		snprintf(tpl, sizeof(tpl), "%s", o->template_path);
	else /* shipped with plerig, whichever --guest runs */
		data_path("images", "plerig-domain.xml", tpl, sizeof(tpl));
	if (read_whole_file(tpl, TEMPLATE_MAX, &data, &len, err, errlen)) {
		size_t n = strlen(err);
		return errbuf_printf(err + n, errlen - n,
				     " (the domain template: set PLERIG_DOMAIN_TEMPLATE)");
	}
	b->template_text = (char *)data;
	return 0;
}

struct backend *libvirt_backend_open(const struct libvirt_backend_options *o, char *err,
				     size_t errlen)
{
	char cache[PATH_MAX];
	struct lv_backend *b = calloc(1, sizeof(*b));
	if (!b) {
		errbuf_printf(err, errlen, "out of memory");
		return NULL;
	}
	b->tcg = o->tcg;
	if (!o->tcg && access("/dev/kvm", R_OK | W_OK) && !o->uri) {
		/* the working combination at once: without root the embedded driver is out too */
		errbuf_printf(
		    err, errlen,
		    "libvirt backend: /dev/kvm is not usable (%s): pass %s to run under "
		    "QEMU's emulator instead (figures then say emulated)%s",
		    strerror(errno),
		    geteuid() ? "--accel tcg --connect qemu:///session" : "--accel tcg",
		    geteuid() ? "; without root, libvirt's embedded driver is not an option" : "");
		free(b);
		return NULL;
	}
	if (o->cache_dir)
		snprintf(cache, sizeof(cache), "%s", o->cache_dir);
	else if (cache_dir_default(cache, sizeof(cache), err, errlen)) {
		free(b);
		return NULL;
	}
	/* libvirt's embed root must be absolute; damaged serial logs are kept here too */
	if (cache[0] == '/')
		snprintf(b->cache, sizeof(b->cache), "%s", cache);
	else if (!getcwd(b->cache, sizeof(b->cache)) ||
		 strlen(b->cache) + 1 + strlen(cache) >= sizeof(b->cache))
		snprintf(b->cache, sizeof(b->cache), "%s", cache);
	else
		strcat(strcat(b->cache, "/"), cache);
	/* the embedded driver reads the host's CPUID where it starts: always on one CPU */
	struct probe_cpu pin = {0};
	if (!o->uri)
		probe_cpu_enter(&pin);
	if (load_files(b, o, err, errlen) ||
	    lv_connection_open(&b->lc, o->uri, b->cache, err, errlen)) {
		probe_cpu_leave(&pin);
		free(b->template_text);
		free(b);
		return NULL;
	}
	/* a probe of a plerig killed while probing holds nothing, yet runs for ever */
	if (b->lc.embedded)
		orphans_kill_stale_probes(b->lc.root, stderr);
	/*
	 * Have libvirt probe QEMU now (seconds, the first time; cached in the
	 * cache dir after that): its probes are daemonized QEMUs too, and once
	 * we are their subreaper nothing would reap them but libvirt's patience.
	 */
	char *caps = o->tcg ? NULL
			    : virConnectGetDomainCapabilities(b->lc.conn, MICROVM_QEMU, "x86_64",
							      "microvm", "kvm", 0);
	b->emulator = caps ? MICROVM_QEMU : NULL;
	if (!caps) /* no microvm build there: libvirt's QEMU */
		caps = virConnectGetDomainCapabilities(b->lc.conn, NULL, "x86_64", "microvm",
						       o->tcg ? "qemu" : "kvm", 0);
	probe_cpu_leave(&pin);
	if (!caps) {
		errbuf_printf(err, errlen, "libvirt cannot run QEMU's microvm with %s: %s%s",
			      o->tcg ? "TCG" : "KVM", lv_last_error(),
			      o->tcg ? "" : " (no KVM? try --accel tcg)");
		lv_close(&b->base);
		return NULL;
	}
	free(caps);
	/* the embedded driver's QEMU daemonizes: make it our child, not init's (lv_domain.h) */
	if (b->lc.embedded && prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		errbuf_printf(err, errlen, "prctl(PR_SET_CHILD_SUBREAPER): %s", strerror(errno));
		lv_close(&b->base);
		return NULL;
	}
	/* another daemon's domains outlive plerig only should autodestroy fail */
	if (!b->lc.embedded)
		domain_owner_sweep(b->lc.conn, stderr);
	if (!b->lc.local && (lv_host_info(b->lc.conn, b->lc.shown, &b->remote, err, errlen) ||
			     ship_guest(b, err, errlen))) {
		lv_close(&b->base);
		return NULL;
	}
	destroy_leftovers(b);
	if (b->lc.embedded)
		orphans_trim_qemu_logs(b->lc.root, QEMU_LOGS_KEPT);
	/* the guest TSC runs at the host's under KVM (no TSC scaling asked) and TCG alike */
	b->tsc_khz = tsc_calibrate_khz(20);
	if (!b->tsc_khz) {
		errbuf_printf(err, errlen, "could not measure the TSC rate");
		lv_close(&b->base);
		return NULL;
	}
	b->base.kind = o->tcg ? BACKEND_LIBVIRT_TCG : BACKEND_LIBVIRT;
	b->base.run = lv_run_variant;
	b->base.close = lv_close;
	b->base.remote_host = lv_remote_host;
	ple_probe_init(&b->ple);
	b->pv_host.tcg = o->tcg;
	/* a remote host's module is inferred from its capabilities (lv_host_info): missing
	 * PVM would let the guest kick, and the kick never returns */
	b->pv_host.pvm = !strcmp(b->lc.local ? b->ple.module : b->remote.kvm_module, "kvm_pvm");
	b->pv_host.pvm_inferred = b->pv_host.pvm && !b->lc.local;
	/* as for the kvm backend: ring 0 where it is native (Intel PLE counts only
	 * there), else ring 3; decided by the host the VMs run on, which for a
	 * remote URI is not this one; under TCG everything is emulated alike */
	b->base.default_ring = o->tcg ? PLERIG_RING_USER : kvm_default_ring(b->pv_host.pvm);
	snprintf(b->description, sizeof(b->description), "QEMU %s through libvirt (%s)",
		 o->tcg ? "TCG, EMULATED: no KVM, timings are not a machine's" : "with KVM",
		 b->lc.shown);
	b->base.description = b->description;
	return &b->base;
}
