/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text from files plerig reads, made safe to print: control characters
 * (C0, DEL, and C1 as UTF-8, U+0080 to U+009F, which terminals take as
 * escape sequences too) as \xHH, so that a planted string cannot move the
 * cursor, recolour the terminal or forge a line of output.
 */
#ifndef PLERIG_PRINTABLE_H
#define PLERIG_PRINTABLE_H

#include <stdbool.h>
#include <stddef.h>

/* Has @s no control character (as printable_copy defines them)? */
bool printable_plain(const char *s);
/* @src into @dst (@len bytes, NUL-terminated), escaped; false when it had to be cut. */
bool printable_copy(char *dst, size_t len, const char *src);

#endif
