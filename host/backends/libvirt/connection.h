/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A libvirt connection for the libvirt backend: by default libvirt's
 * embedded QEMU driver (qemu:///embed?root=CACHE/libvirt: no daemon, its
 * state and QEMU capability cache kept between runs), or any URI the user
 * names. libvirt's event loop runs on a thread of its own for as long as
 * a connection is open: the embedded driver talks to QEMU's monitor
 * through it, and keepalives of remote connections need it too.
 */
#ifndef PLERIG_LIBVIRT_CONNECTION_H
#define PLERIG_LIBVIRT_CONNECTION_H

#include <libvirt/libvirt.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct lv_connection {
	virConnectPtr conn;
	bool embedded;		       /* ours: qemu:///embed with root below the cache dir */
	bool local;		       /* QEMU runs on this machine (no host in the URI) */
	char uri[3 * PATH_MAX + 64];   /* a root path may be %-escaped whole */
	char root[PATH_MAX];	       /* the embed root, when embedded */
	char shown[3 * PATH_MAX + 64]; /* uri without its credentials (util/uri_redact.h) */
};

/*
 * Connect to @uri, or (NULL) to the embedded driver rooted in
 * @cache_dir/libvirt, which is created and configured as the embedded
 * driver needs when run as root. 0, or -1 with @err saying what failed
 * and what to do about it.
 */
int lv_connection_open(struct lv_connection *c, const char *uri, const char *cache_dir, char *err,
		       size_t errlen);
void lv_connection_close(struct lv_connection *c);

/* Does @uri name another host ("qemu+ssh://hostA/system"), not this one ("qemu:///system")? */
bool lv_uri_is_remote(const char *uri);

/* libvirt's message for the last failed call, never NULL. */
const char *lv_last_error(void);

#endif
