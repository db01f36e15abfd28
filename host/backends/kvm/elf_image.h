/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loader for the guest kernel: a static ELF64 x86-64 executable whose
 * PT_LOAD segments are copied to their physical addresses in guest memory.
 * The file is untrusted input (it is whatever --guest names), so every
 * offset and size in it is checked before a single byte is copied.
 */
#ifndef PLERIG_ELF_IMAGE_H
#define PLERIG_ELF_IMAGE_H

#include <stddef.h>
#include <stdint.h>

/* Read no guest image larger than this: the guest has 7 MiB to load into. */
#define ELF_IMAGE_MAX_FILE_SIZE (64ull << 20)

struct elf_image_info {
	uint64_t entry;	    /* e_entry */
	uint64_t pvh_entry; /* 32-bit PVH entry from the Xen ELF note, 0 if absent */
	uint64_t load_low;  /* lowest guest-physical address loaded */
	uint64_t load_high; /* one past the highest guest-physical address loaded */
};

/*
 * Validate @file (@len bytes) and copy its PT_LOAD segments to
 * mem[p_paddr - mem_base], zero-filling p_memsz beyond p_filesz. Every
 * segment must lie inside [load_min, load_max) and inside the buffer
 * [mem_base, mem_base + mem_size). The entry point used by the VMM (the PVH
 * entry if the file has one, else e_entry) must lie in an executable
 * segment. Nothing is written to @mem unless the whole file is valid.
 * Returns 0, or -1 with a one-line message in @err saying what is wrong.
 * @info may be NULL.
 */
int elf_image_load(const void *file, size_t len, uint8_t *mem, uint64_t mem_base, uint64_t mem_size,
		   uint64_t load_min, uint64_t load_max, struct elf_image_info *info, char *err,
		   size_t errlen);

/*
 * Read the whole regular file @path (at most ELF_IMAGE_MAX_FILE_SIZE bytes)
 * into a malloc'd buffer the caller frees. Returns 0, or -1 with @err filled.
 */
int elf_image_read_file(const char *path, void **data, size_t *len, char *err, size_t errlen);

#endif
