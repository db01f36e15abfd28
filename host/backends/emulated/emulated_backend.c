// SPDX-License-Identifier: GPL-2.0
#include "backends/emulated/emulated_backend.h"

#include <stdlib.h>

#include "util/errbuf.h"

struct emulated_backend {
	struct backend base; /* first: the runner sees only this */
	struct emulated_host *host;
};

static int em_run(struct backend *base, const struct variant *v, struct variant_result *r)
{
	return emulated_host_run(((struct emulated_backend *)base)->host, v, r);
}

static int em_remote_host(struct backend *base, struct host_info *h)
{
	*h = *emulated_host_info(((struct emulated_backend *)base)->host);
	return 0;
}

static void em_close(struct backend *base)
{
	emulated_host_close(((struct emulated_backend *)base)->host);
	free(base);
}

int emulated_backend_hold(struct backend *base, bool hold, char *err, size_t errlen)
{
	return emulated_host_hold(((struct emulated_backend *)base)->host, hold, err, errlen);
}

struct backend *emulated_backend_open(const struct emulated_options *o, enum emulated_failure *why,
				      char *err, size_t errlen)
{
	struct emulated_backend *b = calloc(1, sizeof(*b));
	if (!b || !(b->host = emulated_host_open(o, why, err, errlen))) {
		if (!b)
			errbuf_printf(err, errlen, "emulated host: out of memory");
		free(b);
		return NULL;
	}
	b->base.kind = BACKEND_KVM;
	b->base.run = em_run;
	b->base.close = em_close;
	/* L1 is a VMX host: ring 0 runs natively there, and Intel PLE counts only at CPL 0 */
	b->base.default_ring = PLERIG_RING_KERNEL;
	b->base.description = emulated_host_description(b->host);
	b->base.remote_host = em_remote_host;
	return &b->base;
}
