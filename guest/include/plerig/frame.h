/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Results over a byte stream (the serial port, for VMMs that share no
 * memory with the guest): a sequence of frames, each a 16-byte header and
 * a payload. The payload of a VCPU frame is struct plerig_vcpu_result up
 * to its histograms, then each histogram (wait, hold, kick) as its
 * non-zero buckets only.
 *
 * The CRC covers the header from type to length and the payload, so a
 * flipped bit anywhere but in the magic is caught; the magic lets a
 * reader find the first frame after noise (firmware output). Little-endian,
 * packed: read with memcpy and bounds checks, never by casting.
 */
#ifndef PLERIG_FRAME_H
#define PLERIG_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "plerig/abi.h"

#define PLERIG_FRAME_MAGIC 0x46524c50u /* "PLRF" little-endian */

enum plerig_frame_type {
	PLERIG_FRAME_HELLO = 1, /* vCPU 0 read its config: struct plerig_frame_hello */
	PLERIG_FRAME_VCPU = 2,	/* one vCPU's results, index = vCPU */
	PLERIG_FRAME_END = 3,	/* last frame: struct plerig_frame_end */
};

struct plerig_frame_header {
	uint32_t magic;
	uint16_t type;
	uint16_t index;
	uint32_t length; /* payload bytes after the header */
	uint32_t crc;	 /* CRC-32 (IEEE 802.3) of type, index, length and payload */
} __attribute__((packed));

struct plerig_frame_hello {
	uint32_t abi_version;
	uint32_t nr_vcpus;
	uint64_t entry_tsc; /* vCPU 0 in its first C function */
	uint64_t hello_tsc; /* just before this frame went out */
} __attribute__((packed));

enum plerig_end_status {
	PLERIG_END_OK = 0,
	PLERIG_END_FAULT = 1,	     /* fault_vcpu took an exception: see its VCPU frame */
	PLERIG_END_BAD_CONFIG = 2,   /* detail: enum plerig_config_error */
	PLERIG_END_BOOT_TIMEOUT = 3, /* a vCPU never became READY: see the VCPU frames */
	PLERIG_END_STOP_TIMEOUT = 4, /* a vCPU never finished: see the VCPU frames */
	PLERIG_END_STATUS_COUNT
};

enum plerig_config_error {
	PLERIG_CONFIG_ERR_NONE = 0,
	PLERIG_CONFIG_ERR_NO_FW_CFG = 1, /* no fw_cfg device (signature) */
	PLERIG_CONFIG_ERR_NO_FILE = 2,	 /* no opt/org.plerig/config file */
	PLERIG_CONFIG_ERR_SIZE = 3,	 /* the file is not a struct plerig_config */
	PLERIG_CONFIG_ERR_INVALID = 4,	 /* magic, version or a field out of range */
	PLERIG_CONFIG_ERR_FLAGS = 5,	 /* not SELF_TIMED | SERIAL_RESULTS */
};

struct plerig_frame_end {
	uint32_t status;   /* enum plerig_end_status */
	uint32_t detail;   /* BAD_CONFIG: enum plerig_config_error; FAULT: the vCPU */
	uint32_t nr_vcpus; /* VCPU frames sent before this one */
	/* with PLERIG_CONFIG_PV_FROM_CPUID: CPUID 0x40000001 EAX (KVM's features) as vCPU 0
	 * read it, 0 where leaf 0x40000000 is not KVM's; otherwise 0 */
	uint32_t kvm_features;
	uint64_t protected_counter;
	uint64_t start_tsc; /* the storm opened: every vCPU was READY */
	uint64_t end_tsc;   /* vCPU 0 started sending */
} __attribute__((packed));

struct plerig_frame_bucket {
	uint32_t bucket;
	uint64_t count;
} __attribute__((packed));

/* The fixed part of a VCPU payload: the result struct up to its histograms. */
#define PLERIG_FRAME_VCPU_FIXED __builtin_offsetof(struct plerig_vcpu_result, hist_wait)
/* The histograms a VCPU frame carries: hist_wait, hist_hold, hist_kick. */
#define PLERIG_FRAME_VCPU_HISTOGRAMS 3
/* A VCPU payload whose histograms are all empty (a fault report at ring 0). */
#define PLERIG_FRAME_VCPU_BARE (PLERIG_FRAME_VCPU_FIXED + 4 * PLERIG_FRAME_VCPU_HISTOGRAMS)
/* Largest VCPU payload: fixed part, every histogram with every bucket set. */
#define PLERIG_FRAME_VCPU_MAX                                                                      \
	(PLERIG_FRAME_VCPU_FIXED +                                                                 \
	 PLERIG_FRAME_VCPU_HISTOGRAMS *                                                            \
	     (4 + PLERIG_HIST_BUCKETS * sizeof(struct plerig_frame_bucket)))
/* Largest report: hello, a VCPU frame per vCPU, end. */
#define PLERIG_FRAME_REPORT_MAX                                                                    \
	(3 * sizeof(struct plerig_frame_header) + sizeof(struct plerig_frame_hello) +              \
	 PLERIG_MAX_VCPUS * (sizeof(struct plerig_frame_header) + PLERIG_FRAME_VCPU_MAX) +         \
	 sizeof(struct plerig_frame_end))

/*
 * QEMU's isa-debug-exit device, which the libvirt backend adds: a byte
 * written there ends QEMU at once, where the ACPI power-off would only
 * pause it (libvirt runs QEMU with -no-shutdown and handles the rest, which
 * nobody does once plerig is gone). Under other VMMs the write is ignored.
 */
#define PLERIG_DEBUG_EXIT_PORT	   0xf4
#define PLERIG_DEBUG_EXIT_PORT_STR "0xf4"
/* How long after its results the standalone guest writes there (guest/kernel/standalone.c) */
#define PLERIG_POWER_OFF_GRACE_MS 2000u

/* The fw_cfg file the host puts the struct plerig_config in. */
#define PLERIG_FW_CFG_CONFIG "opt/org.plerig/config"

/* CRC-32, 4 bits at a time: a 64-byte table, fast enough at ring 3 and small at ring 0. */
static inline uint32_t plerig_crc32_update(uint32_t crc, const void *data, size_t len)
{
	static const uint32_t nibble[16] = {
	    0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4,
	    0x4db26158, 0x5005713c, 0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
	    0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
	};
	const uint8_t *p = data;

	crc = ~crc;
	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		crc = (crc >> 4) ^ nibble[crc & 15];
		crc = (crc >> 4) ^ nibble[crc & 15];
	}
	return ~crc;
}

#endif
