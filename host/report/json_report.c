// SPDX-License-Identifier: GPL-2.0
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include "report/json_report.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli/run_options.h"
#include "plerig/histogram.h"

#ifndef PLERIG_VERSION
#define PLERIG_VERSION "0.1.0"
#endif

/* ---- values ----------------------------------------------------------- */

static void add(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

static void add_u64(json_object *o, const char *key, uint64_t v)
{
	add(o, key, json_object_new_uint64(v));
}

static void add_str(json_object *o, const char *key, const char *v)
{
	add(o, key, v ? json_object_new_string(v) : NULL);
}

/*
 * Shortest text that reads back as the same double, so 0.2 is written
 * as 0.2 and not 0.20000000000000001; always with a '.' or exponent so
 * that readers see a float even for whole values. NaN and infinities are
 * not JSON: they become null.
 */
static json_object *new_double(double v)
{
	char buf[40];

	if (!isfinite(v))
		return NULL;
	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof(buf), "%.17g", v);
	if (!strpbrk(buf, ".eE"))
		strcat(buf, ".0");
	return json_object_new_double_s(v, buf);
}

static void add_double(json_object *o, const char *key, double v)
{
	add(o, key, new_double(v));
}

/* ---- structure -------------------------------------------------------- */

static json_object *host_json(void)
{
	json_object *host = json_object_new_object();
	struct utsname u;
	cpu_set_t set;
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	add_str(host, "kernel", uname(&u) == 0 ? u.release : NULL);
	/* as nproc(1): the CPUs this process may use */
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		add(host, "cpus", json_object_new_int(CPU_COUNT(&set)));
	else
		add(host, "cpus", online > 0 ? json_object_new_int64(online) : NULL);
	add(host, "cpus_online", online > 0 ? json_object_new_int64(online) : NULL);
	return host;
}

static json_object *timing_json(const struct run_timing *t)
{
	json_object *o = json_object_new_object();

	add_u64(o, "created_ns", t->created_ns);
	add_u64(o, "ready_ns", t->ready_ns);
	add_u64(o, "first_acq_ns", t->first_acq_ns);
	add_u64(o, "stopped_ns", t->stopped_ns);
	add_u64(o, "torn_down_ns", t->torn_down_ns);
	add_u64(o, "setup_insn_emulated", t->setup_insn_emulated);
	return o;
}

static json_object *exits_json(const struct figures *f)
{
	return f->exits_valid ? json_object_new_uint64(f->exits) : NULL;
}

static json_object *summary_json(const struct variant_result *r)
{
	json_object *o = json_object_new_object();
	struct figures f;

	figures_for_variant(r, &f);
	add_u64(o, "acquisitions", f.acquisitions);
	add_double(o, "acq_per_s", f.acq_per_s);
	add_double(o, "wait_p50_ns", f.wait_p50_ns);
	add_double(o, "wait_p99_ns", f.wait_p99_ns);
	add_double(o, "wait_max_ns", f.wait_max_ns);
	add_double(o, "wait_mean_ns", f.wait_mean_ns);
	add_double(o, "hold_p50_ns", f.hold_p50_ns);
	add_double(o, "hold_max_ns", f.hold_max_ns);
	add_u64(o, "stalls", f.stalls);
	add_double(o, "stalled_ns", f.stalled_ns);
	add_double(o, "stalled_share", f.stalled_share);
	add_u64(o, "holder_preemptions", f.holder_preemptions);
	add_double(o, "run_delay_ns", f.run_delay_ns);
	add_double(o, "run_delay_share", f.run_delay_share);
	add_double(o, "run_time_ns", f.run_time_ns);
	add(o, "exits", exits_json(&f));
	add(o, "exits_valid", json_object_new_boolean(f.exits_valid));
	return o;
}

/* Only the non-empty buckets: a histogram has ~500, a run fills a dozen. */
static json_object *histogram_json(const uint64_t *hist)
{
	json_object *o = json_object_new_object();
	json_object *buckets = json_object_new_array();

	for (unsigned b = 0; b < PLERIG_HIST_BUCKETS; b++) {
		if (!hist[b])
			continue;
		json_object *pair = json_object_new_array();
		json_object_array_add(pair, json_object_new_uint64(plerig_hist_bucket_low(b)));
		json_object_array_add(pair, json_object_new_uint64(hist[b]));
		json_object_array_add(buckets, pair);
	}
	add_str(o, "unit", "tsc_cycles");
	add(o, "buckets", buckets);
	return o;
}

static json_object *kvm_stats_json(const struct kvm_stats_snapshot *s)
{
	json_object *o = json_object_new_object();

	for (int i = 0; i < KVM_STAT_COUNT; i++)
		if (s->valid[i])
			add_u64(o, kvm_stat_name((enum kvm_vcpu_stat)i), s->value[i]);
	return o;
}

static json_object *vcpu_json(const struct variant_result *r, const struct vcpu_record *rec)
{
	json_object *o = json_object_new_object();
	struct figures f;

	figures_for_vcpu(r, rec, &f);
	add(o, "vcpu", json_object_new_int64(rec->vcpu));
	add(o, "host_cpu", rec->host_cpu >= 0 ? json_object_new_int(rec->host_cpu) : NULL);
	add(o, "tid", json_object_new_int64(rec->tid));
	add_u64(o, "acquisitions", f.acquisitions);
	add_u64(o, "unmeasured_acquisitions", rec->guest.unmeasured_acquisitions);
	add_u64(o, "contended", rec->guest.contended);
	add_u64(o, "stalls", f.stalls);
	add_double(o, "stalled_ns", f.stalled_ns);
	add_double(o, "wait_p50_ns", f.wait_p50_ns);
	add_double(o, "wait_p99_ns", f.wait_p99_ns);
	add_double(o, "wait_max_ns", f.wait_max_ns);
	add_double(o, "wait_mean_ns", f.wait_mean_ns);
	add_double(o, "hold_p50_ns", f.hold_p50_ns);
	add_double(o, "hold_max_ns", f.hold_max_ns);
	add_u64(o, "holder_preemptions", f.holder_preemptions);
	add_double(o, "run_delay_ns", f.run_delay_ns);
	add_double(o, "run_time_ns", f.run_time_ns);
	add_u64(o, "timeslices", rec->sched.timeslices);
	add(o, "exits", exits_json(&f));
	add(o, "kvm_stats", kvm_stats_json(&rec->kvm));
	add(o, "wait_histogram", histogram_json(rec->guest.hist_wait));
	add(o, "hold_histogram", histogram_json(rec->guest.hist_hold));
	return o;
}

static json_object *vm_json(const struct variant_result *r, unsigned vm)
{
	json_object *o = json_object_new_object();
	json_object *vcpus = json_object_new_array();

	add(o, "vm", json_object_new_int64(vm));
	add(o, "protected_counter",
	    r->protected_counter ? json_object_new_uint64(r->protected_counter[vm]) : NULL);
	for (unsigned i = 0; i < r->nr_records; i++)
		if (r->records[i].vm == vm)
			json_object_array_add(vcpus, vcpu_json(r, &r->records[i]));
	add(o, "vcpus", vcpus);
	return o;
}

/* VMs that have records; a run that failed before any vCPU ran has none. */
static unsigned nr_vms(const struct variant_result *r)
{
	unsigned n = 0;

	for (unsigned i = 0; i < r->nr_records; i++)
		if (r->records[i].vm + 1 > n)
			n = r->records[i].vm + 1;
	/* protected_counter is indexed by VM: do not read past the run's VMs */
	if (r->protected_counter && n > r->variant.vms)
		n = r->variant.vms;
	return n;
}

static void add_variant_identity(json_object *o, const struct variant *v)
{
	char pcpus[PLERIG_MAX_PCPUS * 6];

	cpulist_format(v->pcpus, v->nr_pcpus, pcpus, sizeof(pcpus));
	add_str(o, "backend", backend_name(v->backend));
	add_str(o, "lock", lock_name(v->lock));
	add_str(o, "relax", relax_name(v->relax));
	add_str(o, "ring", ring_name(v->ring));
	add(o, "vms", json_object_new_int64(v->vms));
	add(o, "vcpus", json_object_new_int64(v->vcpus));
	add_str(o, "pcpus", pcpus);
	add_str(o, "pin", v->pin_each ? "each" : "float");
	add_u64(o, "cs_cycles", v->cs_cycles);
	add_u64(o, "think_cycles", v->think_cycles);
	add_double(o, "stall_us", v->stall_us);
	add_double(o, "warmup_s", v->warmup_s);
	add_double(o, "duration_s", v->duration_s);
}

static json_object *variant_json(const struct variant_result *r)
{
	json_object *o = json_object_new_object();
	json_object *vms = json_object_new_array();
	unsigned n = nr_vms(r);

	add_variant_identity(o, &r->variant);
	add(o, "ok", json_object_new_boolean(r->ok));
	if (!r->ok)
		add_str(o, "error", r->error);
	add_double(o, "interval_s", r->interval_s);
	add_u64(o, "tsc_khz", r->tsc_khz);
	add(o, "timing", timing_json(&r->timing));
	/* figures of a failed run would look like results: leave them out */
	add(o, "summary", r->ok ? summary_json(r) : NULL);
	for (unsigned vm = 0; vm < n; vm++)
		json_object_array_add(vms, vm_json(r, vm));
	/* not "vms": that key already holds the VM count, as "vcpus" does */
	add(o, "vm_results", vms);
	return o;
}

static json_object *report_json(const struct variant_result *results, unsigned nr,
				const char *command_line)
{
	json_object *root = json_object_new_object();
	json_object *variants = json_object_new_array();

	add_str(root, "schema", JSON_REPORT_SCHEMA);
	add(root, "schema_version", json_object_new_int(JSON_REPORT_SCHEMA_VERSION));
	add_str(root, "plerig_version", PLERIG_VERSION);
	add_str(root, "command_line", command_line);
	add(root, "host", host_json());
	for (unsigned i = 0; i < nr; i++)
		json_object_array_add(variants, variant_json(&results[i]));
	add(root, "variants", variants);
	return root;
}

/* ---- output ----------------------------------------------------------- */

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errlen == 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_stdout(const char *text, char *err, size_t errlen)
{
	if (fputs(text, stdout) == EOF || fputc('\n', stdout) == EOF || fflush(stdout) == EOF)
		return fail(err, errlen, "cannot write JSON to stdout: %s", strerror(errno));
	return 0;
}

/*
 * A fresh name next to @path (so rename() stays within one file system),
 * created exclusively with 0666 so that the umask applies as for any file.
 */
static int create_temp(const char *path, char *tmp, size_t len)
{
	for (unsigned attempt = 0; attempt < 100; attempt++) {
		snprintf(tmp, len, "%s.%ld.%u.tmp", path, (long)getpid(), attempt);
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

static int write_file(const char *path, const char *text, char *err, size_t errlen)
{
	size_t tmp_len = strlen(path) + 32;
	char *tmp = malloc(tmp_len);
	int fd, saved;

	if (!tmp)
		return fail(err, errlen, "cannot write '%s': %s", path, strerror(ENOMEM));
	fd = create_temp(path, tmp, tmp_len);
	if (fd < 0) {
		saved = errno;
		fail(err, errlen, "cannot write '%s': %s (creating '%s')", path, strerror(saved),
		     tmp);
		free(tmp);
		return -1;
	}
	/* fsync before rename: after a crash, the old file or the whole new one */
	if (write_all(fd, text, strlen(text)) || write_all(fd, "\n", 1) || fsync(fd)) {
		saved = errno;
		close(fd);
		goto fail_unlink;
	}
	if (close(fd) || rename(tmp, path)) {
		saved = errno;
		goto fail_unlink;
	}
	free(tmp);
	return 0;

fail_unlink:
	unlink(tmp);
	free(tmp);
	return fail(err, errlen, "cannot write '%s': %s", path, strerror(saved));
}

int json_report_write(const char *path, const struct variant_result *results, unsigned nr,
		      const char *command_line, char *err, size_t errlen)
{
	json_object *root;
	const char *text;
	int rc;

	if (!path || !*path)
		return fail(err, errlen, "cannot write JSON: no file name");
	root = report_json(results, nr, command_line);
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text)
		rc = fail(err, errlen, "cannot write '%s': out of memory", path);
	else if (strcmp(path, "-") == 0)
		rc = write_stdout(text, err, errlen);
	else
		rc = write_file(path, text, err, errlen);
	json_object_put(root);
	return rc;
}
