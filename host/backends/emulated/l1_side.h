/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The side channel of L1's answers: a file's gzip'ed bytes through Bochs'
 * parallel port (parport1, whose output is the run's lpt1.out), not as
 * base64 lines on COM1. COM1 is a UART at 115200 baud, 11.5 KB a second of
 * L1's clock: the gate's results took 7.6 emulated seconds there. The
 * parallel port has no clock of its own: Bochs writes the data byte to its
 * file at the strobe, three OUT instructions a byte. COM1 still says what
 * came, after the bytes ("@@ple file-at NAME SIZE SHA256", l1_protocol.h),
 * and the controller takes the next SIZE bytes of lpt1.out, in order.
 */
#ifndef PLERIG_L1_SIDE_H
#define PLERIG_L1_SIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define L1_SIDE_FILE "lpt1.out" /* parport1's output, in the run's directory */

struct l1_side {
	unsigned port; /* the I/O base, or 0 */
	FILE *file;    /* or a file, or neither: off */
};

static inline bool l1_side_on(const struct l1_side *s)
{
	return s->port || s->file;
}

/*
 * @spec "ioport:0x378": L1's parallel port, by ioperm (root in L1; l1-serve
 * runs nowhere else but in tests, which give a file); -1 with @err where
 * the port cannot be had or does not answer as Bochs' does. Else a file to
 * append to (a test's stand-in for Bochs' output).
 */
int l1_side_open(struct l1_side *s, const char *spec, char *err, size_t errlen);
/* @len bytes out. 0, or -1 with @err. */
int l1_side_write(struct l1_side *s, const void *data, size_t len, char *err, size_t errlen);
void l1_side_close(struct l1_side *s);

#endif
