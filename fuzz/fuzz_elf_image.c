// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: the guest ELF loader (backends/kvm/elf_image.c) on any bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/kvm/elf_image.h"
#include "plerig/abi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *mem;
	if (!mem && !(mem = malloc(PLERIG_GUEST_MEM_SIZE)))
		abort();
	/* a copy of exactly @size bytes: ASan sees any read past the file */
	uint8_t *file = malloc(size ? size : 1);
	if (!file)
		abort();
	memcpy(file, data, size);
	struct elf_image_info info;
	char err[192];
	if (elf_image_load(file, size, mem, 0, PLERIG_GUEST_MEM_SIZE, PLERIG_IMAGE_BASE,
			   PLERIG_SHARED_GPA, &info, err, sizeof(err)) == 0) {
		/* what the VMM relies on, for a file the loader accepted */
		if (info.load_low < PLERIG_IMAGE_BASE || info.load_high > PLERIG_SHARED_GPA ||
		    info.load_low > info.load_high)
			abort();
	} else if (!memchr(err, '\0', sizeof(err)) || !err[0]) {
		abort(); /* a refusal always says why */
	}
	free(file);
	return 0;
}
