/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Identity map of the first GiB with 2 MiB pages, built by the assembler:
 * on PVM every ring-0 instruction is emulated (~1 us each), so filling
 * 512 entries at boot would cost more than the rest of the setup.
 * User-accessible, so the storm can run at ring 3 on the same mappings.
 */
#define PTE_P 0x1
#define PTE_RW 0x2
#define PTE_US 0x4
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
	.fill 511, 8, 0

	.balign 4096
pd:
	.set page, 0
	.rept 512
	.quad (page << 21) | (PTE_P | PTE_RW | PTE_US | PTE_PS)
	.set page, page + 1
	.endr
