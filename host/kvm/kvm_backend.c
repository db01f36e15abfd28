// SPDX-License-Identifier: GPL-2.0
/*
 * One variant on the kvm backend: create the VMs, boot every vCPU to
 * READY, warm up, measure between two snapshots of the host-side
 * counters, stop, copy the results out, tear everything down.
 */
#include "kvm/kvm_backend.h"

#include <errno.h>
#include <sched.h>
#include <linux/kvm.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "kvm/elf_image.h"
#include "kvm/kvm_system.h"
#include "kvm/vm.h"
#include "util/clock.h"
#include "util/interrupt.h"

#define POLL_FAST_NS 20000ull	 /* while waiting for boot and the first acquisition */
#define POLL_SLOW_NS 50000000ull /* while measuring: the main thread must stay out of the way */

struct kvm_backend {
	struct backend base; /* first: the runner sees only this */
	struct kvm_system sys;
	cpu_set_t boot_cpus; /* every CPU this process may use: boot runs in parallel there */
	struct guest_image image;
	void *image_data;
	char description[96];
};

/* The state of one run, passed around instead of a dozen arguments. */
struct run {
	struct kvm_backend *kb;
	const struct variant *v;
	struct variant_result *r;
	struct kvm_vm *vms;
	unsigned nr_vms; /* created so far */
	struct start_gate gate;
	uint64_t t0;
	struct schedstat *sched_before;
	struct kvm_stats_snapshot *kvm_before;
};

static int run_fail(struct run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int run_fail(struct run *run, const char *fmt, ...)
{
	if (run->r->error[0]) /* keep the first cause */
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(run->r->error, sizeof(run->r->error), fmt, ap);
	va_end(ap);
	run->r->ok = false;
	return -1;
}

static uint64_t since_start(const struct run *run)
{
	return monotonic_ns() - run->t0;
}

static struct kvm_vcpu *vcpu_at(struct run *run, unsigned g)
{
	return &run->vms[g / run->v->vcpus].vcpus[g % run->v->vcpus];
}

static unsigned nr_vcpus_total(const struct run *run)
{
	return run->v->vms * run->v->vcpus;
}

static void make_config(const struct variant *v, struct plerig_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->magic = PLERIG_ABI_MAGIC;
	cfg->abi_version = PLERIG_ABI_VERSION;
	cfg->nr_vcpus = v->vcpus;
	cfg->lock = v->lock;
	cfg->relax = v->relax;
	cfg->ring = v->ring;
	cfg->inject = v->inject;
	cfg->cs_cycles = v->cs_cycles;
	cfg->think_cycles = v->think_cycles;
}

static int create_vms(struct run *run)
{
	struct plerig_config cfg;
	char err[256];
	make_config(run->v, &cfg);
	run->vms = calloc(run->v->vms, sizeof(run->vms[0]));
	if (!run->vms)
		return run_fail(run, "out of memory for %u VMs", run->v->vms);
	for (unsigned i = 0; i < run->v->vms; i++) {
		if (kvm_vm_create(&run->vms[i], &run->kb->sys, i, &run->kb->image, &cfg, err,
				  sizeof(err)))
			return run_fail(run, "%s", err);
		run->nr_vms = i + 1;
	}
	return 0;
}

/* Thresholds need the TSC rate, which needs a vCPU: set them before any runs. */
static int set_thresholds(struct run *run)
{
	int khz = ioctl(run->vms[0].vcpus[0].fd, KVM_GET_TSC_KHZ, 0);
	if (khz <= 0)
		return run_fail(run, "KVM_GET_TSC_KHZ: %s", khz < 0 ? strerror(errno) : "0 kHz");
	run->r->tsc_khz = (uint64_t)khz;
	const uint64_t stall = (uint64_t)(run->v->stall_us * (double)khz / 1000.0);
	for (unsigned i = 0; i < run->nr_vms; i++) {
		struct plerig_config *c = &run->vms[i].shared->config;
		c->tsc_khz = (uint64_t)khz;
		c->stall_cycles = stall;
		c->hold_preempt_cycles = stall;
	}
	return 0;
}

static int start_vcpus(struct run *run)
{
	const struct variant *v = run->v;
	char err[256];
	for (unsigned g = 0; g < nr_vcpus_total(run); g++) {
		const unsigned *cpus = v->pin_each ? &v->pcpus[g % v->nr_pcpus] : v->pcpus;
		if (kvm_vcpu_start(vcpu_at(run, g), &run->gate, &run->kb->boot_cpus, cpus,
				   v->pin_each ? 1 : v->nr_pcpus, err, sizeof(err)))
			return run_fail(run, "%s", err);
	}
	return 0;
}

/* A vCPU thread that left its run loop early failed (or was stopped). */
static int check_vcpus(struct run *run)
{
	for (unsigned g = 0; g < nr_vcpus_total(run); g++) {
		struct kvm_vcpu *vcpu = vcpu_at(run, g);
		int outcome = kvm_vcpu_outcome(vcpu);
		if (outcome == VCPU_OUTCOME_FAILED)
			return run_fail(run, "%s", vcpu->message);
		if (outcome == VCPU_OUTCOME_DONE &&
		    run->vms[g / run->v->vcpus].shared->phase != PLERIG_PHASE_STOP)
			return run_fail(run, "VM %u vCPU %u finished before it was told to stop",
					g / run->v->vcpus, g % run->v->vcpus);
	}
	if (interrupt_requested())
		return run_fail(run, "interrupted by signal %d", interrupt_signal());
	return 0;
}

static uint32_t guest_state(struct run *run, unsigned g)
{
	const struct kvm_vm *vm = &run->vms[g / run->v->vcpus];
	return __atomic_load_n(&vm->shared->vcpu[g % run->v->vcpus].state, __ATOMIC_ACQUIRE);
}

static bool all_ready(struct run *run)
{
	for (unsigned g = 0; g < nr_vcpus_total(run); g++)
		if (!kvm_vcpu_is_ready(vcpu_at(run, g)))
			return false;
	return true;
}

static bool any_acquired(struct run *run)
{
	for (unsigned g = 0; g < nr_vcpus_total(run); g++) {
		const struct plerig_vcpu_result *res =
		    &run->vms[g / run->v->vcpus].shared->vcpu[g % run->v->vcpus];
		if (__atomic_load_n(&res->unmeasured_acquisitions, __ATOMIC_RELAXED) ||
		    __atomic_load_n(&res->acquisitions, __ATOMIC_RELAXED))
			return true;
	}
	return false;
}

static bool all_done(struct run *run)
{
	for (unsigned g = 0; g < nr_vcpus_total(run); g++)
		if (kvm_vcpu_outcome(vcpu_at(run, g)) != VCPU_OUTCOME_DONE)
			return false;
	return true;
}

/*
 * Poll @done every @poll_ns until it holds (1), or @deadline passes (0),
 * or a vCPU fails or Ctrl-C comes (-1).
 */
static int wait_for(struct run *run, bool (*done)(struct run *), uint64_t deadline,
		    uint64_t poll_ns)
{
	for (;;) {
		if (done && done(run))
			return 1;
		if (check_vcpus(run))
			return -1;
		uint64_t now = monotonic_ns();
		if (now >= deadline)
			return 0;
		sleep_ns(deadline - now < poll_ns ? deadline - now : poll_ns);
	}
}

static void set_phase(struct run *run, enum plerig_phase phase)
{
	for (unsigned i = 0; i < run->nr_vms; i++)
		__atomic_store_n(&run->vms[i].shared->phase, phase, __ATOMIC_RELEASE);
}

static void snapshot(struct run *run, struct schedstat *sched, struct kvm_stats_snapshot *kvm)
{
	char err[256];
	for (unsigned g = 0; g < nr_vcpus_total(run); g++) {
		struct kvm_vcpu *vcpu = vcpu_at(run, g);
		/* an unreadable counter is reported as invalid, not as a failed run */
		if (schedstat_read(kvm_vcpu_tid(vcpu), &sched[g], err, sizeof(err)))
			memset(&sched[g], 0, sizeof(sched[g]));
		if (!vcpu->stats_open || kvm_stats_read(&vcpu->stats, &kvm[g], err, sizeof(err)))
			memset(&kvm[g], 0, sizeof(kvm[g]));
	}
}

static const char *state_name(uint32_t s)
{
	static const char *const names[] = {"OFF", "READY", "RUNNING", "DONE", "FAULT"};
	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

static int report_hang(struct run *run, const char *stage, double seconds)
{
	for (unsigned g = 0; g < nr_vcpus_total(run); g++) {
		if (kvm_vcpu_outcome(vcpu_at(run, g)) == VCPU_OUTCOME_DONE)
			continue;
		return run_fail(
		    run,
		    "watchdog: VM %u vCPU %u did not %s within %.1f s (guest state %s); "
		    "stopped it",
		    g / run->v->vcpus, g % run->v->vcpus, stage, seconds,
		    state_name(guest_state(run, g)));
	}
	return run_fail(run, "watchdog: the VMs did not %s within %.1f s", stage, seconds);
}

static int boot(struct run *run)
{
	const uint64_t timeout = (uint64_t)(run->v->timeout_s * 1e9);
	int rc = wait_for(run, all_ready, monotonic_ns() + timeout, POLL_FAST_NS);
	if (rc == 0)
		return report_hang(run, "come up", run->v->timeout_s);
	if (rc < 0)
		return -1;
	run->r->timing.ready_ns = since_start(run);
	uint64_t emulated = 0;
	struct kvm_stats_snapshot s;
	char err[256];
	for (unsigned g = 0; g < nr_vcpus_total(run); g++)
		if (vcpu_at(run, g)->stats_open &&
		    !kvm_stats_read(&vcpu_at(run, g)->stats, &s, err, sizeof(err)) &&
		    s.valid[KVM_STAT_INSN_EMULATION])
			emulated += s.value[KVM_STAT_INSN_EMULATION];
	run->r->timing.setup_insn_emulated = emulated;
	return 0;
}

static int warm_up(struct run *run)
{
	const uint64_t start = monotonic_ns();
	const uint64_t end = start + (uint64_t)(run->v->warmup_s * 1e9);
	const uint64_t first_deadline = start + (uint64_t)(run->v->timeout_s * 1e9);
	set_phase(run, PLERIG_PHASE_WARMUP);
	start_gate_open(&run->gate);
	/* the first acquisition may need longer than the warm-up itself */
	int rc =
	    wait_for(run, any_acquired, first_deadline > end ? first_deadline : end, POLL_FAST_NS);
	if (rc == 0)
		return report_hang(run, "take the lock once", run->v->timeout_s);
	if (rc < 0)
		return -1;
	run->r->timing.first_acq_ns = since_start(run);
	return wait_for(run, NULL, end, POLL_SLOW_NS) < 0 ? -1 : 0;
}

static int measure(struct run *run)
{
	const unsigned n = nr_vcpus_total(run);
	struct schedstat *sched_after = calloc(n, sizeof(*sched_after));
	struct kvm_stats_snapshot *kvm_after = calloc(n, sizeof(*kvm_after));
	run->sched_before = calloc(n, sizeof(*run->sched_before));
	run->kvm_before = calloc(n, sizeof(*run->kvm_before));
	int rc = -1;
	if (!sched_after || !kvm_after || !run->sched_before || !run->kvm_before) {
		run_fail(run, "out of memory for snapshots");
		goto out;
	}
	snapshot(run, run->sched_before, run->kvm_before);
	const uint64_t m0 = monotonic_ns();
	set_phase(run, PLERIG_PHASE_MEASURE);
	if (wait_for(run, NULL, m0 + (uint64_t)(run->v->duration_s * 1e9), POLL_SLOW_NS) < 0)
		goto out;
	const uint64_t m1 = monotonic_ns();
	snapshot(run, sched_after, kvm_after);
	set_phase(run, PLERIG_PHASE_STOP);
	run->r->interval_s = (double)(m1 - m0) / 1e9;
	for (unsigned g = 0; g < n; g++) {
		struct vcpu_record *rec = &run->r->records[g];
		schedstat_delta(&run->sched_before[g], &sched_after[g], &rec->sched);
		kvm_stats_delta(&run->kvm_before[g], &kvm_after[g], &rec->kvm);
	}
	rc = 0;
out:
	free(sched_after);
	free(kvm_after);
	free(run->sched_before);
	free(run->kvm_before);
	run->sched_before = NULL;
	run->kvm_before = NULL;
	return rc;
}

static int stop(struct run *run)
{
	const uint64_t timeout = (uint64_t)(run->v->timeout_s * 1e9);
	int rc = wait_for(run, all_done, monotonic_ns() + timeout, POLL_FAST_NS);
	if (rc == 0)
		return report_hang(run, "stop", run->v->timeout_s);
	if (rc < 0)
		return -1;
	run->r->timing.stopped_ns = since_start(run);
	return 0;
}

static void collect(struct run *run)
{
	for (unsigned g = 0; g < nr_vcpus_total(run); g++) {
		struct kvm_vcpu *vcpu = vcpu_at(run, g);
		struct vcpu_record *rec = &run->r->records[g];
		rec->vm = g / run->v->vcpus;
		rec->vcpu = g % run->v->vcpus;
		rec->host_cpu = vcpu->host_cpu;
		rec->tid = kvm_vcpu_tid(vcpu);
		rec->guest = run->vms[rec->vm].shared->vcpu[rec->vcpu];
	}
	for (unsigned i = 0; i < run->nr_vms; i++)
		run->r->protected_counter[i] = run->vms[i].shared->lock.protected_counter;
}

static int check_mutual_exclusion(struct run *run)
{
	for (unsigned i = 0; i < run->nr_vms; i++) {
		uint64_t sum = 0;
		for (unsigned j = 0; j < run->v->vcpus; j++) {
			const struct plerig_vcpu_result *res = &run->vms[i].shared->vcpu[j];
			sum += res->acquisitions + res->unmeasured_acquisitions;
		}
		if (sum != run->r->protected_counter[i])
			return run_fail(
			    run,
			    "VM %u: the lock did not exclude: %llu acquisitions but the "
			    "protected counter reads %llu",
			    i, (unsigned long long)sum,
			    (unsigned long long)run->r->protected_counter[i]);
	}
	return 0;
}

static void teardown(struct run *run)
{
	for (unsigned i = 0; i < run->nr_vms; i++)
		for (unsigned j = 0; j < run->vms[i].nr_vcpus; j++)
			if (kvm_vcpu_outcome(&run->vms[i].vcpus[j]) == VCPU_OUTCOME_NONE)
				kvm_vcpu_kick(&run->vms[i].vcpus[j]);
	for (unsigned i = 0; i < run->nr_vms; i++)
		kvm_vm_destroy(&run->vms[i]);
	free(run->vms);
	run->vms = NULL;
	run->nr_vms = 0;
}

static int alloc_result(struct variant_result *r, const struct variant *v)
{
	memset(r, 0, sizeof(*r));
	r->variant = *v;
	r->nr_records = v->vms * v->vcpus;
	r->records = calloc(r->nr_records, sizeof(r->records[0]));
	r->protected_counter = calloc(v->vms, sizeof(r->protected_counter[0]));
	if (!r->records || !r->protected_counter) {
		snprintf(r->error, sizeof(r->error), "out of memory for %u vCPU records",
			 r->nr_records);
		return -1;
	}
	return 0;
}

static int kvm_run_variant(struct backend *b, const struct variant *v, struct variant_result *r)
{
	struct run run = {.kb = (struct kvm_backend *)b, .v = v, .r = r, .t0 = monotonic_ns()};
	if (alloc_result(r, v))
		return -1;
	start_gate_init(&run.gate);
	r->ok = true;
	if (!create_vms(&run) && !set_thresholds(&run)) {
		r->timing.created_ns = since_start(&run);
		if (!start_vcpus(&run) && !boot(&run) && !warm_up(&run) && !measure(&run) &&
		    !stop(&run)) {
			collect(&run);
			check_mutual_exclusion(&run);
		}
	}
	teardown(&run);
	start_gate_destroy(&run.gate);
	r->timing.torn_down_ns = since_start(&run);
	return r->ok ? 0 : -1;
}

static void kvm_close(struct backend *b)
{
	struct kvm_backend *kb = (struct kvm_backend *)b;
	kvm_system_close(&kb->sys);
	free(kb->image_data);
	free(kb);
}

/* A bad image is bad input: say so once, before any VM exists. */
static int validate_image(const char *path, const void *data, size_t size, char *err, size_t errlen)
{
	uint8_t *scratch = calloc(1, PLERIG_GUEST_MEM_SIZE);
	struct elf_image_info info;
	char why[192];
	int rc = -1;
	if (!scratch)
		snprintf(err, errlen, "out of memory validating %s", path);
	else if (elf_image_load(data, size, scratch, 0, PLERIG_GUEST_MEM_SIZE, PLERIG_IMAGE_BASE,
				PLERIG_SHARED_GPA, &info, why, sizeof(why)))
		snprintf(err, errlen, "guest image %s: %s (rebuild it with make, or pass --guest)",
			 path, why);
	else if (!info.pvh_entry)
		snprintf(err, errlen,
			 "guest image %s has no PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY): "
			 "not a plerig guest",
			 path);
	else
		rc = 0;
	free(scratch);
	return rc;
}

struct backend *kvm_backend_open(const char *guest_path, char *err, size_t errlen)
{
	struct kvm_backend *kb = calloc(1, sizeof(*kb));
	if (!kb) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* /dev/kvm first: without it, nothing about the image matters */
	if (kvm_vcpu_install_kick_signal(err, errlen) || kvm_system_open(&kb->sys, err, errlen)) {
		free(kb);
		return NULL;
	}
	if (elf_image_read_file(guest_path, &kb->image_data, &kb->image.size, err, errlen) ||
	    validate_image(guest_path, kb->image_data, kb->image.size, err, errlen)) {
		kvm_system_close(&kb->sys);
		free(kb->image_data);
		free(kb);
		return NULL;
	}
	if (sched_getaffinity(0, sizeof(kb->boot_cpus), &kb->boot_cpus)) {
		snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno));
		kvm_close(&kb->base);
		return NULL;
	}
	kb->image.data = kb->image_data;
	kb->image.path = guest_path;
	kb->base.kind = BACKEND_KVM;
	kb->base.run = kvm_run_variant;
	kb->base.close = kvm_close;
	kb->base.default_ring = kvm_default_ring(kb->sys.module);
	snprintf(kb->description, sizeof(kb->description), "KVM (%s) via %s", kb->sys.module,
		 kvm_device_path());
	kb->base.description = kb->description;
	return &kb->base;
}
