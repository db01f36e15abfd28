// SPDX-License-Identifier: GPL-2.0
#include "util/interrupt.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
	caught = sig;
}

int interrupt_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) < 0 || sigaction(SIGTERM, &sa, NULL) < 0 ||
	    sigaction(SIGHUP, &sa, NULL) < 0)
		return -1;
	return 0;
}

bool interrupt_requested(void)
{
	return caught != 0;
}

int interrupt_signal(void)
{
	return caught;
}
