/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UTF-8 as the formats plerig writes for machines (JUnit XML, TAP and its
 * YAML) require it: strictly decoded, so that a stray byte from a file
 * name or a guest's message is seen as what it is.
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

/*
 * A character every reader shows as itself: not a control character (tab
 * aside), not DEL or a C1 control, not a line separator a text reader
 * splits at (U+2028, U+2029), not one of the noncharacters U+FFFE and
 * U+FFFF that XML forbids.
 */
bool utf8_printable(uint32_t cp);

#endif
