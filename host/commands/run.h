/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PLERIG_RUNNER_H
#define PLERIG_RUNNER_H

/* `plerig run`: returns the process exit status. */
int runner_main(int argc, char **argv, const char *default_guest_path);

#endif
