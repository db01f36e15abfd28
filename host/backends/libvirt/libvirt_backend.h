/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The libvirt backend: the same guest and storm under QEMU, driven
 * through libvirt. The guest times itself and sends its results over the
 * serial port (plerig/frame.h), since QEMU shares no memory with plerig.
 */
#ifndef PLERIG_LIBVIRT_BACKEND_H
#define PLERIG_LIBVIRT_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "backends/backend.h"

struct libvirt_backend_options {
	const char *guest_path;	   /* the guest image */
	const char *uri;	   /* NULL: libvirt's embedded QEMU driver in the cache dir */
	const char *cache_dir;	   /* NULL: the default (see connection.h) */
	const char *template_path; /* NULL: plerig-domain.xml next to the guest image */
	bool tcg;		   /* QEMU's emulator instead of KVM: labelled emulated */
};

/* Connect, read the image and the domain template once. NULL with @err filled. */
struct backend *libvirt_backend_open(const struct libvirt_backend_options *o, char *err,
				     size_t errlen);

#endif
