// SPDX-License-Identifier: GPL-2.0
#include "util/printable.h"

#include <stdio.h>

/* How many bytes of @s form one control character (0: none). */
static size_t control_at(const unsigned char *s)
{
	if (s[0] < 0x20 || s[0] == 0x7f)
		return 1;
	if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 2;
	return 0;
}

bool printable_plain(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (control_at(p))
			return false;
	return true;
}

bool printable_copy(char *dst, size_t len, const char *src)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t o = 0;

	if (!len)
		return false;
	while (*s) {
		size_t n = control_at(s);
		if (!n) {
			if (o + 1 >= len)
				break;
			dst[o++] = (char)*s++;
			continue;
		}
		if (o + 4 * n >= len)
			break;
		for (size_t i = 0; i < n; i++, o += 4)
			snprintf(dst + o, 5, "\\x%02x", s[i]);
		s += n;
	}
	dst[o] = '\0';
	return !*s;
}
