// SPDX-License-Identifier: GPL-2.0
#include "model/variant.h"

#include <stdio.h>

#include "model/names.h"

const char *backend_name(enum backend_kind b)
{
	return name_of(&backend_names, (unsigned)b);
}

bool lock_is_fair(enum plerig_lock_kind l)
{
	return l == PLERIG_LOCK_TICKET || l == PLERIG_LOCK_MCS || l == PLERIG_LOCK_PVQSPIN;
}

const char *halt_poll_label(const struct variant *v, char *buf, size_t len)
{
	if (v->halt_poll_ns == HALT_POLL_HOST)
		return "";
	snprintf(buf, len, " halt-poll=%lldns", (long long)v->halt_poll_ns);
	return buf;
}

const char *lock_name(enum plerig_lock_kind l)
{
	return name_of(&lock_names, (unsigned)l);
}

const char *relax_name(enum plerig_relax_kind r)
{
	return name_of(&relax_names, (unsigned)r);
}

const char *ple_name(enum ple_mode p)
{
	return name_of(&ple_names, (unsigned)p);
}

const char *ring_name(enum plerig_ring r)
{
	switch (r) {
	case PLERIG_RING_KERNEL:
		return "kernel";
	case PLERIG_RING_USER:
		return "user";
	}
	return "?";
}
