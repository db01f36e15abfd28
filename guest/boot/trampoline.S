/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Real-mode entry of the application processors under QEMU. vCPU 0 copies
 * ap_trampoline..ap_trampoline_end to TRAMPOLINE_GPA and sends INIT-SIPI;
 * each AP starts there in real mode (CS = TRAMPOLINE_GPA >> 4, IP = 0),
 * switches to flat 32-bit protected mode through a GDT of its own and
 * joins pvh_entry, the door every vCPU of plerig's own VMM (and vCPU 0
 * under QEMU) came in by. Nine instructions, all emulated on PVM.
 */
#include "kernel/layout.h"

#define AP_CODE32 0x08
#define AP_DATA32 0x10

	.section .rodata
	.code16
	.globl ap_trampoline, ap_trampoline_end
ap_trampoline:
	/* after INIT: DS base 0, interrupts off; the GDT pointer is in the copy */
	lgdtl	%cs:(ap_gdt_pointer - ap_trampoline)
	/* PE and ET only: also clears the CD and NW that INIT leaves set */
	mov	$0x11, %eax
	mov	%eax, %cr0
	ljmpl	$AP_CODE32, $ap_protected_mode
ap_gdt_pointer:
	.word	ap_gdt_end - ap_gdt - 1
	.long	ap_gdt
ap_trampoline_end:

	.balign 8
ap_gdt:
	.quad	0
	.quad	0x00cf9a000000ffff	/* AP_CODE32: flat, 32-bit */
	.quad	0x00cf92000000ffff	/* AP_DATA32: flat */
ap_gdt_end:

	.text
	.code32
ap_protected_mode:
	mov	$AP_DATA32, %eax
	mov	%eax, %ds
	mov	%eax, %es
	mov	%eax, %ss
	xor	%ebx, %ebx		/* no hvm_start_info */
	jmp	pvh_entry
