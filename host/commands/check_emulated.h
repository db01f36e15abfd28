/* SPDX-License-Identifier: GPL-2.0 */
/* `plerig check --connect emulated`: the whole check inside L1 (commands/check.c only). */
#ifndef PLERIG_CHECK_EMULATED_H
#define PLERIG_CHECK_EMULATED_H

#include <stdio.h>

#include "cli/check_options.h"
#include "commands/commands.h"
#include "model/check_result.h"

/*
 * The suite at @suite_path checked inside L1 against this host's store,
 * its summary on @summary, its files where @o names them. The exit status
 * of L1's check; 125 when L1's kernel cannot be tested, 77 when the
 * emulated host could not start for another reason.
 */
int check_emulated(const struct check_options *o, const char *suite_path, const char *guest_path,
		   FILE *summary);

#endif
