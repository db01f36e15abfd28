/* SPDX-License-Identifier: GPL-2.0 */
/* Privileged x86 instructions the guest kernel needs, as inline functions. */
#ifndef PLERIG_GUEST_CPU_H
#define PLERIG_GUEST_CPU_H

#include <stdint.h>

struct __attribute__((packed)) descriptor_pointer {
	uint16_t limit;
	uint64_t base;
};

static inline void outl(uint16_t port, uint32_t value)
{
	__asm__ volatile("outl %0, %1" : : "a"(value), "Nd"(port));
}

static inline void lidt(const struct descriptor_pointer *p)
{
	__asm__ volatile("lidt %0" : : "m"(*p));
}

static inline void ltr(uint16_t selector)
{
	__asm__ volatile("ltr %0" : : "r"(selector));
}

static inline uint64_t read_cr2(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline __attribute__((noreturn)) void halt_forever(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

#endif
