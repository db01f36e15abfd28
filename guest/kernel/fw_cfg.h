/* SPDX-License-Identifier: GPL-2.0 */
/* QEMU's firmware configuration device, through its I/O ports (ring 0). */
#ifndef PLERIG_GUEST_FW_CFG_H
#define PLERIG_GUEST_FW_CFG_H

#include <stdint.h>

#define FW_CFG_NAME_WORDS 7 /* 56-byte names */

/* A file name, zero-padded: built by the compiler, compared a word at a time. */
union fw_cfg_name {
	uint64_t w[FW_CFG_NAME_WORDS];
	char c[8 * FW_CFG_NAME_WORDS];
};

/*
 * Read the fw_cfg file @name into @buf (at most @max bytes); its full size
 * goes to *size. 0, or enum plerig_config_error (no device, no file).
 */
int fw_cfg_read_file(const union fw_cfg_name *name, void *buf, uint32_t max, uint32_t *size);

#endif
