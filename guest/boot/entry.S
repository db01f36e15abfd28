/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Boot path of every vCPU: 32-bit PVH entry (flat protected mode, paging
 * off, %ebx = hvm_start_info or 0) -> long mode -> guest_main().
 * Kept to a few dozen instructions: on PVM each one is emulated.
 */
#include "plerig/abi.h"
#include "kernel/layout.h"

#define CR0_PE 0x00000001
#define CR0_PG 0x80000000
#define CR4_PAE 0x00000020
#define MSR_EFER 0xc0000080
#define EFER_LME 0x00000100

	.section .text.entry, "ax"
	.code32
	.globl pvh_entry
pvh_entry:
	mov	%ebx, %edi		/* start info, for guest_main's 2nd argument */
	mov	$1, %eax
	cpuid
	shr	$24, %ebx		/* initial APIC ID: our vCPU index */
	mov	%ebx, %esi
	lgdt	gdt_descriptor
	mov	%cr4, %eax
	or	$CR4_PAE, %eax
	mov	%eax, %cr4
	mov	$pml4, %eax
	mov	%eax, %cr3
	mov	$MSR_EFER, %ecx
	rdmsr
	or	$EFER_LME, %eax
	wrmsr
	mov	%cr0, %eax
	or	$(CR0_PG | CR0_PE), %eax
	mov	%eax, %cr0
	ljmp	$SEL_KERNEL_CODE, $long_mode_entry

	.code64
long_mode_entry:
	mov	$SEL_KERNEL_DATA, %eax
	mov	%eax, %ds
	mov	%eax, %es
	mov	%eax, %ss
	xor	%eax, %eax
	mov	%eax, %fs
	mov	%eax, %gs
	mov	%esi, %eax
	cmp	$PLERIG_MAX_VCPUS, %eax
	jae	bad_vcpu_index
	inc	%eax
	shl	$KSTACK_SHIFT, %rax
	lea	kernel_stacks(%rax), %rsp
	lidt	idt_descriptor
	sti			/* interrupts on, as a real guest spins: see interrupt_stub */
	xchg	%edi, %esi		/* guest_main(vcpu, start_info) */
	call	guest_main
	/* guest_main does not return */
bad_vcpu_index:
	movl	$PLERIG_EVENT_BAD_CONFIG, PLERIG_EVENT_MMIO_GPA
1:	cli
	hlt
	jmp	1b

/*
 * enter_user(vcpu, user_rsp, entry): iretq to ring 3 with IF=1 and IOPL=0,
 * %rdi = vcpu. The storm never comes back: it reports DONE to the host
 * from ring 3 (see PLERIG_EVENT_MMIO_GPA).
 */
#define RFLAGS_RESERVED 0x2
#define RFLAGS_IF 0x200

	.globl enter_user
enter_user:
	pushq	$SEL_USER_DATA
	pushq	%rsi
	pushq	$(RFLAGS_RESERVED | RFLAGS_IF)
	pushq	$SEL_USER_CODE
	pushq	%rdx
	iretq

/* Exception stubs: a uniform frame (vector, error code, CPU frame) for
 * exception_common; vectors without a CPU error code push a 0. */
.macro exception_stub vector, has_error
	.balign 16
	.if \has_error == 0
	pushq	$0
	.endif
	pushq	$\vector
	jmp	exception_common
.endm

	.balign 16
exception_stubs:
	exception_stub 0, 0
	exception_stub 1, 0
	exception_stub 2, 0
	exception_stub 3, 0
	exception_stub 4, 0
	exception_stub 5, 0
	exception_stub 6, 0
	exception_stub 7, 0
	exception_stub 8, 1
	exception_stub 9, 0
	exception_stub 10, 1
	exception_stub 11, 1
	exception_stub 12, 1
	exception_stub 13, 1
	exception_stub 14, 1
	exception_stub 15, 0
	exception_stub 16, 0
	exception_stub 17, 1
	exception_stub 18, 0
	exception_stub 19, 0
	exception_stub 20, 0
	exception_stub 21, 1
	exception_stub 22, 0
	exception_stub 23, 0
	exception_stub 24, 0
	exception_stub 25, 0
	exception_stub 26, 0
	exception_stub 27, 0
	exception_stub 28, 0
	exception_stub 29, 1
	exception_stub 30, 1
	exception_stub 31, 0

/*
 * Every vCPU runs with interrupts enabled (IF=1), as a real guest's spin
 * loops do: a hypervisor that emulates VMX evaluates external-interrupt
 * exits against it (Bochs, under which kvm_intel's PLE is tested, never
 * takes one from an L2 with IF=0). plerig's VMM injects nothing, so this
 * stub, the handler of vectors 32-255, only runs if a device interrupts
 * anyway: it signals end-of-interrupt to the local APIC (xAPIC mode,
 * mapped at XAPIC_GPA) and returns to the interrupted code.
 */
#define APIC_EOI (XAPIC_GPA + 0xb0)

	.balign 16
interrupt_stub:
	pushq	%rax
	xor	%eax, %eax
	movabs	%eax, APIC_EOI
	popq	%rax
	iretq

exception_common:
	mov	%rsp, %rdi		/* struct trap_frame * */
	and	$-16, %rsp
	call	guest_trap
1:	cli
	hlt
	jmp	1b

	.section .rodata
	.balign 16
/*
 * The IDT, built by the assembler rather than by a loop at boot (emulated
 * on PVM): interrupt gates to the 16-byte-spaced stubs. A gate splits the
 * handler address in pieces; the stubs sit in the first 64 KiB of the
 * image, so the low piece is a 16-bit relocation (ld refuses the link if
 * they ever move beyond) and the middle one is the image base's.
 */
#define NR_EXCEPTIONS 32
#define NR_VECTORS 256
.macro idt_gate handler
	.word	\handler - PLERIG_IMAGE_BASE
	.word	SEL_KERNEL_CODE
	.byte	0, 0x8e			/* present, DPL 0, 64-bit interrupt gate */
	.word	PLERIG_IMAGE_BASE >> 16
	.long	0, 0
.endm
idt:
	.set	vector, 0
	.rept	NR_EXCEPTIONS
	idt_gate (exception_stubs+vector*16)
	.set	vector, vector + 1
	.endr
	.rept	NR_VECTORS - NR_EXCEPTIONS
	idt_gate interrupt_stub
	.endr
idt_end:
idt_descriptor:
	.word	idt_end - idt - 1
	.quad	idt

gdt_descriptor:
	.word	gdt_end - gdt - 1
	.quad	gdt

	.section .data
	.balign 16
	.globl gdt
gdt:
	.quad	0
	.quad	0x00af9a000000ffff	/* 0x08 kernel code, 64-bit */
	.quad	0x00cf92000000ffff	/* 0x10 kernel data */
	.quad	0x00cff2000000ffff	/* 0x18 user data, DPL 3 */
	.quad	0x00affa000000ffff	/* 0x20 user code, 64-bit, DPL 3 */
	.fill	2 * PLERIG_MAX_VCPUS, 8, 0 /* TSS descriptors, set by each vCPU */
gdt_end:

	.section .bss
	.balign 4096
	.globl kernel_stacks, user_stacks
kernel_stacks:
	.skip	PLERIG_MAX_VCPUS << KSTACK_SHIFT
user_stacks:
	.skip	PLERIG_MAX_VCPUS << USTACK_SHIFT
