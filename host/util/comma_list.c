// SPDX-License-Identifier: GPL-2.0
#include "util/comma_list.h"

#include <string.h>

#include "util/errbuf.h"

/*
 * Next item of a comma list, by hand rather than strtok: strtok would
 * merge "a,,b" into two items and hide the typo. Returns 1 with the item
 * in @item, 0 at the end, -1 on an empty item, -2 on an overlong one.
 */
int list_next(const char **p, char *item, size_t len)
{
	if (!*p)
		return 0;
	const char *comma = strchr(*p, ',');
	size_t n = comma ? (size_t)(comma - *p) : strlen(*p);
	if (n == 0)
		return -1;
	if (n >= len)
		return -2;
	memcpy(item, *p, n);
	item[n] = '\0';
	*p = comma ? comma + 1 : NULL;
	return 1;
}

int list_item_error(const char *opt, const char *value, int rc, const char *allowed, char *err,
		    size_t errlen)
{
	if (!*value)
		return errbuf_printf(err, errlen, "%s: empty list (allowed: %s)", opt, allowed);
	if (rc == -1)
		return errbuf_printf(err, errlen, "%s: empty item in '%s' (allowed: %s)", opt,
				     value, allowed);
	return errbuf_printf(err, errlen, "%s: item too long in '%s' (allowed: %s)", opt, value,
			     allowed);
}
