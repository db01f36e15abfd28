/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The no-virtualisation baseline: the same storm object code, run by host
 * threads pinned like vCPU threads, driven through the same phases.
 */
#ifndef PLERIG_NATIVE_BACKEND_H
#define PLERIG_NATIVE_BACKEND_H

#include <stddef.h>

#include "backends/backend.h"

struct backend *native_backend_open(char *err, size_t errlen);

#endif
