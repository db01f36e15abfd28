/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ctrl-C and SIGTERM only raise a flag: the run in progress is torn down
 * by the code that owns it, results measured so far are kept and written.
 */
#ifndef PLERIG_INTERRUPT_H
#define PLERIG_INTERRUPT_H

#include <stdbool.h>

int interrupt_install(void);
bool interrupt_requested(void);
/* The signal that asked, for the exit status (128 + signo); 0 if none. */
int interrupt_signal(void);

#endif
