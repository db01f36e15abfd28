// SPDX-License-Identifier: GPL-2.0
#include "backends/emulated/l1_session.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/interrupt.h"
#include "util/printable.h"
#include "util/strfmt.h"

#define POLL_US	    200000
#define BOOT_NOTE_S 30 /* s of wall clock between two progress lines while L1 boots */
#define BOOT_CPU_S                                                                                 \
	60 /* Bochs CPU of a cold boot to L1's plerig: 57-66 s measured, kernel 6.1, idle=halt */

int l1_session_start(struct l1_session *s, const struct bochs_config *c,
		     const struct l1_limits *limits, FILE *progress, const char *who, char *err,
		     size_t errlen)
{
	char path[PATH_MAX];
	memset(s, 0, sizeof(*s));
	s->serial = -1;
	s->limits = *limits;
	s->progress = progress;
	s->who = who;
	/* created first and read from its start: Bochs truncates it, the same file */
	if (pathf(path, sizeof(path), "%s/serial.log", c->dir))
		return errbuf_printf(err, errlen, "%s: path too long", c->dir);
	/* empty: a run directory may hold the console of an earlier start (a failed restore) */
	s->serial = open(path, O_RDONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (s->serial < 0)
		return errbuf_printf(err, errlen, "%s: %s", path, strerror(errno));
	/* the parallel port's file, the same way: its bytes are taken in order from its start */
	if (pathf(path, sizeof(path), "%s/" L1_SIDE_FILE, c->dir))
		return errbuf_printf(err, errlen, "%s: path too long", c->dir);
	const int side = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (side < 0) {
		errbuf_printf(err, errlen, "%s: %s", path, strerror(errno));
		close(s->serial);
		s->serial = -1;
		return -1;
	}
	close(side);
	l1_frame_reader_init(&s->frames, path);
	if (bochs_start(&s->bochs, c, err, errlen)) {
		close(s->serial);
		s->serial = -1;
		return -1;
	}
	s->started = true;
	s->t0_ns = s->moved_ns = s->noted_ns = monotonic_ns();
	return 0;
}

static double since(uint64_t ns)
{
	return (double)(monotonic_ns() - ns) / 1e9;
}

static void note(struct l1_session *s, const char *line)
{
	s->noted_ns = monotonic_ns();
	if (s->progress)
		printable_printf(s->progress, "%s [%.0f s, Bochs %.0f s CPU]: %s\n", s->who,
				 since(s->t0_ns), s->cpu, line);
}

/* A boot's long silences (the kernel's own messages are few): a line every 30 s. */
static void note_boot(struct l1_session *s)
{
	if (s->ready || !s->progress || since(s->noted_ns) < BOOT_NOTE_S)
		return;
	char line[160];
	snprintf(line, sizeof(line),
		 "L1 still booting%s (a cold boot takes ~%d s of Bochs CPU to L1's plerig)",
		 s->step[0] ? ", loading its KVM module" : "", BOOT_CPU_S);
	note(s, line);
}

static void keep_tail(struct l1_session *s, const char *line)
{
	if (s->tail_n == L1_TAIL_LINES) {
		memmove(s->tail[0], s->tail[1], sizeof(s->tail[0]) * (L1_TAIL_LINES - 1));
		s->tail_n--;
	}
	str_copy(s->tail[s->tail_n++], sizeof(s->tail[0]), line);
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* What a line says about L1's state: a reason to stop, in @why, or nothing. */
static void look_at(struct l1_session *s, const char *line, char *why, size_t len)
{
	keep_tail(s, line);
	if (starts(line, "@@ple step ")) {
		char id[L1_NAME_MAX], what[16];
		if (sscanf(line, "@@ple step %255s %15s", id, what) == 2 && !strcmp(what, "begin"))
			str_copy(s->step, sizeof(s->step), id);
		/* the boot's steps are progress; a request's are the caller's */
		if (!s->ready)
			note(s, line + 6);
	} else if (starts(line, "@@ple fatal ")) {
		str_copy(why, len, line + 12);
		s->kernel_fault = !s->ready;
	} else if (starts(line, "@@ple ready")) {
		s->ready = true;
		note(s, "L1 is ready");
	} else if (starts(line, "@@ple done")) {
		errbuf_printf(why, len, "L1 powered off before it answered (%s)", line + 6);
	} else if (strstr(line, "Kernel panic - not syncing")) {
		errbuf_printf(why, len, "L1's kernel panicked: %s",
			      strstr(line, "Kernel panic - not syncing"));
		s->kernel_fault = !s->ready;
	} else if (!s->ready && (starts(line, "Linux version") || starts(line, "param_ple_"))) {
		note(s, line);
	}
}

/* isolinux's words on L1's VGA screen, before the kernel ran. */
static void look_at_screen(struct l1_session *s, char *why, size_t len)
{
	char path[PATH_MAX + 16], buf[8192];
	snprintf(path, sizeof(path), "%s/screen.txt", s->bochs.dir);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	/* a little before the new part: a message may straddle two reads */
	off_t from = s->screen_off > 64 ? s->screen_off - 64 : 0;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, from);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (ssize_t i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	s->screen_off = from + n;
	const char *fails[] = {"Booting kernel failed", "Loading /initrd failed",
			       "Loading /vmlinuz failed"};
	for (size_t i = 0; i < sizeof(fails) / sizeof(fails[0]); i++) {
		const char *m = strstr(buf, fails[i]);
		if (m) {
			errbuf_printf(why, len,
				      "isolinux could not load the kernel under test: %.*s",
				      (int)strcspn(m, "\r\n\x1b"), m);
			s->kernel_fault = true;
			return;
		}
	}
}

/* The console's new whole lines, each through the frame reader, then look_at. */
static int read_console(struct l1_session *s, const char *name, const char *alt,
			const struct l1_hooks *hooks, struct l1_file *file, bool *got, char *why,
			size_t len)
{
	char buf[65536];
	ssize_t n;
	while (!*got && !why[0] && (n = read(s->serial, buf, sizeof(buf))) > 0) {
		if (s->pending_len + (size_t)n + 1 > s->pending_cap) {
			size_t cap = (s->pending_len + (size_t)n + 1) * 2;
			char *p = realloc(s->pending, cap);
			if (!p)
				return errbuf_printf(why, len,
						     "out of memory reading L1's console");
			s->pending = p;
			s->pending_cap = cap;
		}
		memcpy(s->pending + s->pending_len, buf, (size_t)n);
		s->pending_len += (size_t)n;
		s->any_output = true;
		s->cpu_at_line = s->cpu;
		size_t start = 0;
		for (size_t i = 0; i < s->pending_len && !*got && !why[0]; i++) {
			if (s->pending[i] != '\n')
				continue;
			s->pending[i] = '\0';
			char *line = s->pending + start;
			start = i + 1;
			line[strcspn(line, "\r")] = '\0';
			char err[ERRBUF_SIZE];
			struct l1_file f;
			switch (l1_frame_feed(&s->frames, line, &f, err, sizeof(err))) {
			case L1_FEED_LINE:
				look_at(s, line, why, len);
				if (hooks && hooks->line)
					hooks->line(hooks->ctx, line);
				break;
			case L1_FEED_FRAME_LINE:
				break;
			case L1_FEED_FILE:
				if ((name && !strcmp(f.name, name)) ||
				    (alt && !strcmp(f.name, alt))) {
					*file = f;
					*got = true;
				} else if (hooks && hooks->file) {
					hooks->file(hooks->ctx, &f);
				} else {
					l1_file_free(&f);
				}
				break;
			case L1_FEED_BAD_FILE:
				errbuf_printf(why, len, "a file from L1 came damaged: %s", err);
				break;
			}
		}
		memmove(s->pending, s->pending + start, s->pending_len - start);
		s->pending_len -= start;
	}
	return 0;
}

/* Why L1 is taken for gone, from what this host sees of Bochs. */
static void look_at_bochs(struct l1_session *s, double wall, char *why, size_t len)
{
	const double cpu = bochs_cpu_seconds(&s->bochs);
	if (cpu > s->cpu) {
		s->cpu = cpu;
		s->moved_ns = monotonic_ns();
	}
	if (!bochs_running(&s->bochs)) {
		char how[128];
		bochs_describe_exit(&s->bochs, how, sizeof(how));
		errbuf_printf(why, len, "Bochs %s before L1 was done (its log: %s/bochs.log)", how,
			      s->bochs.dir);
	} else if (s->limits.wall_s > 0 && wall > s->limits.wall_s) {
		errbuf_printf(why, len, "wall-clock limit of %.0f s reached", s->limits.wall_s);
	} else if (!s->any_output && s->cpu > s->limits.stall_cpu_s) {
		s->kernel_fault = true;
		snprintf(why, len,
			 "nothing on L1's serial console after %.0f s of Bochs CPU (a boot to "
			 "/init takes ~40 s): a kernel without a serial console "
			 "(CONFIG_SERIAL_8250_CONSOLE=y, console=ttyS0), or one that does not boot",
			 s->cpu);
	} else if (s->cpu - s->cpu_at_line > s->limits.stall_cpu_s) {
		snprintf(why, len,
			 "no console line for %.0f s of Bochs CPU (L1 prints one every 10 "
			 "emulated s, ~17 s of Bochs CPU)",
			 s->limits.stall_cpu_s);
	} else if (since(s->moved_ns) > s->limits.idle_s) {
		errbuf_printf(why, len, "Bochs took no CPU for %.0f s of wall clock",
			      s->limits.idle_s);
	} else if (!s->any_output) {
		look_at_screen(s, why, len);
	}
}

/* L1 is gone: the reason, the last step begun and the last lines, in one line. */
static int gone(struct l1_session *s, const char *why, char *err, size_t errlen)
{
	char lines[1024] = "";
	size_t used = 0;
	unsigned first = s->tail_n > 3 ? s->tail_n - 3 : 0;
	for (unsigned i = first; i < s->tail_n; i++) {
		int n = snprintf(lines + used, sizeof(lines) - used, "%s'%s'", used ? " | " : "",
				 s->tail[i]);
		if (n < 0 || (size_t)n >= sizeof(lines) - used)
			break;
		used += (size_t)n;
	}
	bochs_stop(&s->bochs);
	errbuf_printf(s->gone, sizeof(s->gone),
		      "%s (last step begun: %s; last console lines: %s; all of it: %s/serial.log)",
		      why, s->step[0] ? s->step : "none, L1 did not reach /init",
		      used ? lines : "none", s->bochs.dir);
	return errbuf_printf(err, errlen, "%s", s->gone);
}

/*
 * Follow until file @name or @alt came (1), or, with @until, until it says
 * so (1); 0 never, -1 with @err when L1 is gone.
 */
static int follow(struct l1_session *s, const char *name, const char *alt,
		  const struct l1_hooks *hooks, struct l1_file *file,
		  bool (*until)(const struct l1_session *s), char *err, size_t errlen)
{
	char why[ERRBUF_SIZE] = "";
	bool got = false;
	const uint64_t t0 = monotonic_ns();
	const double cpu0 = s->cpu;
	if (s->gone[0])
		return errbuf_printf(err, errlen, "L1 is gone: %s", s->gone);
	for (;;) {
		look_at_bochs(s, since(t0), why, sizeof(why));
		if (!why[0] && s->answer_cpu_s > 0 && s->cpu - cpu0 > s->answer_cpu_s)
			errbuf_printf(
			    why, sizeof(why),
			    "no answer to %s after %.0f s of Bochs CPU, though L1's console "
			    "goes on",
			    name ? name : "a request", s->answer_cpu_s);
		/* what Bochs wrote before it stopped is read first: a fatal line says more */
		char line_why[ERRBUF_SIZE] = "";
		if (read_console(s, name, alt, hooks, file, &got, line_why, sizeof(line_why)))
			return gone(s, line_why, err, errlen);
		if (got || (until && until(s)))
			return 1;
		if (line_why[0])
			return gone(s, line_why, err, errlen);
		if (why[0])
			return gone(s, why, err, errlen);
		note_boot(s);
		if (interrupt_requested())
			return gone(s, "interrupted", err, errlen);
		usleep(POLL_US);
	}
}

int l1_session_wait(struct l1_session *s, const char *name, const char *alt,
		    const struct l1_hooks *hooks, struct l1_file *file, char *err, size_t errlen)
{
	return follow(s, name, alt, hooks, file, NULL, err, errlen) < 0 ? -1 : 0;
}

static bool com2_open(const struct l1_session *s)
{
	return bochs_com2_open(&s->bochs);
}

bool l1_session_kernel_unusable(const struct l1_session *s)
{
	return s->gone[0] && s->kernel_fault;
}

int l1_session_send(struct l1_session *s, const char *line, char *err, size_t errlen)
{
	if (s->gone[0])
		return errbuf_printf(err, errlen, "L1 is gone: %s", s->gone);
	/* the console is followed meanwhile: L1 may say it cannot go on */
	if (!bochs_com2_open(&s->bochs) &&
	    follow(s, NULL, NULL, NULL, NULL, com2_open, err, errlen) < 0)
		return -1;
	return bochs_send(&s->bochs, line, err, errlen);
}

int l1_session_hold(struct l1_session *s, bool hold, char *err, size_t errlen)
{
	if (!s->started || s->gone[0])
		return 0; /* nothing runs: nothing to hold, and the next wait says why */
	if (bochs_hold(&s->bochs, hold, err, errlen))
		return -1;
	/* held, it took no CPU on purpose: "Bochs took no CPU" counts from now */
	if (!hold)
		s->moved_ns = monotonic_ns();
	return 0;
}

void l1_session_end(struct l1_session *s)
{
	if (!s->started)
		return;
	/* L1 lives in memory, its medium is read-only: nothing to save by a clean power-off */
	bochs_stop(&s->bochs);
	if (s->serial >= 0)
		close(s->serial);
	s->serial = -1;
	free(s->pending);
	s->pending = NULL;
	l1_frame_reader_free(&s->frames);
	s->started = false;
}
