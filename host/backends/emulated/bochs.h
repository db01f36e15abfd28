/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One Bochs, headless: an emulated Intel Core i7-4770 (Haswell) whose VMX
 * has PAUSE-loop exiting, booting the L1 medium. Its serial console (COM1)
 * goes to a file, COM2 is a pty plerig writes requests into. Debian's
 * bochs-bin has the internal debugger and no headless display: it runs on
 * a pty of its own, the debugger told to continue (-rc), the term display
 * library drawing L1's VGA screen on another pty that is read all the time
 * (unread, Bochs blocks in write() for good) into screen.txt.
 */
#ifndef PLERIG_BOCHS_H
#define PLERIG_BOCHS_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The emulated machine (Intel's; struct bochs_config names another): also part of a saved state's
 * key. */
#define BOCHS_CPU_MODEL "corei7_haswell_4770"
#define BOCHS_CPU_NAME	"Intel Core i7-4770 (Haswell)"
#define BOCHS_CPUS	2u
/* Bochs' instruction clock: L1's second is this many instructions, whatever this host's speed */
#define BOCHS_IPS 100000000ull

struct bochs_config {
	const char *program; /* bochs-bin, or a Bochs of the user's own (PLERIG_BOCHS) */
	const char *dir;     /* the run's directory: bochsrc, serial.log, bochs.log, screen.txt */
	const char *iso;     /* the L1 medium */
	const char *preload; /* LD_PRELOAD: fixed-time.so, save-state.so; NULL: none */
	const char *restore; /* a saved state to start from (-r); NULL: boot the medium */
	const char *save;    /* where SIGUSR2 saves the state (bochs_save); NULL: never */
	const char
	    *cpu_model;	  /* Bochs' cpu: model= (images/l1/vendors.cfg); NULL: BOCHS_CPU_MODEL */
	const char *bios; /* its BIOS; NULL: Debian's, /usr/share/bochs/BIOS-bochs-latest */
};

struct bochs {
	pid_t pid; /* its process group too */
	int tty;   /* the master of Bochs' own terminal */
	int com2;  /* the master of L1's COM2 */
	int stop[2];
	pthread_t drain;
	bool draining;
	bool exited;
	int status; /* waitpid's, once exited */
	char dir[PATH_MAX];
};

/* Write the bochsrc and start Bochs. 0, or -1 with @err (nothing left running). */
int bochs_start(struct bochs *b, const struct bochs_config *c, char *err, size_t errlen);
/* CPU seconds Bochs has used so far: what its work costs, whatever else this host runs. */
double bochs_cpu_seconds(const struct bochs *b);
/* Still running? Once it is not, b->status says how it ended. */
bool bochs_running(struct bochs *b);
/* Ask Bochs to save its state into the config's save directory (save-state.so). */
int bochs_save(struct bochs *b, char *err, size_t errlen);
/*
 * Has Bochs opened L1's COM2 and made it raw? Before that a line sent is
 * lost: opening it, Bochs flushes what waits there (TCSAFLUSH).
 */
bool bochs_com2_open(const struct bochs *b);
/* Send @line to L1's COM2. 0, or -1 with @err. */
int bochs_send(struct bochs *b, const char *line, char *err, size_t errlen);
/*
 * Hold it (SIGSTOP to its group) or let it go on (SIGCONT): a held Bochs
 * takes no CPU, and L1 sees nothing of it (its clock counts instructions).
 * 0, or -1 with @err.
 */
int bochs_hold(struct bochs *b, bool hold, char *err, size_t errlen);
/* Stop it (if running) and everything it started; safe to call twice. */
void bochs_stop(struct bochs *b);
/* "exited with status 1", "killed by signal 9": how it ended. */
void bochs_describe_exit(const struct bochs *b, char *buf, size_t len);
/* Bochs' version ("2.7") from its banner, or "" where it cannot be run. */
void bochs_version(const char *program, char *buf, size_t len);

#endif
