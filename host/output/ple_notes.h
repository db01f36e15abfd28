/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why PAUSE-loop exits or run delay are missing, or what a reader of them
 * must know: once per reason.
 */
#ifndef PLERIG_PLE_NOTES_H
#define PLERIG_PLE_NOTES_H

#include <stdio.h>

#include "model/outcome.h"

/*
 * "ple-exits n/a (kvm, libvirt): ...", "note (kvm): ..." and "run-delay n/a
 * (libvirt): ..." lines, then the
 * time in exits of each variant run with --exit-times ("exit-times (...): ...").
 */
void ple_notes_print(FILE *f, const struct outcome *rep);

#endif
