/* SPDX-License-Identifier: GPL-2.0 */
/* Guest-internal layout shared by the assembly entry and the C kernel. */
#ifndef PLERIG_GUEST_LAYOUT_H
#define PLERIG_GUEST_LAYOUT_H

#define KSTACK_SHIFT 13 /* 8 KiB ring-0 stack per vCPU */
#define USTACK_SHIFT 13 /* 8 KiB ring-3 stack per vCPU */

#define SEL_KERNEL_CODE 0x08
#define SEL_KERNEL_DATA 0x10
#define SEL_USER_DATA	(0x18 | 3)
#define SEL_USER_CODE	(0x20 | 3)
#define GDT_FIRST_TSS	5 /* vCPU n's 16-byte TSS descriptor is entries 5+2n, 6+2n */

#endif
