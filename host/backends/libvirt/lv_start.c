// SPDX-License-Identifier: GPL-2.0
/*
 * A variant's domains on the libvirt backend: the guest's config (in the
 * run directory, a volume of the remote pool, or inline in the XML), a
 * domain per VM from the template, recorded for a later plerig should
 * this one be killed, all started paused at once, then resumed.
 */
#include "backends/libvirt/lv_run.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/guest_config.h"
#include "backends/placement.h"
#include "backends/run_result.h"
#include "backends/libvirt/domain_owner.h"
#include "backends/libvirt/domain_xml.h"
#include "backends/libvirt/process_tag.h"
#include "util/errbuf.h"

#define MEMORY_MIB 32 /* the shared block ends at 16 MiB, the report window at 18 */

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
	if (!process_tag(d->qemu_pid, tag, sizeof(tag)))
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

int lv_start_domains(struct lv_run *run)
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

int lv_start_resume(struct lv_run *run)
{
	char err[ERRBUF_SIZE];
	for (unsigned i = 0; i < run->nr_doms; i++)
		if (lv_domain_resume(&run->doms[i], err, sizeof(err)))
			return run_fail(run->r, "%s", err);
	return 0;
}
