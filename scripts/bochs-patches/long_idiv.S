/*
 * Debian sid's bochs 3.1+dfsg-1 (amd64): long_idiv, rewritten in place.
 * Applied by scripts/setup-bochs to sid's bochs-bin (the package route),
 * and only to the binary these lines name:
 *
 * bochs-version: 3.1+dfsg-1
 * binary-sha256: 18a8d445498ac03bc54b28a2d3890e3e3d4f113617e7e03408a69f5e58a91e05
 * function: _Z9long_idivP7Bit128sPlPKS_l 0x26b610 0x90
 * calls: _Z8long_divP7Bit128uPmPKS_m=0x26b530 _Z8long_negP7Bit128s=0x26b3c0
 *
 * Why: IDIV r/m64 (BX_CPU_C::IDIV_RAXEqR) divides RDX:RAX through
 * long_idiv (bochs/cpu/wide_int.cc), which copies the dividend into a local
 * Bit128s, negates it when negative, and passes it to long_div as a
 * Bit128u*. That cast breaks C++'s aliasing rules, and GCC 16 (sid's)
 * dropped the copy of the low half and the negation: the compiled
 * long_idiv stores only dividend->hi at 0x8(%rsp) and calls long_div with
 * %rdx = %rsp, whose low quadword is whatever the stack held. So every
 * IDIV r64 divides garbage. Seen: Linux 6.1 under it divides by zero in
 * __clocksource_update_freq_scale (clocks_calc_mult_shift's to =
 * NSEC_PER_SEC / scale, an idiv %r8, came out 0, so mult 0), a kernel
 * panic at 1.8 s of uptime, for the ryzen and corei7_haswell_4770 models
 * alike. long_div, long_neg and long_imul compiled correctly.
 *
 * This is long_idiv as the source means it, calling the binary's own
 * long_div and long_neg. Remove it once sid's Bochs is built from a
 * source without the cast or with -fno-strict-aliasing (the source route
 * of scripts/setup-bochs builds with it).
 *
 * void long_idiv(Bit128s *quotient, Bit64s *remainder,
 *                const Bit128s *dividend, Bit64s divisor)
 */
	.text
	.globl	long_idiv
long_idiv:
	endbr64
	push	%rbx
	push	%rbp
	push	%r12
	push	%r13
	sub	$24, %rsp		/* temp at (%rsp); %rsp 16-aligned at the calls */
	mov	%rdi, %r12		/* quotient */
	mov	%rsi, %r13		/* remainder */
	mov	%rcx, %rbx		/* divisor, its sign for later */
	mov	(%rdx), %rax
	mov	%rax, (%rsp)		/* temp = *dividend: both halves */
	mov	8(%rdx), %rbp		/* its sign for later */
	mov	%rbp, 8(%rsp)
	test	%rbp, %rbp
	jns	1f
	mov	%rsp, %rdi
	call	_Z8long_negP7Bit128s	/* temp = -temp */
1:	mov	%rbx, %rcx
	neg	%rcx
	cmovs	%rbx, %rcx		/* |divisor| (2^63 stays 2^63, as unsigned) */
	mov	%r12, %rdi
	mov	%r13, %rsi
	mov	%rsp, %rdx
	call	_Z8long_divP7Bit128uPmPKS_m
	mov	%rbp, %rax
	xor	%rbx, %rax
	jns	2f
	mov	%r12, %rdi
	call	_Z8long_negP7Bit128s	/* signs differ: quotient = -quotient */
2:	test	%rbp, %rbp
	jns	3f
	negq	(%r13)			/* the remainder has the dividend's sign */
3:	add	$24, %rsp
	pop	%r13
	pop	%r12
	pop	%rbp
	pop	%rbx
	ret
	.section .note.GNU-stack,"",@progbits
