/* SPDX-License-Identifier: GPL-2.0 */
/* Privileged x86 instructions the guest kernel needs, as inline functions. */
#ifndef PLERIG_GUEST_CPU_H
#define PLERIG_GUEST_CPU_H

#include <stdint.h>

struct __attribute__((packed)) descriptor_pointer {
	uint16_t limit;
	uint64_t base;
};

static inline void lidt(const struct descriptor_pointer *p)
{
	__asm__ volatile("lidt %0" : : "m"(*p));
}

static inline void ltr(uint16_t selector)
{
	__asm__ volatile("ltr %0" : : "r"(selector));
}

static inline void wrmsr(uint32_t msr, uint64_t value)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)value), "d"((uint32_t)(value >> 32)));
}

static inline uint64_t read_cr2(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

#endif
