/* SPDX-License-Identifier: GPL-2.0 */
/* Port and MMIO access for the devices the guest talks to under QEMU (ring 0 only). */
#ifndef PLERIG_GUEST_IO_H
#define PLERIG_GUEST_IO_H

#include <stdint.h>

#include "storm/tsc.h" /* rdtsc(), the storm's clock */

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

/* String I/O moves a whole buffer in one instruction, so in one exit: each
 * instruction at ring 0 is emulated on PVM, and each exit costs ~50 us. */
static inline void insb(uint16_t port, void *buf, uint64_t n)
{
	__asm__ volatile("rep insb" : "+D"(buf), "+c"(n) : "d"(port) : "memory");
}

static inline void outsb(uint16_t port, const void *buf, uint64_t n)
{
	__asm__ volatile("rep outsb" : "+S"(buf), "+c"(n) : "d"(port) : "memory");
}

static inline void mmio_write32(uint64_t addr, uint32_t v)
{
	*(volatile uint32_t *)addr = v;
}

static inline void mmio_write8(uint64_t addr, uint8_t v)
{
	*(volatile uint8_t *)addr = v;
}

static inline __attribute__((noreturn)) void halt_forever(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

#endif
