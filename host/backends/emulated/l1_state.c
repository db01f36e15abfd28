// SPDX-License-Identifier: GPL-2.0
#include "backends/emulated/l1_state.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backends/emulated/bochs.h"
#include "backends/emulated/l1_protocol.h"
#include "util/cache_dir.h"
#include "util/errbuf.h"
#include "util/keep_newest.h"
#include "util/remove_tree.h"
#include "util/safe_dir.h"
#include "util/strfmt.h"
#include "util/text_file.h"

/* Bump when what a state holds changes in a way its key's inputs do not show. */
#define STATE_FORMAT "plerig L1 state 2"
#define KEY_FILE     "plerig-key"     /* the state's whole key: a state is taken only whole */
#define RUN_FILE     "plerig-run-dir" /* the run that saved it: its config names its paths */
#define CPU_FILE     "plerig-cpu"     /* the CPU model it emulates: pruned among its own only */
#define CONFIG_MAX   (1 << 20)

void l1_state_key(const char *medium_key, const char *bochs_version, const char *cpu_model,
		  char key[65])
{
	char text[512];
	snprintf(text, sizeof(text), "%s\nmedium %s\nbochs %s\ncpu %s x%u ips %llu\n", STATE_FORMAT,
		 medium_key, bochs_version, cpu_model, BOCHS_CPUS, BOCHS_IPS);
	l1_sha256_hex(text, strlen(text), key);
}

bool l1_state_find(const char *cache, const char *key, char *dir, size_t len)
{
	char path[PATH_MAX], saved[128];
	if (pathf(dir, len, "%s/states/%.16s", cache, key) ||
	    pathf(path, sizeof(path), "%s/%s", dir, KEY_FILE))
		return false;
	return text_file_read(path, saved, sizeof(saved)) > 0 && !strcmp(saved, key);
}

void l1_state_remove(const char *dir)
{
	remove_tree(dir);
}

/* @name in the directory @dir, whole or not at all (util/safe_dir's rules). 0, or -1 with @err. */
static int write_file(const char *dir, const char *name, const char *text, char *err, size_t errlen)
{
	const int fd = safe_dir_open(dir, 0, err, errlen);
	if (fd < 0)
		return -1;
	int rc = safe_file_replace(fd, dir, name, text, strlen(text), 0644, err, errlen);
	close(fd);
	return rc;
}

/* @text with every @from made @to, into a malloc'ed string. */
static char *replace_all(const char *text, const char *from, const char *to)
{
	size_t n = 0, fl = strlen(from), tl = strlen(to);
	for (const char *p = text; (p = strstr(p, from)); p += fl)
		n++;
	char *out = malloc(strlen(text) + n * (tl > fl ? tl - fl : 0) + 1), *o = out;
	if (!out)
		return NULL;
	for (const char *p = text, *m; *p; p = m + fl) {
		m = strstr(p, from);
		if (!m) {
			strcpy(o, p);
			return out;
		}
		memcpy(o, p, (size_t)(m - p));
		o += m - p;
		memcpy(o, to, tl);
		o += tl;
	}
	*o = '\0';
	return out;
}

static int stage_config(const char *dir, const char *run_dir, const char *out, char *err,
			size_t errlen)
{
	char path[PATH_MAX], was[PATH_MAX];
	static char config[CONFIG_MAX];
	if (pathf(path, sizeof(path), "%s/%s", dir, RUN_FILE) ||
	    text_file_read(path, was, sizeof(was)) <= 0)
		return errbuf_printf(err, errlen, "%s: no %s", dir, RUN_FILE);
	ssize_t n;
	if (pathf(path, sizeof(path), "%s/config", dir) ||
	    (n = text_file_read(path, config, sizeof(config))) < 0)
		return errbuf_printf(err, errlen, "%s/config: cannot be read", dir);
	(void)n;
	char *now = replace_all(config, was, run_dir);
	if (!now)
		return errbuf_printf(err, errlen, "out of memory");
	size_t len = strlen(now);
	char *text = realloc(now, len + 2);
	if (!text) {
		free(now);
		return errbuf_printf(err, errlen, "out of memory");
	}
	memcpy(text + len, "\n", 2);
	int rc = write_file(out, "config", text, err, errlen);
	free(text);
	return rc;
}

int l1_state_stage(const char *dir, const char *run_dir, char *out, size_t len, char *err,
		   size_t errlen)
{
	if (pathf(out, len, "%s/state", run_dir) || mkdir(out, 0700))
		return errbuf_printf(err, errlen, "%s/state: %s", run_dir, strerror(errno));
	DIR *d = opendir(dir);
	if (!d)
		return errbuf_printf(err, errlen, "%s: %s", dir, strerror(errno));
	/* restored now: the newest kept when a save prunes (best effort: a state is still whole) */
	(void)utimensat(AT_FDCWD, dir, NULL, 0);
	int rc = 0;
	struct dirent *e;
	while (!rc && (e = readdir(d))) {
		char from[PATH_MAX], to[PATH_MAX];
		if (e->d_name[0] == '.' || !strncmp(e->d_name, "plerig-", 7))
			continue;
		if (!strcmp(e->d_name, "config")) {
			rc = stage_config(dir, run_dir, out, err, errlen);
			continue;
		}
		/* read only: restoring a state never changes it, and it is a GiB */
		if (pathf(from, sizeof(from), "%s/%s", dir, e->d_name) ||
		    pathf(to, sizeof(to), "%s/%s", out, e->d_name) || symlink(from, to))
			rc = errbuf_printf(err, errlen, "linking %s: %s", from, strerror(errno));
	}
	closedir(d);
	return rc;
}

int l1_state_begin(const char *cache, char *dir, size_t len, char *err, size_t errlen)
{
	char states[PATH_MAX];
	if (pathf(states, sizeof(states), "%s/states", cache) || mkdir_p(states, err, errlen) ||
	    pathf(dir, len, "%s/.save-XXXXXX", states))
		return errbuf_printf(err, errlen, "%s: cannot hold a saved state", cache);
	if (!mkdtemp(dir))
		return errbuf_printf(err, errlen, "creating %s: %s", dir, strerror(errno));
	return 0;
}

int l1_state_saved(const char *save_dir)
{
	char path[PATH_MAX];
	if (!pathf(path, sizeof(path), "%s/saved", save_dir) && !access(path, F_OK))
		return 1;
	if (!pathf(path, sizeof(path), "%s/failed", save_dir) && !access(path, F_OK))
		return -1;
	return 0;
}

/*
 * The newest STATES_KEPT states of each emulated CPU stay, the one just saved
 * among them: a user comparing two kernels (a baseline's and a candidate's,
 * make ple-test's stock one and KERNEL=) or two plerig builds restores each
 * in turn, and one state per CPU made every other run boot L1 cold. Older
 * ones go: each holds the memory L1 touched (~300 MB). Another CPU's states
 * are counted apart (emulated:amd's beside Intel's); one that names none (an
 * older plerig's) goes. So do saves that never finished (".save-*", a plerig
 * killed while Bochs saved) once a day old: a younger one may be another
 * plerig's, saving now.
 */
#define STATES_KEPT 3

/* the emulated CPU a state names, in @cpu: false where it names none */
static bool state_cpu(const char *dir, char *cpu, size_t len)
{
	char path[PATH_MAX];
	return !pathf(path, sizeof(path), "%s/%s", dir, CPU_FILE) &&
	       text_file_read(path, cpu, len) > 0;
}

struct same_cpu {
	const char *keep, *cpu_model;
};

/* a state of @arg's CPU model, other than the one just saved */
static bool same_cpu_state(const char *path, const char *name, const struct stat *st, void *arg)
{
	const struct same_cpu *c = arg;
	char cpu[128];
	return name[0] != '.' && strcmp(name, c->keep) && S_ISDIR(st->st_mode) &&
	       state_cpu(path, cpu, sizeof(cpu)) && !strcmp(cpu, c->cpu_model);
}

static void prune(const char *states, const char *keep, const char *cpu_model)
{
	DIR *d = opendir(states);
	char path[PATH_MAX], cpu[128];
	struct dirent *e;
	if (!d)
		return;
	/* what is no state: a save that never finished, a day old; a state naming no CPU */
	while ((e = readdir(d))) {
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strcmp(e->d_name, keep) ||
		    pathf(path, sizeof(path), "%s/%s", states, e->d_name) || lstat(path, &st))
			continue;
		if (e->d_name[0] == '.'
			? time(NULL) - st.st_mtime > 24 * 3600
			: !S_ISDIR(st.st_mode) || !state_cpu(path, cpu, sizeof(cpu)))
			l1_state_remove(path);
	}
	closedir(d);
	const struct same_cpu c = {keep, cpu_model};
	(void)keep_newest(states, STATES_KEPT - 1, same_cpu_state, l1_state_remove, (void *)&c);
}

int l1_state_plugin_order(const char *line, const char *const *order, size_t n, char *out,
			  size_t len)
{
	static const char prefix[] = "plugin_ctrl: ";
	char items[64][64];
	bool taken[64] = {false};
	size_t nr = 0, written = 0;
	if (strncmp(line, prefix, sizeof(prefix) - 1))
		return -1;
	for (const char *p = line + sizeof(prefix) - 1; *p;) {
		p += strspn(p, ", ");
		size_t k = strcspn(p, ", ");
		if (!k)
			break;
		if (nr == 64 || k >= sizeof(items[0]))
			return -1;
		memcpy(items[nr], p, k);
		items[nr++][k] = '\0';
		p += k;
	}
	if (pathf(out, len, "%s", "plugin_ctrl:"))
		return -1;
	/* the devices in the order the saving Bochs started them, then the rest as they were */
	for (size_t o = 0; o <= n; o++)
		for (size_t i = 0; i < nr; i++) {
			const size_t l = o < n ? strlen(order[o]) : 0;
			if (taken[i] ||
			    (o < n && (strncmp(items[i], order[o], l) || items[i][l] != '=')))
				continue;
			taken[i] = true;
			const size_t used = strlen(out);
			if (pathf(out + used, len - used, "%s %s", written++ ? "," : "", items[i]))
				return -1;
		}
	return 0;
}

/*
 * Bochs 2.7 saves its timers by number and restores them onto the timers
 * the restoring Bochs registers, in the order it starts its devices. That
 * order is the order in which it loads their plugins: booting, first its
 * defaults (biosdev ... unmapped) and those the machine needs (usb_uhci)
 * after; restoring, as the saved config's plugin_ctrl lists them, where
 * usb_uhci comes second. Restored so, every serial port's timer ran another
 * timer's state: COM1 received a NUL every millisecond (L1 echoed "^@" on
 * its console) and never sent its heartbeat, and requests on COM2 went
 * unanswered. The saved config lists them in the order the booting Bochs
 * started them (its log's "init_dev of 'NAME'"), and the restored L1
 * answers (#24).
 */
static int order_plugins(const char *save_dir, const char *run_dir, char *err, size_t errlen)
{
	static char config[CONFIG_MAX];
	char path[PATH_MAX], names[64][32], line[4096];
	const char *order[64];
	size_t n = 0;
	if (pathf(path, sizeof(path), "%s/bochs.log", run_dir))
		return errbuf_printf(err, errlen, "%s: path too long", run_dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return errbuf_printf(err, errlen, "%s: %s", path, strerror(errno));
	/* the devices start before the first instruction: the log's first lines */
	for (unsigned lines = 0; n < 64 && lines < 20000 && fgets(line, sizeof(line), f); lines++) {
		const char *m = strstr(line, "init_dev of '");
		if (m && sscanf(m, "init_dev of '%31[^']'", names[n]) == 1) {
			order[n] = names[n];
			n++;
		}
	}
	fclose(f);
	if (!n)
		return errbuf_printf(err, errlen, "%s names no device Bochs started", path);
	ssize_t len;
	if (pathf(path, sizeof(path), "%s/config", save_dir) ||
	    (len = text_file_read(path, config, sizeof(config) - 2)) < 0)
		return errbuf_printf(err, errlen, "%s/config: cannot be read", save_dir);
	char *at =
	    strncmp(config, "plugin_ctrl: ", 13) ? strstr(config, "\nplugin_ctrl: ") : config;
	if (!at)
		return errbuf_printf(err, errlen, "%s: no plugin_ctrl line", path);
	at += *at == '\n';
	char *end = at + strcspn(at, "\n");
	const char saved = *end;
	*end = '\0';
	if (l1_state_plugin_order(at, order, n, line, sizeof(line)))
		return errbuf_printf(err, errlen, "%s: a plugin_ctrl line plerig cannot read",
				     path);
	*end = saved;
	static char text[CONFIG_MAX + 4096];
	if (snprintf(text, sizeof(text), "%.*s%s%s\n", (int)(at - config), config, line, end) >=
	    (int)sizeof(text))
		return errbuf_printf(err, errlen, "%s: too long", path);
	return write_file(save_dir, "config", text, err, errlen);
}

int l1_state_commit(const char *save_dir, const char *cache, const char *key, const char *cpu_model,
		    const char *run_dir, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	char e[ERRBUF_SIZE];
	if (order_plugins(save_dir, run_dir, e, sizeof(e))) {
		l1_state_remove(save_dir);
		return errbuf_printf(err, errlen, "the devices' order of Bochs' state: %s", e);
	}
	if (write_file(save_dir, RUN_FILE, run_dir, e, sizeof(e)) ||
	    write_file(save_dir, KEY_FILE, key, e, sizeof(e)) ||
	    write_file(save_dir, CPU_FILE, cpu_model, e, sizeof(e)) ||
	    pathf(dir, sizeof(dir), "%s/states/%.16s", cache, key)) {
		l1_state_remove(save_dir);
		return errbuf_printf(err, errlen, "%s: cannot record the state's key: %s", save_dir,
				     e);
	}
	/* a state of another build under the same name (a 64-bit prefix) goes */
	char other[PATH_MAX];
	if (!l1_state_find(cache, key, other, sizeof(other)) && !access(dir, F_OK))
		l1_state_remove(dir);
	if (rename(save_dir, dir)) {
		const int e = errno;
		l1_state_remove(save_dir);
		if (e != EEXIST && e != ENOTEMPTY)
			return errbuf_printf(err, errlen, "%s: %s", dir, strerror(e));
	}
	char states[PATH_MAX], name[17];
	str_copy(name, sizeof(name), key);
	if (!pathf(states, sizeof(states), "%s/states", cache))
		prune(states, name, cpu_model);
	return 0;
}
