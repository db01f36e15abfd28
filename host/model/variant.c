// SPDX-License-Identifier: GPL-2.0
#include "model/variant.h"

#include <stddef.h>
#include <string.h>

/*
 * The names are the command-line and JSON vocabulary: changing one breaks
 * scripts and stored results, so they live in one table per axis.
 */
static const char *const backend_names[BACKEND_COUNT] = {
    [BACKEND_KVM] = "kvm",
    [BACKEND_NATIVE] = "native",
    [BACKEND_LIBVIRT] = "libvirt",
    [BACKEND_LIBVIRT_TCG] = "libvirt-emulated",
};

static const char *const lock_names[PLERIG_LOCK_COUNT] = {
    [PLERIG_LOCK_TICKET] = "ticket",
    [PLERIG_LOCK_TAS] = "tas",
    [PLERIG_LOCK_MCS] = "mcs",
};

static const char *const relax_names[PLERIG_RELAX_COUNT] = {
    [PLERIG_RELAX_PAUSE] = "pause",	    [PLERIG_RELAX_NOP] = "nop",
    [PLERIG_RELAX_REP_PAUSE] = "rep-pause", [PLERIG_RELAX_NONE] = "none",
    [PLERIG_RELAX_PV_YIELD] = "pv-yield",
};

/* An out-of-range value gets a name too, so a corrupt variant still prints. */
static const char *name_of(const char *const *names, unsigned n, unsigned v)
{
	return v < n && names[v] ? names[v] : "?";
}

static int index_of(const char *const *names, unsigned n, const char *s)
{
	if (!s)
		return -1;
	for (unsigned i = 0; i < n; i++)
		if (names[i] && strcmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

const char *backend_name(enum backend_kind b)
{
	return name_of(backend_names, BACKEND_COUNT, (unsigned)b);
}

const char *lock_name(enum plerig_lock_kind l)
{
	return name_of(lock_names, PLERIG_LOCK_COUNT, (unsigned)l);
}

const char *relax_name(enum plerig_relax_kind r)
{
	return name_of(relax_names, PLERIG_RELAX_COUNT, (unsigned)r);
}

static const char *const ple_names[PLE_COUNT] = {
    [PLE_ON] = "on",
    [PLE_OFF] = "off",
};

const char *ple_name(enum ple_mode p)
{
	return name_of(ple_names, PLE_COUNT, (unsigned)p);
}

int ple_from_name(const char *s, enum ple_mode *out)
{
	int i = index_of(ple_names, PLE_COUNT, s);
	if (i < 0)
		return -1;
	*out = (enum ple_mode)i;
	return 0;
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

int backend_from_name(const char *s, enum backend_kind *out)
{
	int i = index_of(backend_names, BACKEND_COUNT, s);
	if (i < 0)
		return -1;
	*out = (enum backend_kind)i;
	return 0;
}

int lock_from_name(const char *s, enum plerig_lock_kind *out)
{
	int i = index_of(lock_names, PLERIG_LOCK_COUNT, s);
	if (i < 0)
		return -1;
	*out = (enum plerig_lock_kind)i;
	return 0;
}

int relax_from_name(const char *s, enum plerig_relax_kind *out)
{
	int i = index_of(relax_names, PLERIG_RELAX_COUNT, s);
	if (i < 0)
		return -1;
	*out = (enum plerig_relax_kind)i;
	return 0;
}

int ring_from_name(const char *s, enum plerig_ring *out)
{
	if (s && strcmp(s, "kernel") == 0) {
		*out = PLERIG_RING_KERNEL;
		return 0;
	}
	if (s && strcmp(s, "user") == 0) {
		*out = PLERIG_RING_USER;
		return 0;
	}
	return -1;
}
