/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Identity map of the first GiB with 2 MiB pages, built by the assembler:
 * on PVM every ring-0 instruction is emulated (~1 us each), so filling
 * 512 entries at boot would cost more than the rest of the setup.
 * User-accessible, so the storm can run at ring 3 on the same mappings.
 */
#include "kernel/layout.h"

#define PTE_P 0x1
#define PTE_RW 0x2
#define PTE_US 0x4
#define PTE_PWT 0x8
#define PTE_PCD 0x10
#define PTE_PS 0x80

	.section .data.page_tables, "aw"
	.balign 4096
	.globl pml4
pml4:
	.quad pdpt + (PTE_P | PTE_RW | PTE_US)
	.fill 511, 8, 0

	.balign 4096
pdpt:
	.quad pd + (PTE_P | PTE_RW | PTE_US)
	.quad 0, 0
	.quad pd_devices + (PTE_P | PTE_RW)
	.fill 508, 8, 0

	.balign 4096
pd:
	.set page, 0
	.rept 512
	.quad (page << 21) | (PTE_P | PTE_RW | PTE_US | PTE_PS)
	.set page, page + 1
	.endr

/*
 * The fourth GiB: only the devices the guest drives under QEMU (the local
 * APIC for INIT-SIPI, microvm's ACPI sleep register for power-off), as
 * uncached 2 MiB pages that ring 3 cannot touch.
 */
#define DEVICE_PAGE(gpa) .quad (gpa) + (PTE_P | PTE_RW | PTE_PWT | PTE_PCD | PTE_PS)
	.balign 4096
pd_devices:
	.fill (MICROVM_GED_GPA >> 21) & 511, 8, 0
	DEVICE_PAGE(MICROVM_GED_GPA)
	.fill ((XAPIC_GPA >> 21) & 511) - ((MICROVM_GED_GPA >> 21) & 511) - 1, 8, 0
	DEVICE_PAGE(XAPIC_GPA)
	.fill 511 - ((XAPIC_GPA >> 21) & 511), 8, 0
