/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One CSV field, the one rule for every CSV plerig writes (results, sweep):
 * RFC 4180 quoting (a field with a comma, a quote or a line break is
 * quoted, a quote inside doubled), the printable rule (util/printable.h)
 * for the characters, and no formula: a spreadsheet runs a cell that
 * starts with = + - @ (or a tab or carriage return before one), so text
 * from outside (a host name, a variant's name, an error) that starts so is
 * written quoted after a ' (OWASP's rule for CSV injection). A number
 * stays a number: "-3.5" or "-1" is no formula and is written as it is.
 */
#ifndef PLERIG_OUTPUT_CSV_CELL_H
#define PLERIG_OUTPUT_CSV_CELL_H

#include <stdbool.h>
#include <stdio.h>

/* Would a spreadsheet read @s as a formula (and not as a number)? */
bool csv_cell_formula(const char *s);

/* @s (NULL: empty) as one field; @always_quote quotes it even when plain. */
void csv_cell_write(FILE *f, const char *s, bool always_quote);

#endif
