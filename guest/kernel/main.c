// SPDX-License-Identifier: GPL-2.0
/*
 * The guest kernel: per-vCPU tables, then the storm at ring 0 or ring 3,
 * with one exit to say READY and one to say DONE. Every instruction here
 * runs emulated on PVM, so the setup is a straight line without loops.
 */
#include <stdint.h>

#include "kernel/cpu.h"
#include "kernel/inject.h"
#include "kernel/layout.h"
#include "kernel/standalone.h"
#include "plerig/abi.h"
#include "plerig/frame.h"
#include "storm/storm.h"

struct __attribute__((packed)) tss64 {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
};

/* What exception_common hands to guest_trap: our two words, then the CPU's. */
struct trap_frame {
	uint64_t vector;
	uint64_t error_code;
	uint64_t rip;
	uint64_t cs;
	uint64_t rflags;
	uint64_t rsp;
	uint64_t ss;
};

extern uint64_t gdt[];
extern uint8_t kernel_stacks[];
extern uint8_t user_stacks[];
void enter_user(uint64_t vcpu, uint64_t user_rsp, uint64_t entry) __attribute__((noreturn));

static struct tss64 tss[PLERIG_MAX_VCPUS];

static struct plerig_shared *const shared = (struct plerig_shared *)PLERIG_SHARED_GPA;

static void notify(uint32_t event)
{
	*(volatile uint32_t *)PLERIG_EVENT_MMIO_GPA = event;
}

static __attribute__((noreturn)) void report(uint32_t event)
{
	notify(event);
	for (;;) /* the host does not resume us; hlt would fault at ring 3 */
		__asm__ volatile("");
}

static void load_tss(unsigned vcpu)
{
	struct tss64 *t = &tss[vcpu];
	const uint64_t base = (uint64_t)t;
	const uint64_t limit = sizeof(*t) - 1;

	t->rsp[0] = (uint64_t)&kernel_stacks[(uint64_t)(vcpu + 1) << KSTACK_SHIFT];
	t->iomap_base = sizeof(*t); /* no I/O bitmap: ring 3 has no ports */
	/* 64-bit available TSS (type 9), present, DPL 0 */
	gdt[GDT_FIRST_TSS + 2 * vcpu] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
					(0x89ull << 40) | (((limit >> 16) & 0xf) << 48) |
					((base >> 24) & 0xff) << 56;
	gdt[GDT_FIRST_TSS + 2 * vcpu + 1] = base >> 32;
	ltr((uint16_t)((GDT_FIRST_TSS + 2 * vcpu) * 8));
}

static int config_is_valid(unsigned vcpu)
{
	const struct plerig_config *c = &shared->config;
	return c->magic == PLERIG_ABI_MAGIC && c->abi_version == PLERIG_ABI_VERSION &&
	       c->nr_vcpus <= PLERIG_MAX_VCPUS && vcpu < c->nr_vcpus &&
	       c->lock < PLERIG_LOCK_COUNT && c->relax < PLERIG_RELAX_COUNT &&
	       (c->ring == PLERIG_RING_KERNEL || c->ring == PLERIG_RING_USER) &&
	       c->inject < PLERIG_INJECT_COUNT;
}

/* Runs at ring 3 (or ring 0 when the host asks for it). */
static __attribute__((noreturn)) void storm_entry(uint64_t vcpu)
{
	const int alone = (shared->config.flags & PLERIG_CONFIG_SERIAL_RESULTS) != 0;
	if (shared->config.inject == PLERIG_INJECT_FAULT)
		__builtin_trap();
	if (!alone) /* the host holds us here until every vCPU is up: nobody spins through boot */
		notify(PLERIG_EVENT_READY);
	else if (vcpu == 0) /* no host: vCPU 0 opens the start line */
		standalone_open_storm(shared);
	storm_run(shared, (unsigned)vcpu);
	if (shared->config.inject == PLERIG_INJECT_GARBAGE)
		inject_garbage(&shared->vcpu[vcpu]);
	if (shared->config.inject == PLERIG_INJECT_HANG && alone)
		standalone_hang(shared, (unsigned)vcpu);
	while (shared->config.inject == PLERIG_INJECT_HANG)
		__asm__ volatile("" : : : "memory");
	if (alone)
		standalone_finish(shared, (unsigned)vcpu);
	report(PLERIG_EVENT_DONE);
}

#define MSR_KVM_STEAL_TIME 0x4b564d03
#define KVM_MSR_ENABLED	   1

void guest_main(unsigned vcpu, uint64_t start_info) __attribute__((noreturn));
void guest_main(unsigned vcpu, uint64_t start_info)
{
	(void)start_info;
	load_tss(vcpu);
	/*
	 * plerig's VMM writes the config before any vCPU runs, and starts them
	 * all here; under QEMU only vCPU 0 comes here first, to zeroed memory.
	 */
	if (vcpu == 0 && shared->config.magic != PLERIG_ABI_MAGIC)
		standalone_boot(shared, config_is_valid);
	if (!config_is_valid(vcpu)) {
		if (standalone_active(shared))
			standalone_bad_config(shared, PLERIG_CONFIG_ERR_INVALID);
		report(PLERIG_EVENT_BAD_CONFIG);
	}
	if (vcpu == 0 && standalone_active(shared))
		standalone_start_aps(shared);
	/* the host offers it only where CPUID has KVM_FEATURE_STEAL_TIME */
	if (shared->config.flags & PLERIG_CONFIG_STEAL_TIME)
		wrmsr(MSR_KVM_STEAL_TIME, (uint64_t)&shared->steal[vcpu] | KVM_MSR_ENABLED);
	if (shared->config.ring == PLERIG_RING_USER)
		enter_user(vcpu, (uint64_t)&user_stacks[(uint64_t)(vcpu + 1) << USTACK_SHIFT],
			   (uint64_t)storm_entry);
	storm_entry(vcpu);
}

void guest_trap(const struct trap_frame *f) __attribute__((noreturn));
void guest_trap(const struct trap_frame *f)
{
	/* the ring-0 stack we are on tells which vCPU we are */
	const unsigned vcpu = (unsigned)(((uint64_t)f - (uint64_t)kernel_stacks) >> KSTACK_SHIFT);
	struct plerig_vcpu_result *r = &shared->vcpu[vcpu];
	const int alone = standalone_active(shared);

	if (alone && standalone_is_finish(f->vector, f->rip))
		standalone_trap(shared, vcpu, 1);

	r->fault.vector = f->vector;
	r->fault.error_code = f->error_code;
	r->fault.rip = f->rip;
	r->fault.cs = f->cs;
	r->fault.rflags = f->rflags;
	r->fault.rsp = f->rsp;
	r->fault.cr2 = read_cr2();
	r->state = PLERIG_VCPU_FAULT;
	if (alone)
		standalone_trap(shared, vcpu, 0);
	report(PLERIG_EVENT_FAULT);
}
