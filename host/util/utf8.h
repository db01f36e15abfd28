/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UTF-8 strictly decoded, so that a stray byte from a file name or a
 * guest's message is seen as what it is (util/printable.h shows it so).
 */
#ifndef PLERIG_UTF8_H
#define PLERIG_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The character at @s: its length in bytes (1 to 4) with its code point in
 * @cp, or 0 when the bytes there are no UTF-8 (a stray continuation byte,
 * a sequence cut short, an overlong form, a surrogate, beyond U+10FFFF).
 * @s is NUL-terminated; the NUL itself is not a character here (0).
 */
size_t utf8_decode(const char *s, uint32_t *cp);

#endif
