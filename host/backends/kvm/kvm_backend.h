/* SPDX-License-Identifier: GPL-2.0 */
/* The default backend: plerig's own VMM on raw KVM ioctls. */
#ifndef PLERIG_KVM_BACKEND_H
#define PLERIG_KVM_BACKEND_H

#include <stddef.h>

#include "backends/backend.h"

/* Open /dev/kvm and read the guest image once. NULL with @err filled. */
struct backend *kvm_backend_open(const char *guest_path, char *err, size_t errlen);

/*
 * One VM created and destroyed on @b (a kvm backend), measuring nothing:
 * what a host's first VM costs, paid before any run. 0, or -1 with @err.
 */
int kvm_backend_warm_up(struct backend *b, char *err, size_t errlen);

#endif
