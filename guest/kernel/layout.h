/* SPDX-License-Identifier: GPL-2.0 */
/* Guest-internal layout shared by the assembly entry and the C kernel. */
#ifndef PLERIG_GUEST_LAYOUT_H
#define PLERIG_GUEST_LAYOUT_H

#define KSTACK_SHIFT 13 /* 8 KiB ring-0 stack per vCPU */
#define USTACK_SHIFT 13 /* 8 KiB ring-3 stack per vCPU */

#define SEL_KERNEL_CODE 0x08
#define SEL_KERNEL_DATA 0x10
#define SEL_USER_DATA	(0x18 | 3)
#define SEL_USER_CODE	(0x20 | 3)
#define GDT_FIRST_TSS	5 /* vCPU n's 16-byte TSS descriptor is entries 5+2n, 6+2n */

/*
 * Under QEMU (PLERIG_CONFIG_SERIAL_RESULTS) only: where vCPU 0 copies the
 * application processors' real-mode entry (below 1 MiB, page-aligned: the
 * SIPI vector is its page number), and where it builds the result frames
 * (above the shared block: the domain has more memory than plerig's VMM).
 */
#define TRAMPOLINE_GPA 0x8000
#define REPORT_GPA     0x01000000
#define REPORT_SIZE    0x00200000 /* 64 vCPUs with three full histograms each: 1.1 MiB */
/* Devices, mapped by page_tables.S (ring 0 only, uncached) */
#define XAPIC_GPA	0xfee00000
#define MICROVM_GED_GPA 0xfea00000 /* ACPI generic event device of QEMU's microvm */

#endif
