/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who a host of --connect is, before anything runs there: what `plerig
 * check --connect` keys each host's baseline by.
 */
#ifndef PLERIG_HOST_IDENTITY_H
#define PLERIG_HOST_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>

#include "measure/host_info.h"

/*
 * Does @uri run its VMs on this machine: the embedded driver (NULL) or a
 * URI without a host part (qemu:///system, qemu:///session)? Then this
 * machine's KVM parameters and tracepoints are that host's. A URI with a
 * host part is another machine, even one that names this machine
 * (qemu+ssh://127.0.0.1/system): what it reaches is not known from here.
 */
bool host_is_this_machine(const char *uri);

/*
 * @h for the host @uri reaches: this machine's own identity for the
 * embedded driver (NULL) and URIs without a host part, else what libvirt
 * reports of the other machine (its KVM module inferred from its
 * capabilities, its kernel and PLE parameters unknown, with the reason).
 * 0, or -1 with @err (not reachable).
 */
int host_identity(const char *uri, struct host_info *h, char *err, size_t errlen);

/*
 * A host that could not be reached: its name from @uri's host part, every
 * other field unknown with the reason, @uri (without credentials) as its
 * connection. @uri NULL: the embedded driver.
 */
void host_identity_unreached(const char *uri, struct host_info *h);

#endif
