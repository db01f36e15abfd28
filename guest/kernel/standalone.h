/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest on its own, under QEMU: nobody shares memory with it, so vCPU
 * 0 does what plerig's VMM does for the kvm backend (config in, other
 * vCPUs started, storm opened, results out) and the guest powers off.
 */
#ifndef PLERIG_GUEST_STANDALONE_H
#define PLERIG_GUEST_STANDALONE_H

#include <stdint.h>

#include "plerig/abi.h"

/* True once vCPU 0 found no config from a VMM, or the config asks for serial results. */
int standalone_active(const struct plerig_shared *sh);

/*
 * Ring 0, vCPU 0, no config in memory: read it from fw_cfg, check it with
 * @valid and say hello. On failure it reports and powers off.
 */
void standalone_boot(struct plerig_shared *sh, int (*valid)(unsigned vcpu));
/* Ring 0, vCPU 0, after its own setup: bring the other vCPUs up. */
void standalone_start_aps(const struct plerig_shared *sh);
/* Ring 0: the config failed the check; report and power off. */
void standalone_bad_config(struct plerig_shared *sh, uint32_t why) __attribute__((noreturn));

/* Ring 3, vCPU 0, before its storm: wait for every vCPU to be READY, then open the storm. */
void standalone_open_storm(struct plerig_shared *sh);
/* Ring 3, after the storm: vCPU 0 collects and sends, the others stop. */
void standalone_finish(struct plerig_shared *sh, unsigned vcpu) __attribute__((noreturn));

/*
 * Ring 0, from the trap handler: the end of standalone_finish (a #UD at a
 * known address is the only way back to ring 0 that PVM offers), or a
 * real exception, already recorded in @vcpu's result.
 */
/*
 * --inject hang without a host to stop it: spin until twice the host's
 * watchdog (--timeout) after the storm's end, which a living plerig never
 * lets pass; then vCPU 0 reports a stop timeout and powers off. A guest
 * whose plerig was killed does not spin for ever.
 */
void standalone_hang(struct plerig_shared *sh, unsigned vcpu) __attribute__((noreturn));
int standalone_is_finish(uint64_t vector, uint64_t rip);
void standalone_trap(struct plerig_shared *sh, unsigned vcpu, int finish) __attribute__((noreturn));

#endif
