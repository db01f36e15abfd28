/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The emulated host as the engine's backend (`run --connect emulated`):
 * each variant runs inside L1 with L1's kvm (or native) backend, and its
 * whole result comes back, so that the figures of that host are computed by
 * the code that computes them everywhere (emulated_host.h).
 */
#ifndef PLERIG_EMULATED_BACKEND_H
#define PLERIG_EMULATED_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "backends/backend.h"
#include "backends/emulated/emulated_host.h"

/*
 * Boot the emulated host (emulated_host_open). NULL with @err when it
 * cannot, and in @why (unless NULL) whose fault that is.
 */
struct backend *emulated_backend_open(const struct emulated_options *o, enum emulated_failure *why,
				      char *err, size_t errlen);

/*
 * Hold the Bochs of @b, a backend emulated_backend_open gave, or let it go
 * on (emulated_host_hold): two emulated hosts of one run take turns, one
 * Bochs running at a time. 0, or -1 with @err.
 */
int emulated_backend_hold(struct backend *b, bool hold, char *err, size_t errlen);

#endif
