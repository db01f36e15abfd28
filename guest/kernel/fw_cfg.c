// SPDX-License-Identifier: GPL-2.0
/*
 * fw_cfg over I/O ports 0x510 (selector) and 0x511 (data): select an item,
 * then read it as a byte stream. The directory and the file each come in
 * with one `rep insb`, so in one exit; the name search is the only loop,
 * and it compares eight bytes at a time (every instruction of it is
 * emulated on PVM).
 */
#include "kernel/fw_cfg.h"

#include "kernel/io.h"
#include "plerig/frame.h"

#define FW_CFG_PORT_SEL	 0x510
#define FW_CFG_PORT_DATA 0x511
#define FW_CFG_SIGNATURE 0x0000
#define FW_CFG_FILE_DIR	 0x0019
#define FW_CFG_MAX_FILES 128 /* QEMU machines have a few dozen */

struct fw_cfg_file {
	uint32_t size_be;
	uint16_t select_be;
	uint16_t reserved;
	uint64_t name[FW_CFG_NAME_WORDS];
};

static struct fw_cfg_file dir[FW_CFG_MAX_FILES];

static uint32_t be32(uint32_t v)
{
	return __builtin_bswap32(v);
}

static int name_equals(const uint64_t *a, const uint64_t *b)
{
	for (unsigned i = 0; i < FW_CFG_NAME_WORDS; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

int fw_cfg_read_file(const union fw_cfg_name *name, void *buf, uint32_t max, uint32_t *size)
{
	uint32_t v;

	outw(FW_CFG_PORT_SEL, FW_CFG_SIGNATURE);
	insb(FW_CFG_PORT_DATA, &v, sizeof(v));
	if (v != 0x554d4551) /* "QEMU" */
		return PLERIG_CONFIG_ERR_NO_FW_CFG;
	outw(FW_CFG_PORT_SEL, FW_CFG_FILE_DIR);
	insb(FW_CFG_PORT_DATA, &v, sizeof(v));
	uint32_t count = be32(v);
	if (count > FW_CFG_MAX_FILES)
		count = FW_CFG_MAX_FILES;
	insb(FW_CFG_PORT_DATA, dir, count * sizeof(dir[0]));
	for (uint32_t i = 0; i < count; i++) {
		if (!name_equals(dir[i].name, name->w))
			continue;
		*size = be32(dir[i].size_be);
		outw(FW_CFG_PORT_SEL, __builtin_bswap16(dir[i].select_be));
		insb(FW_CFG_PORT_DATA, buf, *size < max ? *size : max);
		return 0;
	}
	return PLERIG_CONFIG_ERR_NO_FILE;
}
