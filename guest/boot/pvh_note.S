/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Xen PVH ELF note (XEN_ELFNOTE_PHYS32_ENTRY = 18): lets QEMU boot this
 * image with -kernel straight into pvh_entry; plerig's own VMM reads the
 * same note, so both start the guest through one door.
 */
	.section .note.Xen, "a"
	.balign 4
	.long 4f - 3f		/* namesz */
	.long 6f - 5f		/* descsz */
	.long 18		/* XEN_ELFNOTE_PHYS32_ENTRY */
3:	.asciz "Xen"
4:	.balign 4
5:	.quad pvh_entry
6:	.balign 4
