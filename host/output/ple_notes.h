/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why a figure of the table is n/a (PAUSE-loop exits, run delay, waits,
 * exits ...), or what a reader of it must know: once per reason.
 */
#ifndef PLERIG_PLE_NOTES_H
#define PLERIG_PLE_NOTES_H

#include <stdio.h>

#include "model/outcome.h"

/*
 * "ple-exits n/a (kvm, libvirt): ...", "note (kvm): ...", "run-delay n/a
 * (libvirt): ...", "wait n/a (native): ..." lines, then the
 * time in exits of each variant run with --exit-times ("exit-times (...): ...").
 */
void ple_notes_print(FILE *f, const struct outcome *rep);

#endif
