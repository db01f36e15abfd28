/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files plerig ships with itself (the guest image, the libvirt domain
 * template, the default suite): next to the running binary in a build
 * tree (BUILD/images/NAME), else where `meson install` put them
 * (PLERIG_DATADIR/NAME, compiled in).
 */
#ifndef PLERIG_DATA_PATH_H
#define PLERIG_DATA_PATH_H

#include <stddef.h>

/* @name ("plerig-guest.elf") into @out: the build tree's copy if there is one, else the installed one. */
void data_path(const char *name, char *out, size_t len);

#endif
