// SPDX-License-Identifier: GPL-2.0
#include "backends/emulated/l1_side.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>

#include "util/errbuf.h"

/* The control register: printer selected, not in reset, no interrupt; plus the strobe. */
#define CTRL_IDLE   0x0cu
#define CTRL_STROBE 0x01u

int l1_side_open(struct l1_side *s, const char *spec, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	if (strncmp(spec, "ioport:", 7)) {
		s->file = fopen(spec, "ae");
		return s->file ? 0 : errbuf_printf(err, errlen, "%s: %s", spec, strerror(errno));
	}
	char *end;
	errno = 0;
	const unsigned long port = strtoul(spec + 7, &end, 0);
	if (errno || *end || port == 0 || port > 0xfffc)
		return errbuf_printf(err, errlen, "%s: not an I/O port", spec);
	if (ioperm(port, 3, 1))
		return errbuf_printf(err, errlen, "ioperm of %s: %s", spec, strerror(errno));
	outb(CTRL_IDLE, port + 2);
	/* Bochs' parallel port reads its control bits back; an absent one reads 0xff */
	const unsigned ctrl = inb(port + 2) & 0x3fu;
	if (ctrl != CTRL_IDLE) {
		(void)ioperm(port, 3, 0);
		return errbuf_printf(err, errlen,
				     "%s: no parallel port (its control register reads 0x%02x)",
				     spec, ctrl);
	}
	s->port = (unsigned)port;
	return 0;
}

int l1_side_write(struct l1_side *s, const void *data, size_t len, char *err, size_t errlen)
{
	const unsigned char *p = data;
	if (!l1_side_on(s))
		return errbuf_printf(err, errlen, "no side channel");
	if (s->file) {
		if (fwrite(p, 1, len, s->file) != len || fflush(s->file))
			return errbuf_printf(err, errlen, "writing the side channel: %s",
					     strerror(errno));
		return 0;
	}
	/* Bochs takes the data byte at the strobe's rising edge and writes it out */
	for (size_t i = 0; i < len; i++) {
		outb(p[i], s->port);
		outb(CTRL_IDLE | CTRL_STROBE, s->port + 2);
		outb(CTRL_IDLE, s->port + 2);
	}
	return 0;
}

void l1_side_close(struct l1_side *s)
{
	if (s->file)
		fclose(s->file);
	else if (s->port)
		(void)ioperm(s->port, 3, 0);
	memset(s, 0, sizeof(*s));
}
