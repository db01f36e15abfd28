/* SPDX-License-Identifier: GPL-2.0 */
/* Starting the application processors where no VMM starts them for us (QEMU). */
#ifndef PLERIG_GUEST_SMP_H
#define PLERIG_GUEST_SMP_H

/* From vCPU 0 at ring 0: every other vCPU enters pvh_entry through the trampoline. */
void smp_start_aps(void);

#endif
