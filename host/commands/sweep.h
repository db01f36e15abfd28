/* SPDX-License-Identifier: GPL-2.0 */
/* `plerig sweep`: the run matrix once per host PLE parameter value, and the curve. */
#ifndef PLERIG_SWEEP_H
#define PLERIG_SWEEP_H

/* argv[0] is "sweep". Returns the process exit status. */
int sweep_main(int argc, char **argv, const char *default_guest_path);

#endif
