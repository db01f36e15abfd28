// SPDX-License-Identifier: GPL-2.0
#define _XOPEN_SOURCE 700 /* nftw */
#include "backends/emulated/l1_medium.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <nettle/sha2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cache_dir.h"
#include "util/clock.h"
#include "util/errbuf.h"
#include "util/keep_newest.h"
#include "util/printable.h"
#include "util/remove_tree.h"
#include "util/spawn.h"
#include "util/strfmt.h"

/* Bump when what a medium holds changes in a way its inputs do not show. */
#define MEDIUM_FORMAT	  "plerig L1 medium 1"
#define MEDIA_KEPT	  4		   /* media of other keys kept in the cache (80 MB each) */
#define KERNEL_TIMEOUT_MS (30 * 60 * 1000) /* a 70 MB package on a slow mirror */
#define BUILD_TIMEOUT_MS  (15 * 60 * 1000)

static void hash_text(struct sha256_ctx *c, const char *s)
{
	sha256_update(c, strlen(s), (const uint8_t *)s);
	sha256_update(c, 1, (const uint8_t *)"\n");
}

/* A file by its content. */
static int hash_content(struct sha256_ctx *c, const char *label, const char *path, char *err,
			size_t errlen)
{
	uint8_t buf[1 << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errbuf_printf(err, errlen, "%s %s: %s", label, path, strerror(errno));
	hash_text(c, label);
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		sha256_update(c, (size_t)n, buf);
	int e = errno;
	close(fd);
	if (n < 0)
		return errbuf_printf(err, errlen, "reading %s: %s", path, strerror(e));
	return 0;
}

/* A file by its name, size and time: the system's libraries, busybox, a module tree. */
static void hash_stat(struct sha256_ctx *c, const char *path)
{
	struct stat st;
	char line[PATH_MAX + 96];
	if (stat(path, &st))
		snprintf(line, sizeof(line), "%s missing", path);
	else
		snprintf(line, sizeof(line), "%s %lld %lld.%09ld", path, (long long)st.st_size,
			 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	hash_text(c, line);
}

static struct sha256_ctx *walk_ctx;
static int walk_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	if (flag == FTW_F)
		hash_stat(walk_ctx, path);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The shared libraries this plerig runs with: the ones the medium copies
 * (ldd's list, which this process has mapped), by name, size and time.
 */
static void hash_libraries(struct sha256_ctx *c)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 256], *libs[512];
	unsigned n = 0;
	if (!f) {
		hash_text(c, "no /proc/self/maps");
		return;
	}
	while (n < 512 && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');
		if (!p || !strstr(p, ".so"))
			continue;
		p[strcspn(p, "\n")] = '\0';
		bool seen = false;
		for (unsigned i = 0; i < n && !seen; i++)
			seen = !strcmp(libs[i], p);
		if (!seen && (libs[n] = strdup(p)))
			n++;
	}
	fclose(f);
	qsort(libs, n, sizeof(libs[0]), cmp_str);
	for (unsigned i = 0; i < n; i++) {
		hash_stat(c, libs[i]);
		free(libs[i]);
	}
}

static int script(const struct l1_medium_inputs *in, const char *name, char *out, size_t len)
{
	return pathf(out, len, "%s/%s", in->scripts, name);
}

static int medium_key(const struct l1_medium_inputs *in, const char *kernel, char key[65],
		      char *err, size_t errlen)
{
	static const char *const scripts[] = {"build-medium", "init",	     "unpack-kernel",
					      "boot-shim.S",  "vendors.cfg", "read-vendor",
					      "vendor-fit",   "add-modules"};
	struct sha256_ctx c;
	char path[PATH_MAX];
	sha256_init(&c);
	hash_text(&c, MEDIUM_FORMAT);
	hash_text(&c, in->vendor);
	if (hash_content(&c, "plerig", "/proc/self/exe", err, errlen) ||
	    hash_content(&c, "guest", in->guest, err, errlen) ||
	    hash_content(&c, "kernel", kernel, err, errlen))
		return -1;
	for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++)
		if (script(in, scripts[i], path, sizeof(path)) ||
		    hash_content(&c, scripts[i], path, err, errlen))
			return -1;
	hash_text(&c, "modules");
	if (in->modules) {
		walk_ctx = &c;
		if (nftw(in->modules, walk_one, 32, FTW_PHYS))
			return errbuf_printf(err, errlen, "modules %s: %s", in->modules,
					     strerror(errno));
	}
	hash_libraries(&c);
	hash_stat(&c, "/bin/busybox");
	hash_stat(&c, "/usr/bin/kmod");
	hash_stat(&c, "/bin/kmod");
	uint8_t d[SHA256_DIGEST_SIZE];
	sha256_digest(&c, sizeof(d), d);
	for (unsigned i = 0; i < sizeof(d); i++)
		snprintf(key + 2 * i, 3, "%02x", d[i]);
	return 0;
}

/* The last non-empty line of what a script printed: its answer. */
static void last_line(char *out, char *line, size_t len)
{
	size_t n = strlen(out);
	while (n && out[n - 1] == '\n')
		out[--n] = '\0';
	const char *p = strrchr(out, '\n');
	str_copy(line, len, p ? p + 1 : out);
}

/* Debian's kernel package, downloaded once per version. */
static int debian_kernel(const struct l1_medium_inputs *in, char *deb, size_t len, char *err,
			 size_t errlen)
{
	char prog[PATH_MAX], cache[PATH_MAX], out[16384], e[ERRBUF_SIZE];
	if (script(in, "build-medium", prog, sizeof(prog)) ||
	    pathf(cache, sizeof(cache), "%s/kernels", in->cache))
		return errbuf_printf(err, errlen, "%s: path too long", in->cache);
	char *const argv[] = {prog, "kernel", cache, NULL};
	int rc = spawn_capture(argv, out, sizeof(out), KERNEL_TIMEOUT_MS, e, sizeof(e));
	if (rc < 0)
		return errbuf_printf(err, errlen, "%s", e);
	last_line(out, deb, len);
	if (rc)
		return errbuf_printf(err, errlen, "%s", deb);
	return 0;
}

static void read_medium_txt(const char *dir, struct l1_medium *m)
{
	char path[PATH_MAX + 16], line[1024];
	snprintf(path, sizeof(path), "%s/medium.txt", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq++ = '\0';
		const struct {
			const char *key;
			char *dst;
			size_t len;
		} fields[] = {
		    {"kernel_version", m->kernel_version, sizeof(m->kernel_version)},
		    {"kernel_release", m->kernel_release, sizeof(m->kernel_release)},
		    {"kernel_sha256", m->kernel_sha256, sizeof(m->kernel_sha256)},
		    {"kernel_origin", m->kernel_origin, sizeof(m->kernel_origin)},
		    {"booted", m->booted, sizeof(m->booted)},
		};
		for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
			if (!strcmp(line, fields[i].key))
				str_copy(fields[i].dst, fields[i].len, eq);
	}
	fclose(f);
}

/* a medium of another build: any directory but the one in use, and no partial one (".*") */
static bool other_medium(const char *path, const char *name, const struct stat *st, void *keep)
{
	(void)path;
	return name[0] != '.' && strcmp(name, keep) && S_ISDIR(st->st_mode);
}

/* Media of other builds: the MEDIA_KEPT used last stay, older ones go (80 MB each). */
static void prune_media(const char *media, const char *keep)
{
	(void)keep_newest(media, MEDIA_KEPT, other_medium, remove_tree, (void *)keep);
}

/* build-medium's status for a kernel that cannot be tested */
#define BUILD_REFUSED 3

static int build(const struct l1_medium_inputs *in, const char *kernel, const char *dir,
		 const char *media, bool *refused, char *err, size_t errlen)
{
	char prog[PATH_MAX], tmp[PATH_MAX], init[PATH_MAX], kcache[PATH_MAX], e[ERRBUF_SIZE];
	static char out[65536];
	if (script(in, "build-medium", prog, sizeof(prog)) ||
	    script(in, "init", init, sizeof(init)) ||
	    pathf(tmp, sizeof(tmp), "%s/.build-XXXXXX", media) ||
	    pathf(kcache, sizeof(kcache), "%s/kernels", in->cache))
		return errbuf_printf(err, errlen, "%s: path too long", in->cache);
	if (!mkdtemp(tmp))
		return errbuf_printf(err, errlen, "creating %s: %s", tmp, strerror(errno));
	/* the binary this process runs, whose key this is */
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		remove_tree(tmp);
		return errbuf_printf(err, errlen, "/proc/self/exe: %s", strerror(errno));
	}
	self[n] = '\0';
	char *const argv[] = {prog,
			      "build",
			      tmp,
			      (char *)kernel,
			      (char *)(in->modules ? in->modules : ""),
			      self,
			      (char *)in->guest,
			      init,
			      kcache,
			      "",
			      (char *)in->vendor,
			      NULL};
	int rc = spawn_capture(argv, out, sizeof(out), BUILD_TIMEOUT_MS, e, sizeof(e));
	if (rc) {
		char why[2048];
		last_line(out, why, sizeof(why));
		remove_tree(tmp);
		*refused = rc == BUILD_REFUSED;
		return rc < 0 ? errbuf_printf(err, errlen, "%s", e)
			      : errbuf_printf(err, errlen, "building L1's medium: %s", why);
	}
	/* another plerig may have built the same one meanwhile: then its is as good */
	if (rename(tmp, dir) && errno != ENOTEMPTY && errno != EEXIST) {
		int en = errno;
		remove_tree(tmp);
		return errbuf_printf(err, errlen, "%s: %s", dir, strerror(en));
	}
	remove_tree(tmp);
	return 0;
}

int l1_medium_get(const struct l1_medium_inputs *in, struct l1_medium *m, bool *kernel_refused,
		  char *err, size_t errlen)
{
	*kernel_refused = false;
	char kernel[PATH_MAX], media[PATH_MAX], dir[PATH_MAX];
	memset(m, 0, sizeof(*m));
	if (pathf(media, sizeof(media), "%s/media", in->cache) || mkdir_p(media, err, errlen))
		return errbuf_printf(err, errlen, "%s: cannot hold L1's media", in->cache);
	if (in->kernel) {
		str_copy(kernel, sizeof(kernel), in->kernel);
	} else {
		if (in->progress)
			printable_printf(in->progress, "%s: which kernel Debian ships (apt)\n",
					 in->who);
		if (debian_kernel(in, kernel, sizeof(kernel), err, errlen))
			return -1;
	}
	char name[17];
	if (medium_key(in, kernel, m->key, err, errlen))
		return -1;
	str_copy(name, sizeof(name), m->key);
	if (pathf(dir, sizeof(dir), "%s/%s", media, name) ||
	    pathf(m->iso, sizeof(m->iso), "%s/l1.iso", dir))
		return errbuf_printf(err, errlen, "%s: path too long", media);
	if (access(m->iso, R_OK)) {
		if (in->progress)
			printable_printf(in->progress,
					 "%s: building L1's medium %.16s (once per kernel and "
					 "plerig build): %s\n",
					 in->who, m->key, kernel);
		const uint64_t t0 = monotonic_ns();
		if (build(in, kernel, dir, media, kernel_refused, err, errlen))
			return -1;
		m->built = true;
		m->build_s = (double)(monotonic_ns() - t0) / 1e9;
		prune_media(media, name);
	}
	(void)utimensat(AT_FDCWD, dir, NULL, 0); /* used now: pruned last */
	read_medium_txt(dir, m);
	return 0;
}
