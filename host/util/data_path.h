/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files plerig ships with itself (the guest image, the libvirt domain
 * template, the default suite): next to the running binary in a build
 * tree, else where `meson install` put them (PLERIG_DATADIR, compiled in).
 */
#ifndef PLERIG_DATA_PATH_H
#define PLERIG_DATA_PATH_H

#include <stddef.h>

/*
 * BUILD/@dir/@name into @out when the running binary has one beside it,
 * else the installed copy: the build tree's images/ is the data directory
 * itself (PLERIG_DATADIR/plerig-guest.elf), a folder under it a folder of the
 * data directory (images/l1: PLERIG_DATADIR/l1/init), any other @dir a folder
 * in it (PLERIG_DATADIR/suites/default.cfg).
 */
void data_path(const char *dir, const char *name, char *out, size_t len);

#endif
