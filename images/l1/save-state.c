// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD for Bochs under plerig's emulated host: SIGUSR2 saves Bochs'
 * whole state (the booted L1, kvm_intel loaded, its plerig waiting on COM2)
 * into $PLERIG_BOCHS_SAVE, so that later runs restore it (bochs -r) instead
 * of booting L1 again.
 *
 * Debian's Bochs saves only from its configuration menu or a GUI button,
 * neither of which a headless Bochs has. The save runs where the button's
 * would: inside the term display's event handling (its wgetch), between two
 * emulated instructions, never from the signal handler itself. The outcome
 * is the file "saved" or "failed" in the directory.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile sig_atomic_t requested;

static void on_signal(int sig)
{
	(void)sig;
	requested = 1;
}

__attribute__((constructor)) static void install(void)
{
	if (getenv("PLERIG_BOCHS_SAVE"))
		signal(SIGUSR2, on_signal);
}

static void mark(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}

/* bx_real_sim_c::save_state(const char *) on the simulator object SIM, both Bochs' own. */
static void save(const char *dir)
{
	typedef bool (*save_fn)(void *sim, const char *path);
	void **sim = dlsym(RTLD_DEFAULT, "SIM");
	save_fn fn = (save_fn)dlsym(RTLD_DEFAULT, "_ZN13bx_real_sim_c10save_stateEPKc");
	mark(dir, sim && *sim && fn && fn(*sim, dir) ? "saved" : "failed");
}

int wgetch(void *win)
{
	static int (*real)(void *);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "wgetch");
	if (requested) {
		requested = 0;
		save(getenv("PLERIG_BOCHS_SAVE"));
	}
	return real ? real(win) : -1;
}
