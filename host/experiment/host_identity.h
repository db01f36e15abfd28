/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who a host of --connect is, before anything runs there: what `plerig
 * check --connect` keys each host's baseline by.
 */
#ifndef PLERIG_HOST_IDENTITY_H
#define PLERIG_HOST_IDENTITY_H

#include <stddef.h>

#include "measure/host_info.h"

/*
 * @h for the host @uri reaches: this machine's own identity for the
 * embedded driver (NULL) and URIs without a host part, else what libvirt
 * reports of the other machine (its kernel, KVM module and PLE parameters
 * unknown, with the reason). 0, or -1 with @err (not reachable).
 */
int host_identity(const char *uri, struct host_info *h, char *err, size_t errlen);

/*
 * A host that could not be reached: its name from @uri's host part, every
 * other field unknown with the reason, @uri (without credentials) as its
 * connection. @uri NULL: the embedded driver.
 */
void host_identity_unreached(const char *uri, struct host_info *h);

#endif
