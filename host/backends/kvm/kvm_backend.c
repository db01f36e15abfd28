// SPDX-License-Identifier: GPL-2.0
/*
 * One variant on the kvm backend: create the VMs, start their vCPU
 * threads, let the phase driver run the variant, tear everything down.
 */
#include "backends/kvm/kvm_backend.h"

#include <errno.h>
#include <linux/kvm.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "backends/guest_config.h"
#include "backends/phase_driver.h"
#include "backends/placement.h"
#include "backends/run_result.h"
#include "backends/kvm/elf_image.h"
#include "backends/run_exit_timers.h"
#include "measure/kvm_system.h"
#include "backends/kvm/vm.h"
#include "util/clock.h"
#include "util/errbuf.h"

struct kvm_backend {
	struct backend base; /* first: the runner sees only this */
	struct kvm_system sys;
	cpu_set_t boot_cpus; /* every CPU this process may use: boot runs in parallel there */
	struct guest_image image;
	void *image_data;
	struct ple_probe ple;	  /* where PAUSE-loop exit counts come from on this host */
	struct ple_hold ple_hold; /* its tracepoints, registered from open to close */
	char description[96];
};

/* The state of one run. */
struct run {
	struct kvm_backend *kb;
	const struct variant *v;
	struct variant_result *r;
	struct kvm_vm *vms;
	unsigned nr_vms; /* created so far */
	struct start_line start;
	/* per vCPU, opened by its thread before its first KVM_RUN, so that they
	 * count its whole life; ple_open[g] (atomic) says the thread did */
	struct ple_counters *ple;
	int *ple_open;
	struct run_exit_timers exit_timers; /* --exit-times: opened at the first snapshot */
};

static struct kvm_vcpu *vcpu_at(struct run *run, unsigned g)
{
	return &run->vms[g / run->v->vcpus].vcpus[g % run->v->vcpus];
}

/*
 * Lock pvqspin halts and kicks only where KVM offers KVM_FEATURE_PV_UNHALT
 * and the guest's KVM_HC_KICK_CPU reaches it; elsewhere the guest runs it
 * as test-and-set, as Linux's virt_spin_lock() does, and the results say
 * so (pv_why).
 */
static void pv_unhalt_offer(struct run *run, struct plerig_config *cfg)
{
	struct variant_result *r = run->r;
	if (run->v->lock != PLERIG_LOCK_PVQSPIN)
		return;
	if (!kvm_feature_supported(&run->kb->sys, KVM_FEATURE_PV_UNHALT))
		snprintf(r->pv_why, sizeof(r->pv_why),
			 "ran as test-and-set: KVM does not offer KVM_FEATURE_PV_UNHALT");
	else if (!strcmp(run->kb->sys.module, "kvm_pvm"))
		snprintf(r->pv_why, sizeof(r->pv_why),
			 "ran as test-and-set: under PVM (kvm_pvm) " KVM_PVM_NO_HYPERCALL
			 ": no kick would reach KVM");
	if (r->pv_why[0])
		return;
	cfg->flags |= PLERIG_CONFIG_PV_UNHALT;
	r->pv_unhalt = true;
}

static int create_vms(struct run *run)
{
	struct plerig_config cfg;
	char err[ERRBUF_SIZE];
	guest_config_fill(&cfg, run->v);
	/* steal time tells a stall's own preemption from the others' */
	if (kvm_feature_supported(&run->kb->sys, KVM_FEATURE_STEAL_TIME)) {
		cfg.flags |= PLERIG_CONFIG_STEAL_TIME;
		run->r->steal_time = true;
	}
	pv_unhalt_offer(run, &cfg);
	const struct vm_options opts = {
	    .disable_pause_exits = run->v->ple == PLE_OFF,
	    /* KVM's hypercalls find their target vCPU through its local APIC, and only an
	     * in-kernel one keeps a halted vCPU in KVM until its kick */
	    .in_kernel_apic =
		run->v->relax == PLERIG_RELAX_PV_YIELD || run->v->lock == PLERIG_LOCK_PVQSPIN,
	    .halt_poll_ns = run->v->halt_poll_ns,
	};
	run->vms = calloc(run->v->vms, sizeof(run->vms[0]));
	if (!run->vms)
		return run_fail(run->r, "out of memory for %u VMs", run->v->vms);
	for (unsigned i = 0; i < run->v->vms; i++) {
		if (kvm_vm_create(&run->vms[i], &run->kb->sys, i, &run->kb->image, &cfg, &opts, err,
				  sizeof(err)))
			return run_fail(run->r, "%s", err);
		run->nr_vms = i + 1;
	}
	return 0;
}

/* Thresholds need the TSC rate, which needs a vCPU: set them before any runs. */
static int set_thresholds(struct run *run)
{
	int khz = ioctl(run->vms[0].vcpus[0].fd, KVM_GET_TSC_KHZ, 0);
	if (khz <= 0)
		return run_fail(run->r, "KVM_GET_TSC_KHZ: %s", khz < 0 ? strerror(errno) : "0 kHz");
	run->r->tsc_khz = (uint64_t)khz;
	for (unsigned i = 0; i < run->nr_vms; i++)
		guest_config_set_tsc(&run->vms[i].shared->config, run->v, (uint64_t)khz);
	return 0;
}

/* In the vCPU thread: the counters exist before the vCPU first runs. */
static void open_vcpu_counters(struct kvm_vcpu *vcpu, void *arg)
{
	struct run *run = arg;
	const unsigned g = vcpu->vm->index * run->v->vcpus + vcpu->index;
	ple_counters_open(&run->ple[g], &run->kb->ple, kvm_vcpu_tid(vcpu));
	__atomic_store_n(&run->ple_open[g], 1, __ATOMIC_RELEASE);
}

static int start_vcpus(struct run *run)
{
	const struct variant *v = run->v;
	char err[ERRBUF_SIZE];
	for (unsigned g = 0; g < v->vms * v->vcpus; g++) {
		const unsigned *cpus;
		const unsigned nr = placement_cpus(v, g, &cpus);
		struct kvm_vcpu *vcpu = vcpu_at(run, g);
		if (run->ple) {
			vcpu->thread_start = open_vcpu_counters;
			vcpu->thread_start_arg = run;
		}
		if (kvm_vcpu_start(vcpu, &run->start, &run->kb->boot_cpus, cpus, nr, err,
				   sizeof(err)))
			return run_fail(run->r, "%s", err);
	}
	return 0;
}

/* ---- what the phase driver sees of the vCPUs ---- */

static struct plerig_shared *unit_shared(void *ctx, unsigned vm)
{
	return ((struct run *)ctx)->vms[vm].shared;
}

static bool unit_ready(void *ctx, unsigned g)
{
	return kvm_vcpu_is_ready(vcpu_at(ctx, g));
}

static int unit_outcome(void *ctx, unsigned g, const char **message)
{
	struct kvm_vcpu *vcpu = vcpu_at(ctx, g);
	switch (kvm_vcpu_outcome(vcpu)) {
	case VCPU_OUTCOME_DONE:
		return UNIT_DONE;
	case VCPU_OUTCOME_STOPPED:
		return UNIT_STOPPED;
	case VCPU_OUTCOME_FAILED:
		if (message)
			*message = vcpu->message;
		return UNIT_FAILED;
	default:
		return UNIT_RUNNING;
	}
}

static pid_t unit_tid(void *ctx, unsigned g)
{
	return kvm_vcpu_tid(vcpu_at(ctx, g));
}

static const struct schedstat_kept *unit_kept_sched(void *ctx, unsigned g)
{
	return &vcpu_at(ctx, g)->last_sched;
}

static int unit_host_cpu(void *ctx, unsigned g)
{
	return vcpu_at(ctx, g)->host_cpu;
}

static bool unit_kvm_stats(void *ctx, unsigned g, struct kvm_stats_snapshot *out)
{
	struct kvm_vcpu *vcpu = vcpu_at(ctx, g);
	char err[ERRBUF_SIZE];
	return vcpu->stats_open && kvm_stats_read(&vcpu->stats, out, err, sizeof(err)) == 0;
}

static void read_ple_counts(struct run *run, unsigned g, struct ple_counts *out)
{
	memset(out, 0, sizeof(*out));
	/* every thread opened its counters before its guest could report READY */
	if (!run->ple || !__atomic_load_n(&run->ple_open[g], __ATOMIC_ACQUIRE))
		return;
	run_note_ple_why(run->r, &run->ple[g]);
	ple_counters_read(&run->ple[g], out);
}

static void unit_ple_counts(void *ctx, unsigned g, struct ple_counts *out)
{
	struct run *run = ctx;
	/* the exit timers start at the first snapshot: they time the interval only */
	run_exit_timers_open(&run->exit_timers, run->r, g, kvm_vcpu_tid(vcpu_at(run, g)));
	read_ple_counts(run, g, out);
}

/* After the vCPU reported DONE its thread runs the guest no more: final counts. */
static bool unit_lifetime(void *ctx, unsigned g, struct vcpu_lifetime *out)
{
	struct kvm_stats_snapshot s;
	memset(out, 0, sizeof(*out));
	if (unit_kvm_stats(ctx, g, &s) && s.valid[KVM_STAT_EXITS]) {
		out->exits = s.value[KVM_STAT_EXITS];
		out->exits_valid = true;
	}
	read_ple_counts(ctx, g, &out->ple);
	return true;
}

static void unit_open_start_line(void *ctx)
{
	start_line_open(&((struct run *)ctx)->start);
}

static void unit_drain(void *ctx)
{
	run_exit_timers_drain(&((struct run *)ctx)->exit_timers);
}

static void unit_interval(void *ctx, uint64_t start_ns, uint64_t stop_ns)
{
	struct run *run = ctx;
	run_exit_timers_interval(&run->exit_timers, run->r, start_ns, stop_ns, run->kb->sys.module);
}

static const struct unit_ops kvm_unit_ops = {
    .shared = unit_shared,
    .ready = unit_ready,
    .outcome = unit_outcome,
    .tid = unit_tid,
    .kept_sched = unit_kept_sched,
    .host_cpu = unit_host_cpu,
    .kvm_stats = unit_kvm_stats,
    .ple_counts = unit_ple_counts,
    .lifetime = unit_lifetime,
    .open_start_line = unit_open_start_line,
    .drain = unit_drain,
    .interval = unit_interval,
};

/*
 * pv-yield makes hypercalls. Only guest ring 0 may; and on PVM the guest's
 * vmcall/vmmcall does not reach KVM's hypercall handler (KVM_PVM_NO_HYPERCALL):
 * directed_yield_attempted stays 0 and the yielding vCPU re-executes its
 * VMCALL for ever, so the run would end in the watchdog rather than in figures.
 */
static int check_pv_yield(struct run *run)
{
	if (run->v->relax != PLERIG_RELAX_PV_YIELD)
		return 0;
	if (run->v->ring != PLERIG_RING_KERNEL)
		return run_fail(run->r, "relax pv-yield makes hypercalls, which guest ring 3 "
					"may not: add --ring kernel");
	if (!strcmp(run->kb->sys.module, "kvm_pvm"))
		return run_fail(run->r, "relax pv-yield: under PVM (kvm_pvm) " KVM_PVM_NO_HYPERCALL
					"; run it on a kvm_intel or kvm_amd host");
	if (!kvm_feature_supported(&run->kb->sys, KVM_FEATURE_PV_SCHED_YIELD))
		return run_fail(run->r, "relax pv-yield: this KVM does not offer "
					"KVM_FEATURE_PV_SCHED_YIELD (Linux >= 5.10)");
	return 0;
}

/* pvqspin halts (HLT, cli, sti) and kicks with a hypercall: guest ring 0 only. */
static int check_pvqspin(struct run *run)
{
	if (run->v->lock == PLERIG_LOCK_PVQSPIN && run->v->ring != PLERIG_RING_KERNEL)
		return run_fail(run->r, "lock pvqspin halts and kicks, which guest ring 3 may not: "
					"add --ring kernel (or leave --ring auto)");
	return 0;
}

static void prepare_ple_counts(struct run *run)
{
	const unsigned n = run->v->vms * run->v->vcpus;
	run_note_ple(run->r, &run->kb->ple);
	if (!run->kb->ple.pause_exits_ok) {
		snprintf(run->r->ple_why, sizeof(run->r->ple_why), "%s",
			 run->kb->ple.pause_exits_why);
		return;
	}
	run->ple = calloc(n, sizeof(run->ple[0]));
	run->ple_open = calloc(n, sizeof(run->ple_open[0]));
	if (!run->ple || !run->ple_open) {
		free(run->ple);
		free(run->ple_open);
		run->ple = NULL;
		run->ple_open = NULL;
		snprintf(run->r->ple_why, sizeof(run->r->ple_why), "out of memory for counters");
	}
}

static void teardown(struct run *run)
{
	/* every vCPU thread is kicked before any is joined: teardown takes one round trip */
	for (unsigned i = 0; i < run->nr_vms; i++)
		for (unsigned j = 0; j < run->vms[i].nr_vcpus; j++)
			if (kvm_vcpu_outcome(&run->vms[i].vcpus[j]) == VCPU_OUTCOME_NONE)
				kvm_vcpu_kick(&run->vms[i].vcpus[j]);
	for (unsigned i = 0; i < run->nr_vms; i++)
		kvm_vm_destroy(&run->vms[i]);
	/* after the joins: no thread is still opening its counters */
	for (unsigned g = 0; run->ple && g < run->v->vms * run->v->vcpus; g++)
		if (run->ple_open[g])
			ple_counters_close(&run->ple[g]);
	free(run->ple);
	free(run->ple_open);
	run->ple = NULL;
	run->ple_open = NULL;
	run_exit_timers_close(&run->exit_timers);
	free(run->vms);
	run->vms = NULL;
	run->nr_vms = 0;
}

static int kvm_run_variant(struct backend *b, const struct variant *v, struct variant_result *r)
{
	struct run run = {.kb = (struct kvm_backend *)b, .v = v, .r = r};
	struct phase_driver d = {
	    .ops = &kvm_unit_ops, .ctx = &run, .v = v, .r = r, .t0 = monotonic_ns()};
	if (variant_result_init(r, v))
		return -1;
	if (check_pv_yield(&run) || check_pvqspin(&run))
		return -1;
	start_line_init(&run.start);
	prepare_ple_counts(&run);
	run_exit_timers_prepare(&run.exit_timers, r, &run.kb->ple);
	if (!create_vms(&run) && !set_thresholds(&run)) {
		r->timing.created_ns = phase_driver_elapsed(&d);
		if (!start_vcpus(&run))
			phase_driver_run(&d);
	}
	teardown(&run);
	start_line_destroy(&run.start);
	r->timing.torn_down_ns = phase_driver_elapsed(&d);
	return r->ok ? 0 : -1;
}

int kvm_backend_warm_up(struct backend *b, char *err, size_t errlen)
{
	static const uint8_t hlt = 0xf4; /* never run */
	struct kvm_vm vm;
	if (kvm_vm_create_raw(&vm, &((struct kvm_backend *)b)->sys, &hlt, 1, err, errlen))
		return -1;
	kvm_vm_destroy(&vm);
	return 0;
}

static void kvm_close(struct backend *b)
{
	struct kvm_backend *kb = (struct kvm_backend *)b;
	ple_hold_close(&kb->ple_hold);
	kvm_system_close(&kb->sys);
	free(kb->image_data);
	free(kb);
}

/* A bad image is bad input: say so once, before any VM exists. */
static int validate_image(const char *path, const void *data, size_t size, char *err, size_t errlen)
{
	uint8_t *scratch = calloc(1, PLERIG_GUEST_MEM_SIZE);
	struct elf_image_info info;
	char why[ERRBUF_SIZE];
	int rc = -1;
	if (!scratch)
		errbuf_printf(err, errlen, "out of memory validating %s", path);
	else if (elf_image_load(data, size, scratch, 0, PLERIG_GUEST_MEM_SIZE, PLERIG_IMAGE_BASE,
				PLERIG_SHARED_GPA, &info, why, sizeof(why)))
		errbuf_printf(err, errlen,
			      "guest image %s: %s (rebuild it with make, or pass --guest)", path,
			      why);
	else if (!info.pvh_entry)
		errbuf_printf(err, errlen,
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
		errbuf_printf(err, errlen, "out of memory");
		return NULL;
	}
	kb->ple_hold = (struct ple_hold){.pause_exits.fd = -1, .window_updates.fd = -1};
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
		errbuf_printf(err, errlen, "sched_getaffinity: %s", strerror(errno));
		kvm_close(&kb->base);
		return NULL;
	}
	kb->image.data = kb->image_data;
	kb->image.path = guest_path;
	kb->base.kind = BACKEND_KVM;
	kb->base.run = kvm_run_variant;
	kb->base.close = kvm_close;
	kb->base.default_ring = kvm_default_ring(!strcmp(kb->sys.module, "kvm_pvm"));
	snprintf(kb->description, sizeof(kb->description), "KVM (%s) via %s", kb->sys.module,
		 kvm_device_path());
	kb->base.description = kb->description;
	ple_probe_init(&kb->ple);
	ple_hold_open(&kb->ple_hold, &kb->ple);
	return &kb->base;
}
