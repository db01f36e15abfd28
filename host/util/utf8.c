// SPDX-License-Identifier: GPL-2.0
#include "util/utf8.h"

size_t utf8_decode(const char *s, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n;
	uint32_t c, min;

	if (u[0] == 0)
		return 0;
	if (u[0] < 0x80) {
		*cp = u[0];
		return 1;
	}
	if ((u[0] & 0xe0) == 0xc0) {
		n = 2, c = u[0] & 0x1f, min = 0x80;
	} else if ((u[0] & 0xf0) == 0xe0) {
		n = 3, c = u[0] & 0x0f, min = 0x800;
	} else if ((u[0] & 0xf8) == 0xf0) {
		n = 4, c = u[0] & 0x07, min = 0x10000;
	} else {
		return 0; /* a continuation byte, or 0xf8..0xff */
	}
	for (size_t i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80) /* the NUL at the end fails here too */
			return 0;
		c = c << 6 | (u[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}
