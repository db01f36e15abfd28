/* SPDX-License-Identifier: GPL-2.0 */
/* A variant as the guest (or native storm) reads it: struct plerig_config. */
#ifndef PLERIG_GUEST_CONFIG_H
#define PLERIG_GUEST_CONFIG_H

#include <stdint.h>

#include "model/variant.h"
#include "plerig/abi.h"

/* Everything that does not depend on the TSC rate; the rest zeroed. */
void guest_config_fill(struct plerig_config *cfg, const struct variant *v);
/* The thresholds in TSC cycles, once the rate is known. */
void guest_config_set_tsc(struct plerig_config *cfg, const struct variant *v, uint64_t tsc_khz);

#endif
