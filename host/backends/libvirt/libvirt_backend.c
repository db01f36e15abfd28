// SPDX-License-Identifier: GPL-2.0
/*
 * One variant on the libvirt backend: a transient domain per VM, created
 * paused and resumed together; the guest reads its config from fw_cfg,
 * times its own phases, and writes its results to the serial log; the
 * host snapshots its own figures (vCPU thread schedstat, or libvirt's
 * where QEMU runs on another host; KVM stats from libvirt) around the measured interval it expects
 * the guest to keep, waits for every report, and destroys the domains and their files on every
 * path.
 */
#include "backends/libvirt/libvirt_backend.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/guest_config.h"
#include "backends/guest_figures.h"
#include "backends/guest_status.h"
#include "backends/placement.h"
#include "backends/run_exit_timers.h"
#include "backends/run_result.h"
#include "measure/kvm_system.h"
#include "backends/libvirt/connection.h"
#include "backends/libvirt/domain_owner.h"
#include "backends/libvirt/domain_xml.h"
#include "backends/libvirt/lv_domain.h"
#include "backends/libvirt/lv_host_info.h"
#include "backends/libvirt/lv_pv.h"
#include "backends/libvirt/orphans.h"
#include "backends/libvirt/probe_cpu.h"
#include "backends/libvirt/remote_pool.h"
#include "backends/libvirt/run_dir.h"
#include "measure/tsc.h"
#include "util/cache_dir.h"
#include "util/clock.h"
#include "util/data_path.h"
#include "util/errbuf.h"
#include "util/interrupt.h"

#define MEMORY_MIB	  32	      /* the shared block ends at 16 MiB, the report window at 18 */
#define POLL_BOOT_NS	  1000000ull  /* until every hello: boot is short, its end is a figure */
#define POLL_RUN_NS	  20000000ull /* while the guests run: stay out of their way */
#define AP_BOOT_MARGIN_NS 5000000ull  /* hello -> storm open: the other vCPUs boot (~3 ms) */
#define TEMPLATE_MAX	  65536
#define IMAGE_MAX	  (64u << 20)
#define SERIAL_LOGS_KEPT  32
#define SERIAL_LOG_MAX	  (16u << 20)
#define QEMU_LOGS_KEPT	  32 /* plerig-*.log of the embedded driver: the newest are kept */
/*
 * QEMU's build for microvm alone (Debian's qemu-system-x86 has it): 10
 * shared libraries to load where the full one has 51, and about half its
 * CPU time from exec to an answering monitor (13 against 27 ms here),
 * which is most of a libvirt start on a busy host. KVM only, and no
 * isa-debug-exit device (domain_xml.c). Where it is not, libvirt's QEMU.
 */
#define MICROVM_QEMU "/usr/bin/qemu-system-x86_64-microvm"

struct lv_backend {
	struct backend base; /* first: the runner sees only this */
	struct lv_connection lc;
	bool tcg;
	const char *emulator; /* MICROVM_QEMU, or NULL: libvirt's default */
	char *template_text;
	char guest_path[PATH_MAX];
	char cache[PATH_MAX]; /* --cache-dir, absolute: damaged serial logs are kept there */
	uint64_t tsc_khz;
	struct ple_probe ple; /* where PAUSE-loop exit counts come from on this host */
	struct lv_pv_host pv_host;
	/* domains whose QEMU plerig ended itself, left to libvirt until close */
	virDomainPtr *settling;
	unsigned nr_settling;
	char description[sizeof(((struct lv_connection *)0)->uri) + 160];
	struct host_info remote; /* the machine QEMU runs on, when not this one */
	/* QEMU on another host: guest image and configs go there as volumes of a
	 * pool of our own, results come back through the console (remote_pool.h) */
	bool ship;
	struct lv_pool pool;
	char guest_remote[PATH_MAX]; /* the guest image's volume there */
};

struct lv_run {
	struct lv_backend *b;
	const struct variant *v;
	struct variant_result *r;
	struct run_dir dir;
	struct lv_domain *doms;
	unsigned nr_doms; /* initialised so far */
	unsigned number;  /* lv_run_number(): in its domains' names and owner elements */
	uint64_t t0;
	char config_vol[32];	  /* the run's config volume on the remote host, "" when none */
	struct plerig_config cfg; /* what the guests were given */
	struct run_exit_timers exit_timers; /* --exit-times, on QEMU's vCPU threads */
};

static uint64_t since_start(const struct lv_run *run)
{
	return monotonic_ns() - run->t0;
}

static uint64_t seconds_to_cycles(double s, uint64_t khz)
{
	return (uint64_t)(s * (double)khz * 1000.0);
}

static void make_config(const struct lv_run *run, struct plerig_config *cfg)
{
	const struct variant *v = run->v;
	const uint64_t khz = run->b->tsc_khz;
	guest_config_fill(cfg, v);
	guest_config_set_tsc(cfg, v, khz);
	cfg->flags = PLERIG_CONFIG_SELF_TIMED | PLERIG_CONFIG_SERIAL_RESULTS;
	cfg->warmup_cycles = seconds_to_cycles(v->warmup_s, khz);
	cfg->measure_cycles = seconds_to_cycles(v->duration_s, khz);
	cfg->wait_cycles = seconds_to_cycles(v->timeout_s, khz);
}

/*
 * What a later plerig needs should this one be killed (backends/libvirt/orphans.h):
 * the domain's name and the embedded driver's root, before it exists.
 */
static int record_domain(struct lv_run *run, const struct lv_domain *d)
{
	char name[32], text[PATH_MAX + 96], err[ERRBUF_SIZE];
	snprintf(name, sizeof(name), "domain-%u", d->index);
	int n = snprintf(text, sizeof(text), "%s\n%s\n", d->name,
			 run->b->lc.embedded ? run->b->lc.root : "");
	if (n < 0 || (size_t)n >= sizeof(text) ||
	    run_dir_write(&run->dir, name, text, (size_t)n, err, sizeof(err)))
		return run_fail(run->r, "%s",
				n < 0 || (size_t)n >= sizeof(text) ? "path too long" : err);
	return 0;
}

/* ... and its QEMU, once known; the embedded driver's pid file covers the time before. */
static void record_qemu(struct lv_run *run, const struct lv_domain *d)
{
	char name[32], tag[64], err[ERRBUF_SIZE];
	snprintf(name, sizeof(name), "qemu-%u", d->index);
	if (!orphans_process_tag(d->qemu_pid, tag, sizeof(tag)))
		run_dir_write(&run->dir, name, tag, strlen(tag), err, sizeof(err));
}

/* One domain's start, on a thread of its own when there are several. */
struct start_job {
	struct lv_domain *d;
	virConnectPtr conn;
	bool autodestroy;
	const char *xml;
	int rc;
	char err[ERRBUF_SIZE];
};

static void *start_one(void *arg)
{
	struct start_job *j = arg;
	j->rc = lv_domain_create(j->d, j->conn, j->autodestroy, j->xml, j->err, sizeof(j->err));
	return NULL;
}

/*
 * Start every VM's domain (paused) at once: most of a start is QEMU's own
 * and libvirt waiting on it, which overlap. One after the other, N VMs
 * took N starts. 0, or -1 with the first failure in @err.
 */
static int start_all(struct lv_run *run, char **xmls, char *err, size_t errlen)
{
	const unsigned n = run->nr_doms;
	struct start_job *jobs = calloc(n, sizeof(*jobs));
	pthread_t *threads = calloc(n, sizeof(*threads));
	bool *threaded = calloc(n, sizeof(*threaded));
	if (!jobs || !threads || !threaded) {
		free(jobs), free(threads), free(threaded);
		return errbuf_printf(err, errlen, "out of memory for %u VMs", n);
	}
	for (unsigned i = 0; i < n; i++) {
		jobs[i] = (struct start_job){.d = &run->doms[i],
					     .conn = run->b->lc.conn,
					     .autodestroy = !run->b->lc.embedded,
					     .xml = xmls[i]};
		threaded[i] = n > 1 && !pthread_create(&threads[i], NULL, start_one, &jobs[i]);
		if (!threaded[i])
			start_one(&jobs[i]);
	}
	int rc = 0;
	for (unsigned i = 0; i < n; i++) {
		if (threaded[i])
			pthread_join(threads[i], NULL);
		if (jobs[i].rc && !rc)
			rc = errbuf_printf(err, errlen, "%s", jobs[i].err);
	}
	free(jobs), free(threads), free(threaded);
	return rc;
}

static int create_domains(struct lv_run *run)
{
	const struct variant *v = run->v;
	struct plerig_config cfg;
	char err[ERRBUF_SIZE], config[PATH_MAX];
	make_config(run, &cfg);
	lv_pv_config(&cfg, v, &run->b->pv_host, run->r);
	run->number = lv_run_number();
	run->cfg = cfg;
	char config_hex[2 * sizeof(cfg) + 1] = "";
	const bool inline_config = run->b->ship && !strstr(run->b->template_text, "@CONFIG@");
	if (inline_config) {
		/* in the domain XML: no volume to upload and delete, round trips to that host */
		for (size_t i = 0; i < sizeof(cfg); i++)
			snprintf(config_hex + 2 * i, 3, "%02x", ((const unsigned char *)&cfg)[i]);
		config[0] = '\0';
	} else if (run->b->ship) {
		snprintf(run->config_vol, sizeof(run->config_vol), "config-%u.bin", run->number);
		if (lv_pool_upload(&run->b->pool, run->config_vol, &cfg, sizeof(cfg), config,
				   sizeof(config), err, sizeof(err)))
			return run_fail(run->r, "%s", err);
	} else if (run_dir_write(&run->dir, "config.bin", &cfg, sizeof(cfg), err, sizeof(err)) ||
		   run_dir_file(&run->dir, "config.bin", config, sizeof(config)))
		return run_fail(run->r, "%s", err);
	unsigned *pins = calloc(v->vcpus, sizeof(*pins));
	run->doms = calloc(v->vms, sizeof(run->doms[0]));
	if (!pins || !run->doms) {
		free(pins);
		return run_fail(run->r, "out of memory for %u VMs", v->vms);
	}
	char **xmls = calloc(v->vms, sizeof(*xmls));
	int rc = xmls ? 0 : errbuf_printf(err, sizeof(err), "out of memory for %u VMs", v->vms);
	for (unsigned i = 0; i < v->vms && !rc; i++) {
		struct lv_domain *d = &run->doms[i];
		char serial[32];
		rc = lv_domain_init(d, i, v->vcpus, err, sizeof(err));
		run->nr_doms = i + 1;
		if (rc)
			break;
		snprintf(d->name, sizeof(d->name), "plerig-%d-%u-%u", (int)getpid(), run->number,
			 i);
		snprintf(serial, sizeof(serial), "serial-%u.log", i);
		if (run_dir_file(&run->dir, serial, d->serial_path, sizeof(d->serial_path))) {
			errbuf_printf(err, sizeof(err), "run directory path too long");
			rc = -1;
			break;
		}
		for (unsigned j = 0; j < v->vcpus; j++)
			pins[j] = (unsigned)placement_cpu(v, i * v->vcpus + j);
		char owner[256];
		const bool owned = !domain_owner_element(run->number, owner, sizeof(owner));
		const struct domain_spec spec = {
		    .name = d->name,
		    .tcg = run->b->tcg,
		    .pv_unhalt = !run->b->tcg,
		    .no_pause_exits = v->ple == PLE_OFF,
		    .memory_mib = MEMORY_MIB,
		    .vcpus = v->vcpus,
		    .pins = v->pin_each ? pins : NULL,
		    .cpuset = v->pcpus,
		    .nr_cpuset = v->nr_pcpus,
		    .emulator = run->b->emulator,
		    .kernel = run->b->ship ? run->b->guest_remote : run->b->guest_path,
		    .config = config,
		    .config_hex = inline_config ? config_hex : NULL,
		    .serial = run->b->ship ? NULL : d->serial_path,
		    .owner = owned ? owner : NULL,
		};
		xmls[i] = domain_xml_build(run->b->template_text, &spec, err, sizeof(err));
		rc = xmls[i] ? record_domain(run, d) : -1;
	}
	if (!rc)
		rc = start_all(run, xmls, err, sizeof(err));
	for (unsigned i = 0; xmls && i < v->vms; i++)
		free(xmls[i]);
	free(xmls);
	for (unsigned i = 0; i < run->nr_doms && !rc; i++) {
		struct lv_domain *d = &run->doms[i];
		if (run->b->ship)
			rc = lv_domain_open_console(d, run->b->lc.conn, err, sizeof(err));
		if (!rc && run->b->lc.local)
			rc = lv_domain_find_threads(d, run->b->lc.embedded ? run->b->lc.root : NULL,
						    err, sizeof(err));
		if (!rc && run->b->lc.local)
			lv_domain_start_reaper(d);
		if (!rc && d->qemu_pid > 0)
			record_qemu(run, d);
	}
	free(pins);
	return rc ? run_fail(run->r, "%s", err) : 0;
}

static int resume_all(struct lv_run *run)
{
	char err[ERRBUF_SIZE];
	for (unsigned i = 0; i < run->nr_doms; i++)
		if (lv_domain_resume(&run->doms[i], err, sizeof(err)))
			return run_fail(run->r, "%s", err);
	return 0;
}

static const char *config_error(uint32_t e)
{
	switch (e) {
	case PLERIG_CONFIG_ERR_NO_FW_CFG:
		return "the VM has no fw_cfg device";
	case PLERIG_CONFIG_ERR_NO_FILE:
		return "fw_cfg has no " PLERIG_FW_CFG_CONFIG " (check <sysinfo type='fwcfg'> in "
		       "the domain template)";
	case PLERIG_CONFIG_ERR_SIZE:
		return "the config file has the wrong size (guest and plerig from different "
		       "builds?)";
	case PLERIG_CONFIG_ERR_INVALID:
		return "the config is invalid (guest and plerig from different builds?)";
	case PLERIG_CONFIG_ERR_FLAGS:
		return "the config does not ask for a self-timed run with serial results";
	}
	return "unknown reason";
}

static int fail_fault(struct lv_run *run, const struct lv_domain *d, unsigned vcpu)
{
	char what[192];
	guest_fault_describe(&d->results[vcpu].fault, what, sizeof(what));
	return run_fail(run->r, "VM %u vCPU %u: %s", d->index, vcpu, what);
}

/* The first vCPU whose state is below @state, for a timeout message. */
static int fail_states(struct lv_run *run, const struct lv_domain *d, uint32_t state,
		       const char *what)
{
	for (unsigned i = 0; i < d->nr_vcpus; i++)
		if (d->results[i].state < state)
			return run_fail(run->r,
					"VM %u vCPU %u did not %s within %.1f s (guest "
					"state %s); vCPU 0 reported and powered off",
					d->index, i, what, run->v->timeout_s,
					guest_state_name(d->results[i].state));
	return run_fail(run->r, "VM %u: the guest says a vCPU did not %s", d->index, what);
}

/* A whole report arrived: is it a result, or a failure the guest reported? */
static int check_guest_end(struct lv_run *run, const struct lv_domain *d)
{
	const struct plerig_frame_end *e = &d->rep.end;
	for (unsigned i = 0; i < d->nr_vcpus; i++)
		if ((d->rep.vcpus_seen >> i & 1) && d->results[i].state == PLERIG_VCPU_FAULT)
			return fail_fault(run, d, i);
	switch (e->status) {
	case PLERIG_END_OK:
		return 0;
	case PLERIG_END_FAULT:
		return run_fail(run->r, "VM %u: the guest reported a fault without details",
				d->index);
	case PLERIG_END_BAD_CONFIG:
		return run_fail(run->r, "VM %u: %s", d->index, config_error(e->detail));
	case PLERIG_END_BOOT_TIMEOUT:
		return fail_states(run, d, PLERIG_VCPU_READY, "come up");
	case PLERIG_END_STOP_TIMEOUT:
		return fail_states(run, d, PLERIG_VCPU_DONE, "stop");
	}
	return run_fail(run->r, "VM %u: end status %u", d->index, e->status);
}

/* What @d's serial port sent: its log file, or what its console gave. */
static int serial_bytes(const struct lv_domain *d, unsigned char **data, size_t *n, char *err,
			size_t errlen)
{
	if (!d->console)
		return read_whole_file(d->serial_path, SERIAL_LOG_MAX, data, n, err, errlen);
	*data = malloc(d->console_len + 1);
	if (!*data)
		return errbuf_printf(err, errlen, "out of memory");
	memcpy(*data, d->console_buf, d->console_len);
	*n = d->console_len;
	return 0;
}

/*
 * A copy of @d's serial log in CACHE/failed-serial/NAME.serial.log (the
 * newest SERIAL_LOGS_KEPT kept), its path into @out; "(not kept: ...)" when
 * it cannot be copied.
 */
static void keep_serial_log(struct lv_run *run, const struct lv_domain *d, char *out, size_t len)
{
	char dir[PATH_MAX + 16], err[ERRBUF_SIZE] = "";
	unsigned char *data = NULL;
	size_t n = 0;
	snprintf(dir, sizeof(dir), "%s/failed-serial", run->b->cache);
	FILE *f = NULL;
	errno = ENAMETOOLONG;
	if (snprintf(out, len, "%s/%s.serial.log", dir, d->name) >= (int)len ||
	    (mkdir(dir, 0700) && errno != EEXIST) || serial_bytes(d, &data, &n, err, sizeof(err)) ||
	    !(f = fopen(out, "we")) || fwrite(data, 1, n, f) != n) {
		snprintf(out, len, "(not kept: %s)", err[0] ? err : strerror(errno));
		if (f)
			fclose(f);
		free(data);
		return;
	}
	fclose(f);
	free(data);
	orphans_trim_logs(dir, "plerig-", ".serial.log", SERIAL_LOGS_KEPT);
}

/* Anything wrong with a VM while waiting: corrupt log, early report, QEMU gone. */
static int check_domain(struct lv_run *run, struct lv_domain *d)
{
	if (d->status == SERIAL_CORRUPT) {
		/* the run directory goes at teardown: name a copy that stays */
		char kept[PATH_MAX + 64];
		keep_serial_log(run, d, kept, sizeof(kept));
		return run_fail(run->r, "VM %u: serial log %s: %s", d->index, kept,
				d->decode_error);
	}
	if (d->status == SERIAL_COMPLETE)
		return d->rep.end.status == PLERIG_END_OK ? 0 : check_guest_end(run, d);
	if (!lv_domain_active(d)) {
		lv_domain_poll_serial(d, monotonic_ns()); /* the last bytes before it stopped */
		if (d->status != SERIAL_INCOMPLETE)
			return check_domain(run, d);
		return run_fail(
		    run->r,
		    "VM %u: QEMU stopped before the guest sent its results (%zu bytes of serial "
		    "log%s); see the QEMU log of domain %s%s%s",
		    d->index, d->rep.used, d->rep.have_hello ? ", the guest had booted" : "",
		    d->name, run->b->lc.embedded ? " in " : "",
		    run->b->lc.embedded ? run->b->lc.root : "");
	}
	return 0;
}

enum wait_for { WAIT_HELLO, WAIT_END, WAIT_NOTHING };

static bool arrived(const struct lv_domain *d, enum wait_for what)
{
	return what == WAIT_HELLO ? d->hello_ns != 0 : what == WAIT_END ? d->end_ns != 0 : false;
}

/*
 * Poll every VM's serial log and liveness until @what arrived from all
 * (1), @deadline passed (0), or a VM failed or Ctrl-C came (-1).
 */
static int wait_all(struct lv_run *run, enum wait_for what, uint64_t deadline, uint64_t poll_ns)
{
	for (;;) {
		const uint64_t now = monotonic_ns();
		bool all = true;
		for (unsigned i = 0; i < run->nr_doms; i++) {
			struct lv_domain *d = &run->doms[i];
			lv_domain_poll_serial(d, now);
			if (check_domain(run, d))
				return -1;
			all = all && arrived(d, what);
		}
		run_exit_timers_drain(&run->exit_timers);
		if (interrupt_requested())
			return run_fail(run->r, "interrupted by signal %d", interrupt_signal());
		if (what != WAIT_NOTHING && all)
			return 1;
		if (now >= deadline)
			return 0;
		sleep_ns(deadline - now < poll_ns ? deadline - now : poll_ns);
	}
}

static int watchdog(struct lv_run *run, enum wait_for what)
{
	for (unsigned i = 0; i < run->nr_doms; i++)
		if (!arrived(&run->doms[i], what))
			return run_fail(
			    run->r,
			    what == WAIT_HELLO
				? "watchdog: VM %u did not boot within %.1f s (no hello on its "
				  "serial port); destroyed it"
				: "watchdog: VM %u sent no results within %.1f s of the end of "
				  "its measured interval; destroyed it",
			    i, run->v->timeout_s);
	return -1;
}

/* Boot: from resume to every guest's hello. */
static int boot(struct lv_run *run)
{
	const uint64_t deadline = monotonic_ns() + (uint64_t)(run->v->timeout_s * 1e9);
	int rc = wait_all(run, WAIT_HELLO, deadline, POLL_BOOT_NS);
	return rc > 0 ? 0 : rc == 0 ? watchdog(run, WAIT_HELLO) : -1;
}

/* Why run delay is n/a, or what a reader of it must know, from what the snapshots got. */
static void note_sched_source(struct lv_run *run, bool sched_ok, const char *stats_err)
{
	struct variant_result *r = run->r;
	if (run->b->lc.local && sched_ok)
		return;
	if (!sched_ok && !r->sched_why[0])
		errbuf_printf(
		    r->sched_why, sizeof(r->sched_why),
		    run->b->lc.local ? "the vCPU threads' /proc/TID/schedstat could not be read"
		    : stats_err[0]   ? "QEMU runs on another host and %s"
				     : "QEMU runs on another host and its libvirt reports no "
				       "vcpu.N.delay and vcpu.N.time",
		    stats_err);
	if (!run->b->lc.local) {
		r->timeslices_unknown = true;
		snprintf(
		    r->sched_note, sizeof(r->sched_note),
		    "from libvirt's domain stats of the host QEMU runs on (vcpu.N.delay in ns, "
		    "vcpu.N.time in whole scheduler ticks, 10 ms at USER_HZ 100)");
	}
}

/*
 * A VM whose QEMU exited before the host read its counters (the host was
 * late: its guest powers off a grace period after its results) has no run
 * delay, run time or exits for the interval: why, in the results' words.
 */
static void note_gone(struct lv_run *run, const char *when)
{
	struct variant_result *r = run->r;
	for (unsigned i = 0; i < run->nr_doms; i++) {
		if (lv_domain_active(&run->doms[i]))
			continue;
		char why[sizeof(r->sched_why)];
		snprintf(why, sizeof(why),
			 "VM %u's QEMU had exited when the host read its counters %s (the host "
			 "was late by more than the guest's %u ms between its results and its "
			 "power-off)",
			 i, when, PLERIG_POWER_OFF_GRACE_MS);
		if (!r->sched_why[0])
			snprintf(r->sched_why, sizeof(r->sched_why), "%s", why);
		if (!r->exits_why[0])
			snprintf(r->exits_why, sizeof(r->exits_why), "%s", why);
		return;
	}
}

static void snapshot_all(struct lv_run *run, struct ple_counters *c, struct counter_snapshot *s,
			 const char *when)
{
	const unsigned per = run->v->vcpus;
	struct lv_vcpu_stats *st = calloc((size_t)run->nr_doms * per, sizeof(*st));
	virDomainPtr *doms = calloc(run->nr_doms, sizeof(*doms));
	char err[ERRBUF_SIZE] = "";
	bool sched_ok = st && doms;
	for (unsigned i = 0; doms && i < run->nr_doms; i++)
		doms[i] = run->doms[i].dom;
	/* no stats (an old libvirt, TCG's missing KVM stats) are absent, not a failed run */
	if (st && doms && lv_stats_read(doms, run->nr_doms, per, st, err, sizeof(err)))
		memset(st, 0, (size_t)run->nr_doms * per * sizeof(*st));
	for (unsigned i = 0; st && i < run->nr_doms; i++)
		lv_domain_snapshot(&run->doms[i], run->b->lc.local, &st[i * per], &s[i * per],
				   &sched_ok);
	if (!sched_ok)
		note_gone(run, when);
	note_sched_source(run, sched_ok, st && doms ? err : "out of memory for stats");
	free(st);
	free(doms);
	for (unsigned g = 0; g < run->r->nr_records; g++) {
		if (c)
			ple_counters_read(&c[g], &s[g].ple);
		else
			memset(&s[g].ple, 0, sizeof(s[g].ple));
	}
}

/*
 * The guest keeps its own interval; the host brackets the same one with
 * its snapshots, from the last hello on (each VM opens its storm a few ms
 * after its hello, once its other vCPUs are up).
 */
/*
 * PAUSE-loop exits of QEMU's vCPU threads: another process, but root may
 * count its threads' tracepoints as it counts its own. Local QEMU only.
 */
static struct ple_counters *open_ple_counters(struct lv_run *run, unsigned n)
{
	const struct lv_backend *b = run->b;
	const char *why = NULL;
	if (b->tcg)
		why = "TCG: no KVM, no PAUSE-loop exits";
	else if (!b->lc.local)
		why = "QEMU runs on another host: its vCPU threads cannot be counted from here";
	else if (!b->ple.pause_exits_ok)
		why = b->ple.pause_exits_why;
	struct ple_counters *c = why ? NULL : calloc(n, sizeof(*c));
	if (!c) {
		snprintf(run->r->ple_why, sizeof(run->r->ple_why), "%s",
			 why ? why : "out of memory for counters");
		return NULL;
	}
	for (unsigned g = 0; g < n; g++) {
		const struct lv_domain *d = &run->doms[g / run->v->vcpus];
		run_open_ple_counters(run->r, &c[g], &b->ple, d->tids[g % run->v->vcpus]);
	}
	return c;
}

static void close_ple_counters(struct ple_counters *c, unsigned n)
{
	for (unsigned g = 0; c && g < n; g++)
		ple_counters_close(&c[g]);
	free(c);
}

/* Exit times of QEMU's vCPU threads: like its PAUSE-loop exits, local QEMU only. */
static void open_exit_timers(struct lv_run *run, unsigned n)
{
	struct variant_result *r = run->r;
	if (!run->v->exit_times || r->exit_times_why[0])
		return;
	if (!run->b->lc.local) {
		snprintf(r->exit_times_why, sizeof(r->exit_times_why),
			 "QEMU runs on another host: its vCPU threads cannot be timed from here");
		return;
	}
	run_exit_timers_prepare(&run->exit_timers, r, &run->b->ple);
	for (unsigned g = 0; g < n; g++) {
		const struct lv_domain *d = &run->doms[g / run->v->vcpus];
		run_exit_timers_open(&run->exit_timers, r, g, d->tids[g % run->v->vcpus]);
	}
}

static int measure(struct lv_run *run)
{
	const unsigned n = run->v->vms * run->v->vcpus;
	uint64_t last_hello = 0;
	for (unsigned i = 0; i < run->nr_doms; i++)
		if (run->doms[i].hello_ns > last_hello)
			last_hello = run->doms[i].hello_ns;
	struct interval_snapshots snap = {0};
	struct ple_counters *counters = open_ple_counters(run, n);
	int rc = -1;
	uint64_t t0;
	open_exit_timers(run, n);
	if (interval_snapshots_alloc(&snap, run->r))
		goto out;
	const uint64_t m0 = last_hello + AP_BOOT_MARGIN_NS + (uint64_t)(run->v->warmup_s * 1e9);
	if (wait_all(run, WAIT_NOTHING, m0, POLL_RUN_NS) < 0)
		goto out;
	if (!run->b->lc.local)
		snprintf(
		    run->r->foreign_why, sizeof(run->r->foreign_why),
		    "not measured: QEMU runs on another host, whose CPUs cannot be read from here");
	interval_snapshots_load(&snap, run->r, false);
	snapshot_all(run, counters, snap.before, "at the start of the interval");
	/* exits are timed between the snapshots: the exits stat holds all of them */
	t0 = monotonic_ns();
	run_exit_timers_interval(&run->exit_timers, run->r, t0, 0, NULL);
	const uint64_t m1 = m0 + (uint64_t)(run->v->duration_s * 1e9);
	if (wait_all(run, WAIT_NOTHING, m1, POLL_RUN_NS) < 0)
		goto out;
	const uint64_t t1 = monotonic_ns();
	snapshot_all(run, counters, snap.after, "at the end of the interval");
	interval_snapshots_load(&snap, run->r, true);
	interval_snapshots_delta(&snap, run->r);
	run_exit_timers_interval(&run->exit_timers, run->r, t0, t1,
				 run->b->ple.module[0] ? run->b->ple.module : "this host's KVM");
	for (unsigned g = 0; g < n; g++)
		if (snap.before[g].kvm.valid[KVM_STAT_INSN_EMULATION])
			run->r->timing.setup_insn_emulated +=
			    snap.before[g].kvm.value[KVM_STAT_INSN_EMULATION];
	const uint64_t deadline = monotonic_ns() + (uint64_t)(run->v->timeout_s * 1e9);
	int got = wait_all(run, WAIT_END, deadline, POLL_BOOT_NS);
	rc = got > 0 ? 0 : got == 0 ? watchdog(run, WAIT_END) : -1;
out:
	interval_snapshots_free(&snap);
	close_ple_counters(counters, n);
	run_exit_timers_close(&run->exit_timers);
	return rc;
}

/* Guest TSC -> ns since the run started, anchored at the hello frame's arrival. */
static uint64_t guest_time_ns(const struct lv_run *run, const struct lv_domain *d, uint64_t tsc)
{
	const double dt_ns =
	    ((double)(int64_t)(tsc - d->rep.hello.hello_tsc)) * 1e6 / (double)run->b->tsc_khz;
	return d->hello_ns - run->t0 + (uint64_t)(dt_ns > 0 ? dt_ns : 0);
}

static int collect(struct lv_run *run)
{
	const struct variant *v = run->v;
	struct variant_result *r = run->r;
	uint64_t opened = 0, ended = 0;
	for (unsigned i = 0; i < run->nr_doms; i++) {
		struct lv_domain *d = &run->doms[i];
		if (check_guest_end(run, d))
			return -1;
		for (unsigned j = 0; j < v->vcpus; j++) {
			struct vcpu_record *rec = &r->records[i * v->vcpus + j];
			rec->vm = i;
			rec->vcpu = j;
			rec->host_cpu = placement_cpu(v, i * v->vcpus + j);
			rec->tid = d->tids[j];
			rec->guest = d->results[j];
		}
		r->protected_counter[i] = d->rep.end.protected_counter;
		const uint64_t o = guest_time_ns(run, d, d->rep.end.start_tsc);
		opened = o > opened ? o : opened;
		ended = d->end_ns - run->t0 > ended ? d->end_ns - run->t0 : ended;
	}
	/* the storm opens when every vCPU is READY; its first acquisition follows at once */
	r->timing.ready_ns = opened;
	r->timing.first_acq_ns = opened;
	r->timing.stopped_ns = ended;
	r->interval_s = (double)v->duration_s;
	/* every VM has the same CPUID: VM 0 speaks for them */
	lv_pv_results(&run->cfg, v, &run->b->pv_host, run->doms[0].rep.end.kvm_features, r);
	return run_check_guest_figures(r);
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
	if (v->ple == PLE_OFF && run.b->tcg)
		return run_fail(r, "--ple off: TCG has no PAUSE interception to turn off");
	if (v->halt_poll_ns != HALT_POLL_HOST)
		/* libvirt 9.0 only reads halt polling (haltpoll.* stats), and QEMU 7.2's kvm
		 * accelerator has no property for KVM_CAP_HALT_POLL */
		return run_fail(r, "--halt-poll: n/a under libvirt: neither libvirt nor QEMU sets "
				   "halt polling per domain; use --halt-poll host there (plerig "
				   "sweep --param halt_poll_ns=... sets kvm's for the whole host)");
	r->tsc_khz = run.b->tsc_khz;
	run_note_ple(r, &run.b->ple);

	if (run_dir_create(&run.dir, err, sizeof(err)))
		run_fail(r, "%s", err);
	else if (!create_domains(&run)) {
		r->timing.created_ns = since_start(&run);
		if (!resume_all(&run) && !boot(&run) && !measure(&run))
			collect(&run);
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
