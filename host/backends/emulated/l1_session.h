/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One L1 under one Bochs, followed through its serial console: its
 * progress, the files it sends, and every way it can stop answering, each
 * found and said, never waited out:
 *
 *   L1 cannot go on (@@ple fatal WHY)        at once, with WHY
 *   its kernel panics                        at once, with the panic line
 *   isolinux cannot load the kernel          at once, with isolinux's words
 *   Bochs exits                              at once, with how it ended
 *   nothing on the console                   stall_cpu_s of Bochs CPU
 *   no console line (heartbeat: 10 emulated s) stall_cpu_s of Bochs CPU
 *   Bochs takes no CPU at all                idle_s of wall clock
 *   still waiting                            wall_s of wall clock
 *
 * Stalls count Bochs' CPU time, not the wall clock: a busy host that gives
 * Bochs a fifth of a CPU stretches a healthy boot's quiet minute to five.
 */
#ifndef PLERIG_L1_SESSION_H
#define PLERIG_L1_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "backends/emulated/bochs.h"
#include "backends/emulated/l1_protocol.h"
#include "util/errbuf.h"

#define L1_TAIL_LINES 8

struct l1_limits {
	double stall_cpu_s; /* 120: a boot to /init is ~40 s of Bochs CPU, a heartbeat ~17 */
	double idle_s;	    /* 300 */
	double wall_s;	    /* 1800, for each wait; 0: none (the limits above still end a hang) */
};

struct l1_session {
	struct bochs bochs;
	bool started;
	struct l1_limits limits;
	FILE *progress;	 /* stderr, or NULL: quiet */
	const char *who; /* its progress lines begin so: "emulated host", "emulated host (amd)" */
	int serial;	 /* serial.log, read as it grows */
	char *pending;	 /* the bytes after the last whole line */
	size_t pending_len, pending_cap;
	struct l1_frame_reader frames;
	char tail[L1_TAIL_LINES][160]; /* the last console lines, frames left out */
	unsigned tail_n;
	char step[L1_NAME_MAX]; /* the last step begun */
	bool any_output;
	bool ready;	  /* @@ple ready was seen */
	off_t screen_off; /* how far screen.txt was searched */
	double cpu, cpu_at_line;
	uint64_t t0_ns, moved_ns;
	uint64_t noted_ns;	/* the last progress line: a boot says something every 30 s */
	double answer_cpu_s;	/* > 0: a wait ends after this much Bochs CPU without its file */
	char gone[ERRBUF_SIZE]; /* why L1 answers no more; "" while it does */
	bool kernel_fault; /* ... and it was the kernel's doing (fatal, panic, isolinux, silence) */
};

/* Start Bochs on @c, its progress on @progress as @who's. 0, or -1 with @err. */
int l1_session_start(struct l1_session *s, const struct bochs_config *c,
		     const struct l1_limits *limits, FILE *progress, const char *who, char *err,
		     size_t errlen);

/* What a wait hands on besides the file it waits for. */
struct l1_hooks {
	/* another file that came whole: the hook owns it */
	void (*file)(void *ctx, struct l1_file *f);
	/* a console line that is not part of a frame */
	void (*line)(void *ctx, const char *line);
	void *ctx;
};

/*
 * Follow the console until file @name (or @alt, when not NULL) has come
 * whole: 0 with it in @file; other files and lines go to @hooks (NULL:
 * dropped). -1 with @err (and s->gone) when L1 stopped answering, said
 * why, with the last step begun and the console's last lines; Bochs is
 * then stopped.
 */
int l1_session_wait(struct l1_session *s, const char *name, const char *alt,
		    const struct l1_hooks *hooks, struct l1_file *file, char *err, size_t errlen);

/* Did L1 stop before its plerig was ready because of the kernel (no kvm_intel, a panic, ...)? */
bool l1_session_kernel_unusable(const struct l1_session *s);

/*
 * Send one request line, once Bochs listens on COM2 (a restored Bochs opens
 * it seconds after it starts). 0, or -1 with @err.
 */
int l1_session_send(struct l1_session *s, const char *line, char *err, size_t errlen);

/*
 * Hold Bochs while another emulated host runs (@hold), or let it go on: its
 * limits count from then, not across the hold. 0, or -1 with @err.
 */
int l1_session_hold(struct l1_session *s, bool hold, char *err, size_t errlen);

/* Stop Bochs, L1 with it. */
void l1_session_end(struct l1_session *s);

#endif
