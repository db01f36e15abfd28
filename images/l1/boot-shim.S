/*
 * images/l1/boot-shim.S: the protected-mode part of the bzImage that
 * images/l1/unpack-kernel writes. Bochs needs ~2 minutes of host time to run
 * the XZ decompressor of Debian's kernel; this shim boots the kernel that
 * decompressor would have produced, already uncompressed, in well under a
 * second.
 *
 * The kernel's own real-mode setup runs first (memory map, command line,
 * initrd: all in boot_params) and jumps here, to 0x100000, in 32-bit
 * protected mode with flat segments, interrupts off, %esi = boot_params.
 * Here: move the kernel's segments to their physical addresses (the table
 * `segments`, generated), clear what lies beyond each segment's file bytes,
 * map the first 4 GiB 1:1, enter long mode and jump to the kernel's
 * startup_64 with %rsi = boot_params: the 64-bit boot protocol, as the
 * decompressor itself hands over (Documentation/arch/x86/boot.rst).
 *
 * Assembled by unpack-kernel with `as --64` and linked at 0x100000;
 * ENTRY (startup_64's physical address) comes from --defsym, the table
 * from segments.inc in the include path.
 */
	.code32
	.text
	.globl	_start
_start:
	cli
	cld
	movl	%esi, %ebp
	/* KASLR_FLAG (loadflags bit 1): the kernel was not randomized */
	andb	$0xfd, 0x211(%ebp)

	/*
	 * Every segment moves up (its source lies below its destination, and
	 * sources are in the destinations' order): move the last one first,
	 * each from its end, so no source is overwritten before it is read.
	 */
	movl	$segments_end, %ebx
1:	cmpl	$segments, %ebx
	je	2f
	subl	$16, %ebx
	movl	(%ebx), %edi		/* destination */
	movl	4(%ebx), %esi		/* source */
	movl	8(%ebx), %ecx		/* file bytes, in dwords */
	testl	%ecx, %ecx
	jz	1b
	leal	-4(%edi,%ecx,4), %edi
	leal	-4(%esi,%ecx,4), %esi
	std
	rep movsl
	cld
	jmp	1b

	/* then what lies beyond each segment's file bytes: zeros */
2:	movl	$segments, %ebx
3:	cmpl	$segments_end, %ebx
	je	4f
	movl	(%ebx), %edi
	movl	8(%ebx), %ecx
	leal	(%edi,%ecx,4), %edi
	movl	12(%ebx), %ecx		/* zeros, in dwords */
	xorl	%eax, %eax
	rep stosl
	addl	$16, %ebx
	jmp	3b

	/* long mode: PAE, the 1:1 map, EFER.LME, paging, a 64-bit CS */
4:	movl	%cr4, %eax
	orl	$0x20, %eax
	movl	%eax, %cr4
	movl	$pml4, %eax
	movl	%eax, %cr3
	movl	$0xc0000080, %ecx
	rdmsr
	orl	$0x100, %eax
	wrmsr
	movl	%cr0, %eax
	orl	$0x80000001, %eax
	movl	%eax, %cr0
	lgdt	gdt_desc
	ljmp	$0x10, $long_mode

	.code64
long_mode:
	movl	$0x18, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %ss
	movl	%ebp, %esi
	movq	$ENTRY, %rax
	jmp	*%rax

	.data
	.balign	16
	/* the boot protocol's selectors: __BOOT_CS 0x10, __BOOT_DS 0x18 */
gdt:
	.quad	0, 0
	.quad	0x00af9a000000ffff	/* 0x10: 64-bit code */
	.quad	0x00cf92000000ffff	/* 0x18: flat data */
gdt_end:
gdt_desc:
	.word	gdt_end - gdt - 1
	.long	gdt

	/* per segment: destination, source, file dwords, zero dwords */
	.balign	16
segments:
	.include "segments.inc"
segments_end:

	/* 4 GiB 1:1 in 2 MiB pages: the kernel, boot_params, command line, initrd */
	.balign	4096
pml4:
	.quad	pdpt + 3
	.fill	511, 8, 0
pdpt:
	.quad	pd + 3, pd + 0x1003, pd + 0x2003, pd + 0x3003
	.fill	508, 8, 0
pd:
	.set	page, 0
	.rept	2048
	.quad	page + 0x83
	.set	page, page + 0x200000
	.endr
