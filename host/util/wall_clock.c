// SPDX-License-Identifier: GPL-2.0
#include "util/wall_clock.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/printable.h"

#define EPOCH_MAX (1ll << 40) /* year ~36812: beyond it a typo, not a date */

int wall_clock_from(const char *epoch_text, double since_boot_s, time_t here, time_t *t)
{
	*t = here;
	if (!epoch_text)
		return 0;
	char *end;
	errno = 0;
	long long epoch = strtoll(epoch_text, &end, 10);
	if (errno || end == epoch_text || *end || epoch < 1 || epoch > EPOCH_MAX ||
	    epoch_text[0] < '0' || epoch_text[0] > '9' || !(since_boot_s >= 0.0))
		return -1;
	*t = (time_t)epoch + (time_t)since_boot_s;
	return 0;
}

time_t wall_clock_now(void)
{
	static bool said;
	struct timespec boot = {0};
	const char *text = getenv(WALL_CLOCK_ENV);
	time_t t;
	if (text && clock_gettime(CLOCK_BOOTTIME, &boot))
		boot.tv_sec = 0; /* Linux has had it since 2.6.39: the host's epoch alone */
	if (wall_clock_from(text, (double)boot.tv_sec, time(NULL), &t) && !said) {
		said = true;
		printable_printf(stderr,
				 "plerig: %s=%s is not a number of seconds since 1970: the "
				 "dates recorded are this machine's clock\n",
				 WALL_CLOCK_ENV, text);
	}
	return t;
}

int wall_clock_iso(time_t t, char *buf, size_t len)
{
	struct tm utc;
	if (!len)
		return -1;
	if (t == (time_t)-1 || !gmtime_r(&t, &utc) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &utc)) {
		buf[0] = '\0';
		return -1;
	}
	return 0;
}
