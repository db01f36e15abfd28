/* SPDX-License-Identifier: GPL-2.0 */
/* Comma lists on the command line ("pause,nop", "0-3,8"), strictly. */
#ifndef PLERIG_COMMA_LIST_H
#define PLERIG_COMMA_LIST_H

#include <stddef.h>

#define LIST_ITEM_MAX 64

/*
 * Next item of a comma list, by hand rather than strtok: strtok would
 * merge "a,,b" into two items and hide the typo. Returns 1 with the item
 * in @item, 0 at the end, -1 on an empty item, -2 on an overlong one.
 */
int list_next(const char **p, char *item, size_t len);
/* The message for list_next's @rc < 0 (or an empty @value); returns -1. */
int list_item_error(const char *opt, const char *value, int rc, const char *allowed, char *err,
		    size_t errlen);

#endif
