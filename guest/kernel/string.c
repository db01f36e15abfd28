// SPDX-License-Identifier: GPL-2.0
/*
 * The functions a freestanding GCC calls on its own for struct copies
 * and initialisers and for loops it recognises: without them the guest
 * would fail to link the day the compiler decides to.
 */
#include <stddef.h>
#include <stdint.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);

void *memcpy(void *dst, const void *src, size_t n)
{
	void *d = dst;
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	void *d = dst;
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return dst;
}
