// SPDX-License-Identifier: GPL-2.0
#include "backends/libvirt/orphans.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backends/libvirt/process_tag.h"
#include "util/clock.h"
#include "util/printable.h"
#include "util/remove_tree.h"

#define RUN_DIR_PREFIX "plerig-libvirt-"
/* a capability probe takes seconds: a directory this old with no probe running is dead */
#define STALE_PROBE_DIR_S 60

/* The process a tag names still runs: same pid, same start time. */
static bool tag_runs(const char *tag, pid_t *pid_out)
{
	int pid;
	unsigned long long t;
	if (sscanf(tag, "%d %llu", &pid, &t) != 2 || pid <= 0)
		return false;
	*pid_out = pid;
	return process_runs(pid, t);
}

static int read_small(const char *dir, const char *name, char *out, size_t len)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -1;
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	size_t n = fread(out, 1, len - 1, f);
	fclose(f);
	out[n] = '\0';
	return 0;
}

/* A domain name plerig makes: plerig-PID-RUN-VM, nothing else (it goes into paths). */
static bool plerig_domain_name(const char *s)
{
	unsigned a, b, c;
	int end = 0;
	return sscanf(s, "plerig-%u-%u-%u%n", &a, &b, &c, &end) == 3 && s[end] == '\0' &&
	       strlen(s) < 64;
}

/* /proc/PID/cmdline, its arguments joined by spaces, holds @want. */
static bool cmdline_holds(pid_t pid, const char *want)
{
	char path[64], buf[8192];
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	for (size_t i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[n] = '\0';
	return strstr(buf, want) != NULL;
}

/* The command line holds "guest=NAME,": the process is that domain's QEMU. */
static bool is_qemu_of(pid_t pid, const char *name)
{
	char want[96];
	snprintf(want, sizeof(want), "guest=%s,", name);
	return cmdline_holds(pid, want);
}

static bool kill_and_wait(pid_t pid)
{
	if (kill(pid, SIGKILL))
		return errno == ESRCH;
	for (int i = 0; i < 2000; i++) { /* not our child: wait for init to reap it */
		if (kill(pid, 0) && errno == ESRCH)
			return true;
		sleep_ns(1000000);
	}
	return false;
}

/* The embedded driver's files of domain @name in @root: status, pid, its directories. */
static unsigned remove_domain_state(const char *root, const char *name)
{
	static const char *const dirs[] = {"lib/qemu", "lib/qemu/channel/target"};
	/* .xml.new: the status file libvirt was writing when plerig was killed (seen once
	 * under load) */
	static const char *const files[] = {"run/qemu/%s.xml", "run/qemu/%s.xml.new",
					    "run/qemu/%s.pid"};
	char path[PATH_MAX], suffix[80];
	unsigned removed = 0;
	for (unsigned i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char rel[128];
		snprintf(rel, sizeof(rel), files[i], name);
		if (snprintf(path, sizeof(path), "%s/%s", root, rel) < (int)sizeof(path) &&
		    !unlink(path))
			removed++;
	}
	snprintf(suffix, sizeof(suffix), "-%s", name);
	for (unsigned i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char dir[PATH_MAX];
		if (snprintf(dir, sizeof(dir), "%s/%s", root, dirs[i]) >= (int)sizeof(dir))
			continue;
		DIR *d = opendir(dir);
		if (!d)
			continue;
		struct dirent *e;
		while ((e = readdir(d))) {
			/* domain-ID-NAME */
			const size_t n = strlen(e->d_name), s = strlen(suffix);
			if (strncmp(e->d_name, "domain-", 7) || n <= s ||
			    strcmp(e->d_name + n - s, suffix))
				continue;
			if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) <
			    (int)sizeof(path)) {
				remove_tree(path);
				removed++;
			}
		}
		closedir(d);
	}
	return removed;
}

/* One orphaned domain of run directory @dir: its QEMU, then its driver state. */
static void clean_domain(const char *dir, unsigned i, FILE *say)
{
	char key[32], text[PATH_MAX + 96], name[96] = "", root[PATH_MAX] = "";
	snprintf(key, sizeof(key), "domain-%u", i);
	if (read_small(dir, key, text, sizeof(text)))
		return;
	char *nl = strchr(text, '\n');
	if (!nl)
		return;
	*nl = '\0';
	snprintf(name, sizeof(name), "%.95s", text);
	char *r = nl + 1, *end = strchr(r, '\n');
	if (end)
		*end = '\0';
	snprintf(root, sizeof(root), "%s", r);
	if (!plerig_domain_name(name))
		return;
	/* its QEMU: as recorded, else as the embedded driver recorded it */
	pid_t pid = 0;
	char tag[64];
	snprintf(key, sizeof(key), "qemu-%u", i);
	if (!read_small(dir, key, tag, sizeof(tag)))
		tag_runs(tag, &pid);
	if (!pid && root[0] == '/') {
		char pidfile[PATH_MAX + 96];
		snprintf(pidfile, sizeof(pidfile), "%s/run/qemu", root);
		char file[128];
		snprintf(file, sizeof(file), "%s.pid", name);
		int p;
		if (!read_small(pidfile, file, tag, sizeof(tag)) && sscanf(tag, "%d", &p) == 1)
			pid = p;
	}
	if (pid > 0 && is_qemu_of(pid, name)) {
		if (kill_and_wait(pid))
			printable_printf(say, "plerig: killed QEMU %d of domain %s\n", (int)pid,
					 name);
		else
			printable_printf(say, "plerig: QEMU %d of domain %s does not die\n",
					 (int)pid, name);
	}
	if (root[0] == '/' && remove_domain_state(root, name))
		printable_printf(say, "plerig: removed the state of domain %s from %s\n", name,
				 root);
}

/* Is @dir (named plerig-libvirt-PID-...) an orphan: ours, and its owner gone? */
static bool orphaned(const char *dir, const char *name, pid_t *owner)
{
	struct stat st;
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
		return false; /* another user's, or writable by others: not ours to trust */
	int pid;
	if (sscanf(name, RUN_DIR_PREFIX "%d-", &pid) != 1 || pid <= 0)
		return false; /* an older plerig's: no owner to ask */
	*owner = pid;
	if (pid == getpid())
		return false;
	char tag[64];
	if (!read_small(dir, "owner", tag, sizeof(tag)))
		return !tag_runs(tag, owner);
	/* no owner file yet: a plerig just making it, or one killed right then */
	return kill(pid, 0) && errno == ESRCH && st.st_mtime < time(NULL) - 2;
}

static unsigned sweep_dir(const char *tmp, FILE *say)
{
	DIR *d = opendir(tmp);
	unsigned n = 0;
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, RUN_DIR_PREFIX, strlen(RUN_DIR_PREFIX)))
			continue;
		char dir[PATH_MAX];
		pid_t owner = 0;
		if (snprintf(dir, sizeof(dir), "%s/%s", tmp, e->d_name) >= (int)sizeof(dir) ||
		    !orphaned(dir, e->d_name, &owner))
			continue;
		for (unsigned i = 0; i < 4096; i++) {
			char key[32], probe[PATH_MAX + 40];
			snprintf(key, sizeof(key), "domain-%u", i);
			snprintf(probe, sizeof(probe), "%s/%s", dir, key);
			if (access(probe, F_OK))
				break;
			clean_domain(dir, i, say);
		}
		remove_tree(dir);
		printable_printf(
		    say, "plerig: removed run directory %s of plerig %d, which no longer runs\n",
		    dir, (int)owner);
		n++;
	}
	closedir(d);
	return n;
}

unsigned orphans_sweep(FILE *say)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	unsigned n = sweep_dir(tmp, say);
	char a[PATH_MAX], b[PATH_MAX];
	if (!realpath(tmp, a) || !realpath("/tmp", b) || strcmp(a, b))
		n += sweep_dir("/tmp", say);
	return n;
}

unsigned orphans_kill_stale_probes(const char *root, FILE *say)
{
	char dir[PATH_MAX];
	unsigned long long mine;
	if (snprintf(dir, sizeof(dir), "%s/lib/qemu", root) >= (int)sizeof(dir) ||
	    process_start_time(getpid(), &mine))
		return 0;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	unsigned killed = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		char probe[PATH_MAX], text[32];
		unsigned long long started;
		struct stat st;
		int pid = 0;
		if (strncmp(e->d_name, "qmp-", 4) ||
		    snprintf(probe, sizeof(probe), "%s/%s", dir, e->d_name) >= (int)sizeof(probe) ||
		    lstat(probe, &st) || !S_ISDIR(st.st_mode))
			continue;
		if (read_small(probe, "qmp.pid", text, sizeof(text)) ||
		    sscanf(text, "%d", &pid) != 1 || pid <= 0 || process_start_time(pid, &started)) {
			/* no probe runs there: a dead one's directory, once surely not in use */
			if (st.st_mtime < time(NULL) - STALE_PROBE_DIR_S)
				remove_tree(probe);
			continue;
		}
		/* started after us: this process's own libvirt may be probing with it */
		if (started >= mine || !cmdline_holds(pid, probe))
			continue;
		if (!kill_and_wait(pid)) {
			printable_printf(say,
					 "plerig: QEMU capability probe %d in %s does not die\n",
					 pid, probe);
			continue;
		}
		remove_tree(probe);
		printable_printf(
		    say,
		    "plerig: killed QEMU capability probe %d left in %s by a plerig killed "
		    "while libvirt probed QEMU\n",
		    pid, probe);
		killed++;
	}
	closedir(d);
	return killed;
}

struct log_file {
	char name[256];
	struct timespec mtime;
};

static int newest_first(const void *x, const void *y)
{
	const struct log_file *a = x, *b = y;
	if (a->mtime.tv_sec != b->mtime.tv_sec)
		return a->mtime.tv_sec < b->mtime.tv_sec ? 1 : -1;
	if (a->mtime.tv_nsec != b->mtime.tv_nsec)
		return a->mtime.tv_nsec < b->mtime.tv_nsec ? 1 : -1;
	return strcmp(a->name, b->name);
}

void orphans_trim_qemu_logs(const char *root, unsigned keep)
{
	char dir[PATH_MAX];
	if (snprintf(dir, sizeof(dir), "%s/log/qemu", root) < (int)sizeof(dir))
		orphans_trim_logs(dir, "plerig-", ".log", keep);
}

void orphans_trim_logs(const char *dir, const char *prefix, const char *suffix, unsigned keep)
{
	const size_t plen = strlen(prefix), slen = strlen(suffix);
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct log_file *logs = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		const size_t len = strlen(e->d_name);
		if (strncmp(e->d_name, prefix, plen) || len < plen + slen ||
		    len >= sizeof(logs->name) || strcmp(e->d_name + len - slen, suffix))
			continue;
		struct stat st;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			struct log_file *more = realloc(logs, cap * sizeof(*logs));
			if (!more)
				break;
			logs = more;
		}
		snprintf(logs[n].name, sizeof(logs[n].name), "%s", e->d_name);
		logs[n++].mtime = st.st_mtim;
	}
	if (n > keep) {
		qsort(logs, n, sizeof(*logs), newest_first);
		for (size_t i = keep; i < n; i++)
			unlinkat(dirfd(d), logs[i].name, 0);
	}
	closedir(d);
	free(logs);
}
