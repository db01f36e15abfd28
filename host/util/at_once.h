/* SPDX-License-Identifier: GPL-2.0 */
/* The same work on several items, each on a thread of its own, all at once (hosts of --connect). */
#ifndef PLERIG_AT_ONCE_H
#define PLERIG_AT_ONCE_H

#include <stddef.h>

/*
 * @fn(item) for each of the @n items of @size bytes at @items, each on a
 * thread of its own, and wait for all; an item whose thread cannot start
 * runs in the caller's thread after the others started. Returns how many
 * calls returned non-NULL (the caller's sign of failure).
 */
unsigned at_once(void *items, size_t size, unsigned n, void *(*fn)(void *));

#endif
