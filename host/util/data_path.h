/* SPDX-License-Identifier: GPL-2.0 */
/* Files plerig ships with itself, found next to the running binary (BUILD/images/...). */
#ifndef PLERIG_DATA_PATH_H
#define PLERIG_DATA_PATH_H

#include <stddef.h>

/*
 * @rel ("images/plerig-guest.elf") in the directory of /proc/self/exe,
 * into @out; @rel itself (relative to the working directory) when the
 * binary's path cannot be read.
 */
void data_path(const char *rel, char *out, size_t len);

#endif
