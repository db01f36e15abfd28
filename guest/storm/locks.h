/* SPDX-License-Identifier: GPL-2.0 */
/* The lock algorithms, one acquire/release pair per lock x relax variant. */
#ifndef PLERIG_LOCKS_H
#define PLERIG_LOCKS_H

#include "plerig/abi.h"

struct lock_ops {
	/* Returns 1 when the lock was not free at the first try (the caller waited for another
	 * holder). */
	int (*acquire)(struct plerig_lock_state *l, unsigned me);
	void (*release)(struct plerig_lock_state *l, unsigned me);
};

/* NULL for an out-of-range pair. */
const struct lock_ops *lock_ops_for(unsigned lock, unsigned relax);

#endif
