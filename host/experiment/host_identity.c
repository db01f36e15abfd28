// SPDX-License-Identifier: GPL-2.0
#include "experiment/host_identity.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "backends/libvirt/connection.h"
#include "backends/libvirt/lv_host_info.h"
#include "measure/kvm_system.h"
#include "model/connect_list.h"
#include "util/cache_dir.h"
#include "util/strfmt.h"
#include "util/uri_redact.h"

bool host_is_this_machine(const char *uri)
{
	return !uri || !lv_uri_is_remote(uri);
}

int host_identity(const char *uri, struct host_info *h, char *err, size_t errlen)
{
	if (host_is_this_machine(uri)) {
		host_info_collect(h, kvm_active_module());
		return 0;
	}
	struct lv_connection c;
	char cache[PATH_MAX];
	/* libvirt's own log goes there, as for a run */
	if (cache_dir_default(cache, sizeof(cache), err, errlen) ||
	    lv_connection_open(&c, uri, cache, err, errlen))
		return -1;
	int rc = lv_host_info(c.conn, c.shown, h, err, errlen);
	lv_connection_close(&c);
	return rc;
}

void host_identity_unreached(const char *uri, struct host_info *h)
{
	memset(h, 0, sizeof(*h));
	/* an emulated host is named as --connect names it: emulated:amd is not emulated */
	if (connect_is_emulated(uri))
		str_copy(h->name, sizeof(h->name), uri);
	else
		connect_uri_host(uri ? uri : "", h->name, sizeof(h->name));
	str_copy(h->kernel, sizeof(h->kernel), "unknown");
	str_copy(h->kvm_module, sizeof(h->kvm_module), "unknown");
	str_copy(h->cpu_model, sizeof(h->cpu_model), "unknown");
	h->smt = -1;
	str_copy(h->unknown_why, sizeof(h->unknown_why),
		 connect_is_emulated(uri) ? "the emulated host did not start (its error says why)"
					  : "plerig could not reach the host (its error says why)");
	if (uri)
		uri_redact(uri, h->connection, sizeof(h->connection));
	else
		str_copy(h->connection, sizeof(h->connection), CONNECT_EMBEDDED);
}
