/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The date plerig puts on what it records (a tune's provenance, a
 * baseline's recorded_at). On a machine whose clock is not the
 * controlling host's, the environment carries the host's:
 * PLERIG_HOST_EPOCH=SECONDS, the controlling host's clock (seconds since
 * 1970) when this machine booted. make ple-test's L1 has it (its plan.env,
 * written as L1's boot is prepared): Bochs starts L1's clock at 2000-01-01,
 * and it is not set there because Linux mixes a time set into its entropy
 * pool (do_settimeofday64), while L1's random seeds stay the same from run
 * to run. The date is then SECONDS + the time since boot (CLOCK_BOOTTIME):
 * under Bochs in emulated seconds, so it lags the host's clock by what the
 * emulation took beyond the emulated time. `plerig l1-serve` (--connect
 * emulated) sets L1's clock itself instead, with every request.
 */
#ifndef PLERIG_WALL_CLOCK_H
#define PLERIG_WALL_CLOCK_H

#include <stddef.h>
#include <time.h>

#define WALL_CLOCK_ENV	   "PLERIG_HOST_EPOCH"
#define WALL_CLOCK_ISO_LEN 24 /* "2026-12-02T17:30:00Z" and its NUL */

/*
 * The date now: the controlling host's by PLERIG_HOST_EPOCH, else this
 * machine's clock. A malformed PLERIG_HOST_EPOCH (not a decimal number of
 * seconds from 1 to 2^40) is said once on stderr and this machine's clock
 * used; (time_t)-1 when there is no clock at all.
 */
time_t wall_clock_now(void);

/*
 * wall_clock_now() for @epoch_text (PLERIG_HOST_EPOCH's value; NULL: none)
 * and @since_boot_s (seconds since boot) against @here (this machine's
 * clock): the pure rule, for tests. 0, or -1 when @epoch_text is malformed
 * (@t is then @here).
 */
int wall_clock_from(const char *epoch_text, double since_boot_s, time_t here, time_t *t);

/* @t as ISO 8601 UTC, "2026-12-02T17:30:00Z"; "" (and -1) when it cannot be. */
int wall_clock_iso(time_t t, char *buf, size_t len);

#endif
