// SPDX-License-Identifier: GPL-2.0
/*
 * The guest under QEMU. Ring 0 is emulated on PVM (~1-4 us an
 * instruction), so it does only what needs ring 0: read the config from
 * fw_cfg, send INIT-SIPI, write the report to the serial port and power
 * off. Waiting for the other vCPUs and encoding the report run at ring 3,
 * at native speed. The report leaves in one `rep outsb` to COM1: a single
 * emulated instruction, whatever its length.
 */
#include "kernel/standalone.h"

#include "kernel/frames.h"
#include "kernel/fw_cfg.h"
#include "kernel/io.h"
#include "kernel/kvm_features.h"
#include "kernel/layout.h"
#include "kernel/smp.h"
#include "plerig/frame.h"

#define COM1 0x3f8
/* microvm's hardware-reduced ACPI: SLP_EN | SLP_TYP(S5) to the sleep control register */
#define GED_SLEEP_CTL (MICROVM_GED_GPA + 0x200)
#define GED_POWER_OFF ((5u << 2) | 0x20u)

#define VECTOR_UD 6

_Static_assert(PLERIG_FRAME_REPORT_MAX <= REPORT_SIZE, "the report must fit its window");

static const union fw_cfg_name config_name = {.c = PLERIG_FW_CFG_CONFIG};
/*
 * The config as fw_cfg holds it: its bytes, or (libvirt's inline entry,
 * a string, which a remote run uses instead of uploading a file) each
 * byte as two hex digits, high first.
 */
static uint8_t config_file[2 * sizeof(struct plerig_config)];

/* Written by vCPU 0 at ring 0, before any other vCPU runs. */
static int booted_alone;
static uint64_t entry_tsc;
static uint32_t kvm_features; /* with PLERIG_CONFIG_PV_FROM_CPUID, for the END frame */
/* The report vCPU 0 built at ring 3 for ring 0 to send. */
static uint64_t report_len;
/* 0 until one vCPU took the job of reporting: exactly one report goes out. */
static uint32_t reporter;
/* Short reports from ring 0 (bad config, a fault): apart from the one vCPU 0 may be building. */
static uint8_t short_report[2 * sizeof(struct plerig_frame_header) + PLERIG_FRAME_VCPU_BARE +
			    sizeof(struct plerig_frame_end)];

/* The instruction standalone_finish ends in; guest_trap recognises its #UD. */
__asm__(".pushsection .text\n"
	".globl plerig_finish_ud2\n"
	"plerig_finish_ud2:\n"
	"\tud2\n"
	".popsection");
extern const uint8_t plerig_finish_ud2[];

int standalone_active(const struct plerig_shared *sh)
{
	return booted_alone || (sh->config.magic == PLERIG_ABI_MAGIC &&
				(sh->config.flags & PLERIG_CONFIG_SERIAL_RESULTS));
}

static struct frame_buf report_buf(void)
{
	return (struct frame_buf){.data = (uint8_t *)REPORT_GPA, .cap = REPORT_SIZE};
}

static struct frame_buf short_report_buf(void)
{
	return (struct frame_buf){.data = short_report, .cap = sizeof(short_report)};
}

static void put_end(struct frame_buf *b, const struct plerig_shared *sh, uint32_t status,
		    uint32_t detail, uint32_t nr_vcpus)
{
	const struct plerig_frame_end end = {
	    .status = status,
	    .detail = detail,
	    .nr_vcpus = nr_vcpus,
	    .kvm_features = kvm_features,
	    .protected_counter = sh->lock.protected_counter,
	    .start_tsc = sh->start_tsc,
	    .end_tsc = rdtsc(),
	};
	frame_put(b, PLERIG_FRAME_END, 0, &end, sizeof(end));
}

/*
 * After the results, a grace period before the power-off: plerig ends QEMU
 * itself as soon as it has read them, in milliseconds. A guest that powers
 * off first sends libvirt into its own kill path, which finds QEMU still
 * exiting and sleeps 200 ms before it looks again, holding the domain; and
 * a host that reads the vCPUs' counters for the interval after the power-off
 * finds no QEMU to read them from: on a loaded host (load 20, 4 VMs on one
 * CPU) plerig read them over 100 ms late in 3 of 6 runs. Should plerig be
 * gone, the power-off still ends QEMU, PLERIG_POWER_OFF_GRACE_MS later.
 */

/* 0 before the config is read: no grace then */
static uint64_t shared_tsc_khz(void)
{
	return ((const struct plerig_shared *)PLERIG_SHARED_GPA)->config.tsc_khz;
}

static __attribute__((noreturn)) void send_and_power_off(const void *data, uint64_t len)
{
	outsb(COM1, data, len);
	const uint64_t until = rdtsc() + shared_tsc_khz() * PLERIG_POWER_OFF_GRACE_MS;
	while ((int64_t)(rdtsc() - until) < 0)
		__asm__ volatile("pause");
	outb(PLERIG_DEBUG_EXIT_PORT, 0); /* QEMU exits, if the host gave us the device */
	mmio_write8(GED_SLEEP_CTL, GED_POWER_OFF);
	halt_forever();
}

void standalone_bad_config(struct plerig_shared *sh, uint32_t why)
{
	struct frame_buf b = short_report_buf();
	put_end(&b, sh, PLERIG_END_BAD_CONFIG, why, 0);
	send_and_power_off(b.data, b.len);
}

/*
 * What the host could not ask KVM (libvirt lists neither feature): steal time and, where
 * the host allows it, pvqspin's halt and kick, as this vCPU's CPUID offers them. Before
 * any other vCPU runs, so every vCPU sees the same flags.
 */
static void pv_from_cpuid(struct plerig_config *c)
{
	kvm_features = kvm_cpuid_features();
	if (kvm_features >> KVM_FEATURE_STEAL_TIME & 1)
		c->flags |= PLERIG_CONFIG_STEAL_TIME;
	if ((c->flags & PLERIG_CONFIG_PV_UNHALT_IF_OFFERED) &&
	    (kvm_features >> KVM_FEATURE_PV_UNHALT & 1))
		c->flags |= PLERIG_CONFIG_PV_UNHALT;
}

static int hex_digit(uint8_t c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * config_file's @size bytes into @c, decoded if hex (a remote run's: some
 * thousand emulated instructions, where a volume upload would cost round
 * trips to the host); 0 on a character that is not hex.
 */
static int config_from_file(struct plerig_config *c, uint32_t size)
{
	uint8_t *out = (uint8_t *)c;
	if (size == sizeof(*c)) { /* one rep movsb: one emulated instruction */
		const void *src = config_file;
		uint64_t n = sizeof(*c);
		__asm__ volatile("rep movsb" : "+D"(out), "+S"(src), "+c"(n) : : "memory");
		return 1;
	}
	for (uint32_t i = 0; i < sizeof(*c); i++) {
		const int hi = hex_digit(config_file[2 * i]),
			  lo = hex_digit(config_file[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return 0;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 1;
}

void standalone_boot(struct plerig_shared *sh, int (*valid)(unsigned vcpu))
{
	uint32_t size = 0;
	booted_alone = 1;
	entry_tsc = rdtsc();
	int rc = fw_cfg_read_file(&config_name, config_file, sizeof(config_file), &size);
	if (rc)
		standalone_bad_config(sh, (uint32_t)rc);
	if (size != sizeof(sh->config) && size != sizeof(config_file))
		standalone_bad_config(sh, PLERIG_CONFIG_ERR_SIZE);
	if (!config_from_file(&sh->config, size))
		standalone_bad_config(sh, PLERIG_CONFIG_ERR_INVALID);
	if (!valid(0))
		standalone_bad_config(sh, PLERIG_CONFIG_ERR_INVALID);
	const uint32_t both = PLERIG_CONFIG_SELF_TIMED | PLERIG_CONFIG_SERIAL_RESULTS;
	if ((sh->config.flags & both) != both)
		standalone_bad_config(sh, PLERIG_CONFIG_ERR_FLAGS);
	if (sh->config.flags & PLERIG_CONFIG_PV_FROM_CPUID)
		pv_from_cpuid(&sh->config);
	const struct plerig_frame_hello hello = {
	    .abi_version = PLERIG_ABI_VERSION,
	    .nr_vcpus = sh->config.nr_vcpus,
	    .entry_tsc = entry_tsc,
	    .hello_tsc = rdtsc(),
	};
	struct frame_buf b = short_report_buf();
	frame_put(&b, PLERIG_FRAME_HELLO, 0, &hello, sizeof(hello));
	outsb(COM1, b.data, b.len);
}

void standalone_start_aps(const struct plerig_shared *sh)
{
	if (sh->config.nr_vcpus > 1)
		smp_start_aps();
}

static uint32_t state_of(const struct plerig_shared *sh, unsigned vcpu)
{
	return __atomic_load_n(&sh->vcpu[vcpu].state, __ATOMIC_ACQUIRE);
}

static __attribute__((noreturn)) void to_ring0(void)
{
	__asm__ volatile("jmp plerig_finish_ud2");
	__builtin_unreachable();
}

/* Ring 3, vCPU 0: every frame into the report, then to ring 0 to send it. */
static __attribute__((noreturn)) void report(struct plerig_shared *sh, uint32_t status)
{
	struct frame_buf b = report_buf();
	const unsigned n = sh->config.nr_vcpus;
	for (unsigned i = 0; i < n; i++)
		frame_put_vcpu(&b, i, &sh->vcpu[i], 1);
	put_end(&b, sh, status, 0, n);
	report_len = b.len;
	to_ring0();
}

/* Ring 3, vCPU 0: wait until every vCPU's state is at least @state, or report @status. */
static void wait_for_all(struct plerig_shared *sh, uint32_t state, uint32_t status)
{
	const uint64_t deadline = rdtsc() + sh->config.wait_cycles;
	for (unsigned i = 1; i < sh->config.nr_vcpus; i++)
		while (state_of(sh, i) < state) {
			if ((int64_t)(rdtsc() - deadline) > 0)
				report(sh, status);
			__asm__ volatile("pause");
		}
}

void standalone_open_storm(struct plerig_shared *sh)
{
	wait_for_all(sh, PLERIG_VCPU_READY, PLERIG_END_BOOT_TIMEOUT);
	sh->start_tsc = rdtsc();
	__atomic_store_n(&sh->phase, PLERIG_PHASE_WARMUP, __ATOMIC_RELEASE);
}

void standalone_finish(struct plerig_shared *sh, unsigned vcpu)
{
	if (vcpu != 0)
		to_ring0(); /* to halt there: a spinning vCPU would steal vCPU 0's CPU */
	/* DONE or FAULT; a faulting vCPU reports by itself */
	wait_for_all(sh, PLERIG_VCPU_DONE, PLERIG_END_STOP_TIMEOUT);
	report(sh, PLERIG_END_OK);
}

void standalone_hang(struct plerig_shared *sh, unsigned vcpu)
{
	const struct plerig_config *c = &sh->config;
	const uint64_t deadline =
	    sh->start_tsc + c->warmup_cycles + c->measure_cycles + 2 * c->wait_cycles;
	while ((int64_t)(rdtsc() - deadline) < 0)
		__asm__ volatile("pause");
	if (vcpu != 0)
		to_ring0(); /* halts there */
	report(sh, PLERIG_END_STOP_TIMEOUT);
}

int standalone_is_finish(uint64_t vector, uint64_t rip)
{
	return vector == VECTOR_UD && rip == (uint64_t)plerig_finish_ud2;
}

static int become_reporter(void)
{
	return __atomic_exchange_n(&reporter, 1, __ATOMIC_ACQ_REL) == 0;
}

void standalone_trap(struct plerig_shared *sh, unsigned vcpu, int finish)
{
	if (finish) {
		if (vcpu == 0 && become_reporter())
			send_and_power_off((const void *)REPORT_GPA, report_len);
		halt_forever();
	}
	if (!become_reporter())
		halt_forever();
	/* the fault without histograms: ring 0 is slow, and only the fault matters */
	struct frame_buf b = short_report_buf();
	frame_put_vcpu(&b, vcpu, &sh->vcpu[vcpu], 0);
	put_end(&b, sh, PLERIG_END_FAULT, vcpu, 1);
	send_and_power_off(b.data, b.len);
}
