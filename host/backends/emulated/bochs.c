// SPDX-License-Identifier: GPL-2.0
#include "backends/emulated/bochs.h"
#include "backends/emulated/l1_side.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "util/errbuf.h"
#include "util/printable.h"
#include "util/spawn.h"
#include "util/strfmt.h"

#define BOCHS_BIOS "/usr/share/bochs/BIOS-bochs-latest"

/* A path Bochs' configuration parser takes as one value. */
static bool plain_path(const char *p)
{
	return p && *p && !strpbrk(p, " \t\n,\"'#=");
}

static int write_bochsrc(const struct bochs_config *c, char *err, size_t errlen)
{
	char path[PATH_MAX];
	if (pathf(path, sizeof(path), "%s/bochsrc", c->dir))
		return errbuf_printf(err, errlen, "%s/bochsrc: path too long", c->dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return errbuf_printf(err, errlen, "writing %s: %s", path, strerror(errno));
	/*
	 * clock sync=none: L1's time is instructions / ips, whatever this host's
	 * speed or load. time0: L1's clock starts at 2000-01-01 (and fixed-time.so
	 * seeds RDRAND with it): the same medium takes the same path every time.
	 */
	printable_printf(f,
			 "memory: guest=1024, host=1024\n"
			 "cpu: model=%s, count=%u, ips=%llu, reset_on_triple_fault=0\n"
			 "romimage: file=%s\n"
			 "vgaromimage: file=/usr/share/vgabios/vgabios.bin\n"
			 "pci: enabled=1, chipset=i440fx\n"
			 "ata0: enabled=1, ioaddr1=0x1f0, ioaddr2=0x3f0, irq=14\n"
			 "ata0-master: type=cdrom, path=%s, status=inserted\n"
			 "boot: cdrom\n"
			 "clock: sync=none, time0=946684800\n"
			 "com1: enabled=1, mode=file, dev=%s/serial.log\n"
			 "com2: enabled=1, mode=term, dev=%s/com2\n"
			 "parport1: enabled=1, file=%s/" L1_SIDE_FILE "\n"
			 "display_library: term\n"
			 "log: %s/bochs.log\n"
			 "panic: action=fatal\n"
			 "error: action=report\n"
			 "info: action=report\n"
			 "debug: action=ignore\n",
			 c->cpu_model ? c->cpu_model : BOCHS_CPU_MODEL, BOCHS_CPUS, BOCHS_IPS,
			 c->bios ? c->bios : BOCHS_BIOS, c->iso, c->dir, c->dir, c->dir, c->dir);
	if (fclose(f))
		return errbuf_printf(err, errlen, "writing %s: %s", path, strerror(errno));
	/* the debugger stops before the first instruction: continue */
	if (pathf(path, sizeof(path), "%s/debugger.rc", c->dir))
		return errbuf_printf(err, errlen, "%s: path too long", c->dir);
	f = fopen(path, "w");
	if (!f || fputs("c\n", f) < 0 || fclose(f))
		return errbuf_printf(err, errlen, "writing %s: %s", path, strerror(errno));
	return 0;
}

static int open_pty(int *master, char *slave, size_t len, char *err, size_t errlen)
{
	*master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (*master < 0)
		return errbuf_printf(err, errlen, "posix_openpt: %s", strerror(errno));
	if (grantpt(*master) || unlockpt(*master) || ptsname_r(*master, slave, len)) {
		int e = errno;
		close(*master);
		*master = -1;
		return errbuf_printf(err, errlen, "a pty for Bochs: %s", strerror(e));
	}
	/* an 80x25 VGA text screen: the term display library asks its terminal's size */
	struct winsize ws = {.ws_row = 25, .ws_col = 80};
	(void)ioctl(*master, TIOCSWINSZ, &ws);
	return 0;
}

static void append(int fd, const char *buf, ssize_t n)
{
	while (fd >= 0 && n > 0) {
		ssize_t w = write(fd, buf, (size_t)n);
		if (w <= 0)
			return;
		buf += w;
		n -= w;
	}
}

/*
 * Reads Bochs' terminal into bochs.out and, once Bochs names it, the
 * screen's pty into screen.txt, until told to stop: a pty nobody reads
 * blocks its writer.
 */
static void *drain(void *arg)
{
	struct bochs *b = arg;
	char path[PATH_MAX + 16], seen[4096] = "", buf[4096];
	size_t seen_len = 0;
	int screen = -1, tty = b->tty;
	snprintf(path, sizeof(path), "%s/bochs.out", b->dir);
	int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	snprintf(path, sizeof(path), "%s/screen.txt", b->dir);
	int scr = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	for (;;) {
		struct pollfd p[3] = {{.fd = b->stop[0], .events = POLLIN},
				      {.fd = tty, .events = POLLIN},
				      {.fd = screen, .events = POLLIN}};
		if (poll(p, 3, 1000) < 0 && errno != EINTR)
			break;
		if (p[0].revents)
			break;
		if (p[1].revents) {
			ssize_t n = read(tty, buf, sizeof(buf));
			if (n > 0) {
				append(out, buf, n);
				/* "Bochs connected to screen "/dev/pts/N"": the screen's pty */
				size_t k = (size_t)n < sizeof(seen) - 1 - seen_len
					       ? (size_t)n
					       : sizeof(seen) - 1 - seen_len;
				memcpy(seen + seen_len, buf, k);
				seen_len += k;
				seen[seen_len] = '\0';
				const char *m =
				    screen < 0 ? strstr(seen, "connected to screen \"") : NULL;
				char pts[64];
				if (m && sscanf(m, "connected to screen \"%63[^\"]\"", pts) == 1)
					screen = open(pts, O_RDONLY | O_NOCTTY | O_CLOEXEC);
			} else {
				/* Bochs gone (EIO): the screen's pty is read until stopped */
				tty = -1;
			}
		}
		if (screen >= 0 && p[2].revents) {
			ssize_t n = read(screen, buf, sizeof(buf));
			if (n > 0)
				append(scr, buf, n);
			else {
				close(screen);
				screen = -1;
			}
		}
	}
	if (screen >= 0)
		close(screen);
	if (out >= 0)
		close(out);
	if (scr >= 0)
		close(scr);
	return NULL;
}

int bochs_start(struct bochs *b, const struct bochs_config *c, char *err, size_t errlen)
{
	char tty_slave[64], com2_slave[64], link[PATH_MAX], rc_path[PATH_MAX], rc2[PATH_MAX];
	memset(b, 0, sizeof(*b));
	b->tty = b->com2 = b->stop[0] = b->stop[1] = -1;
	b->pid = -1;
	str_copy(b->dir, sizeof(b->dir), c->dir);
	if (!plain_path(c->dir) || !plain_path(c->iso) || (c->bios && !plain_path(c->bios)))
		return errbuf_printf(err, errlen,
				     "%s: Bochs' configuration cannot hold a path with blanks, "
				     "quotes, commas, '#' or '=' (choose another --cache-dir)",
				     !plain_path(c->dir) ? c->dir : c->iso);
	if (write_bochsrc(c, err, errlen) ||
	    open_pty(&b->tty, tty_slave, sizeof(tty_slave), err, errlen) ||
	    open_pty(&b->com2, com2_slave, sizeof(com2_slave), err, errlen))
		goto fail;
	/* COM2 through a link of the run's own, so a restored state finds the new pty */
	if (pathf(link, sizeof(link), "%s/com2", c->dir) ||
	    pathf(rc_path, sizeof(rc_path), "%s/bochsrc", c->dir) ||
	    pathf(rc2, sizeof(rc2), "%s/debugger.rc", c->dir)) {
		errbuf_printf(err, errlen, "%s: path too long", c->dir);
		goto fail;
	}
	(void)unlink(link);
	if (symlink(com2_slave, link) || pipe2(b->stop, O_CLOEXEC)) {
		errbuf_printf(err, errlen, "%s: %s", link, strerror(errno));
		goto fail;
	}
	b->pid = fork();
	if (b->pid < 0) {
		errbuf_printf(err, errlen, "fork: %s", strerror(errno));
		goto fail;
	}
	if (b->pid == 0) {
		/* a session of its own: its terminal is the pty, its group is killed whole */
		setsid();
		int s = open(tty_slave, O_RDWR);
		if (s < 0 || dup2(s, 0) < 0 || dup2(s, 1) < 0 || dup2(s, 2) < 0)
			_exit(127);
		setenv("TERM", "xterm", 1);
		if (c->preload)
			setenv("LD_PRELOAD", c->preload, 1);
		else
			unsetenv("LD_PRELOAD");
		if (c->save)
			setenv("PLERIG_BOCHS_SAVE", c->save, 1);
		else
			unsetenv("PLERIG_BOCHS_SAVE");
		if (c->restore)
			execlp(c->program, c->program, "-q", "-f", rc_path, "-r", c->restore, "-rc",
			       rc2, (char *)NULL);
		else
			execlp(c->program, c->program, "-q", "-f", rc_path, "-rc", rc2,
			       (char *)NULL);
		printable_printf(stderr, "exec %s: %s\n", c->program, strerror(errno));
		_exit(127);
	}
	if (pthread_create(&b->drain, NULL, drain, b)) {
		errbuf_printf(err, errlen, "a thread to read Bochs' terminal: %s", strerror(errno));
		goto fail;
	}
	b->draining = true;
	return 0;
fail:
	bochs_stop(b);
	return -1;
}

double bochs_cpu_seconds(const struct bochs *b)
{
	char path[64], buf[1024];
	if (b->pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)b->pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* after the command's name in parentheses (it may hold blanks): fields 3 on */
	const char *p = strrchr(buf, ')');
	unsigned long long ut, st;
	long long cut, cst;
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %lld %lld",
			 &ut, &st, &cut, &cst) != 4)
		return 0;
	return (double)(ut + st + (unsigned long long)(cut + cst)) / (double)sysconf(_SC_CLK_TCK);
}

bool bochs_running(struct bochs *b)
{
	if (b->pid <= 0 || b->exited)
		return false;
	int st;
	pid_t r = waitpid(b->pid, &st, WNOHANG);
	if (r == b->pid) {
		b->exited = true;
		b->status = st;
		return false;
	}
	return true;
}

int bochs_save(struct bochs *b, char *err, size_t errlen)
{
	if (b->pid <= 0 || kill(b->pid, SIGUSR2))
		return errbuf_printf(err, errlen, "asking Bochs to save its state: %s",
				     strerror(b->pid <= 0 ? ESRCH : errno));
	return 0;
}

bool bochs_com2_open(const struct bochs *b)
{
	struct termios t;
	/* the pair's settings, as the side Bochs opened set them: canonical until then */
	return b->com2 >= 0 && !tcgetattr(b->com2, &t) && !(t.c_lflag & ICANON);
}

int bochs_send(struct bochs *b, const char *line, char *err, size_t errlen)
{
	size_t n = strlen(line);
	while (n) {
		ssize_t w = write(b->com2, line, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return errbuf_printf(err, errlen, "writing to L1's COM2: %s",
					     w < 0 ? strerror(errno) : "nothing written");
		line += w;
		n -= (size_t)w;
	}
	return 0;
}

int bochs_hold(struct bochs *b, bool hold, char *err, size_t errlen)
{
	/* the group: a wrapper's children (the tests' fake L1) too */
	if (b->pid <= 0 || kill(-b->pid, hold ? SIGSTOP : SIGCONT))
		return errbuf_printf(err, errlen, "%s Bochs: %s", hold ? "holding" : "resuming",
				     strerror(b->pid <= 0 ? ESRCH : errno));
	return 0;
}

void bochs_stop(struct bochs *b)
{
	if (b->pid > 0 && bochs_running(b)) {
		/* its debugger ignores SIGTERM; the group: a wrapper's children too */
		kill(-b->pid, SIGKILL);
		kill(b->pid, SIGKILL);
		int st;
		if (waitpid(b->pid, &st, 0) == b->pid) {
			b->exited = true;
			b->status = st;
		}
	} else if (b->pid > 0) {
		kill(-b->pid, SIGKILL); /* what it left behind */
	}
	if (b->draining) {
		if (write(b->stop[1], "x", 1) < 0) {
			/* the thread also ends when its poll fails */
		}
		pthread_join(b->drain, NULL);
		b->draining = false;
	}
	for (int *fd = &b->tty; fd <= &b->com2; fd++)
		if (*fd >= 0) {
			close(*fd);
			*fd = -1;
		}
	for (int i = 0; i < 2; i++)
		if (b->stop[i] >= 0) {
			close(b->stop[i]);
			b->stop[i] = -1;
		}
}

void bochs_describe_exit(const struct bochs *b, char *buf, size_t len)
{
	if (!b->exited)
		snprintf(buf, len, "still running");
	else if (WIFEXITED(b->status))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(b->status));
	else if (WIFSIGNALED(b->status))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(b->status),
			 strsignal(WTERMSIG(b->status)));
	else
		snprintf(buf, len, "ended (wait status %#x)", b->status);
}

void bochs_version(const char *program, char *buf, size_t len)
{
	char out[8192], err[ERRBUF_SIZE];
	char *const argv[] = {(char *)program, "--help", NULL};
	buf[0] = '\0';
	if (spawn_capture(argv, out, sizeof(out), 10000, err, sizeof(err)) < 0)
		return;
	const char *m = strstr(out, "Bochs x86 Emulator ");
	char v[32];
	if (m && sscanf(m, "Bochs x86 Emulator %31s", v) == 1)
		str_copy(buf, len, v);
}
