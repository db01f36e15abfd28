/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The relax instructions under test, as exact bytes: the assembler must
 * not get to choose ("rep; nop" and "pause" are the same f3 90, but a
 * compiler or assembler could pick another encoding of a nop).
 * tests/vm/check_relax_bytes.py checks the built spin loops hold them.
 */
#ifndef PLERIG_RELAX_H
#define PLERIG_RELAX_H

#define RELAX_pause()	  __asm__ volatile(".byte 0xf3, 0x90" : : : "memory")
#define RELAX_nop()	  __asm__ volatile(".byte 0x90" : : : "memory")
#define RELAX_rep_pause() __asm__ volatile(".byte 0xf3, 0xf3, 0x90" : : : "memory")
#define RELAX_none()	  __asm__ volatile("" : : : "memory")

/* X-macro over every relax variant: X(c_name, enum value) */
#define FOR_EACH_RELAX(X)                                                                          \
	X(pause, PLERIG_RELAX_PAUSE)                                                               \
	X(nop, PLERIG_RELAX_NOP)                                                                   \
	X(rep_pause, PLERIG_RELAX_REP_PAUSE)                                                       \
	X(none, PLERIG_RELAX_NONE)

#endif
