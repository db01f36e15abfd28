// SPDX-License-Identifier: GPL-2.0
#include "util/atomic_file.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/output_path.h"

/*
 * A fresh name next to @path (so rename() stays within one file system),
 * created exclusively with 0666 so that the umask applies as for any file.
 */
static int create_temp(const char *path, char *tmp, size_t len)
{
	for (unsigned attempt = 0; attempt < 100; attempt++) {
		snprintf(tmp, len, "%s.%ld.%u.tmp", path, (long)getpid(), attempt);
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

/* Straight into a FIFO or a device: no temporary file, no rename. */
static int write_stream(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	int bad = output_path_write_all(fd, text, len);
	int saved = errno;
	if (close(fd) && !bad)
		return -1;
	errno = saved;
	return bad;
}

static int replace(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
	size_t tmp_len = strlen(path) + 32;
	char *tmp = malloc(tmp_len);
	int fd, saved;

	if (!tmp)
		return errbuf_printf(err, errlen, "%s", strerror(ENOMEM));
	fd = create_temp(path, tmp, tmp_len);
	if (fd < 0) {
		saved = errno;
		errbuf_printf(err, errlen, "%s (creating '%s')", strerror(saved), tmp);
		free(tmp);
		return -1;
	}
	/* fsync before rename: after a crash, the old file or the whole new one */
	if (output_path_write_all(fd, text, len) || fsync(fd)) {
		saved = errno;
		close(fd);
		goto fail_unlink;
	}
	if (close(fd) || rename(tmp, path)) {
		saved = errno;
		goto fail_unlink;
	}
	free(tmp);
	return 0;

fail_unlink:
	unlink(tmp);
	free(tmp);
	return errbuf_printf(err, errlen, "%s", strerror(saved));
}

static int write_to(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
	char target[PATH_MAX];

	switch (output_path_classify(path, target, sizeof(target), err, errlen)) {
	case OUTPUT_STDOUT:
		if (fwrite(text, 1, len, stdout) != len || fflush(stdout) == EOF)
			return errbuf_printf(err, errlen, "%s", strerror(errno));
		return 0;
	case OUTPUT_STREAM:
		if (write_stream(path, text, len))
			return errbuf_printf(err, errlen, "%s", strerror(errno));
		return 0;
	case OUTPUT_REPLACE:
		return replace(target, text, len, err, errlen);
	case OUTPUT_REFUSED:
		break;
	}
	return -1;
}

int atomic_file_write_as(const char *path, const char *what, const char *fallback, const char *text,
			 size_t len, char *err, size_t errlen)
{
	char why[ERRBUF_SIZE], name[32], saved[PATH_MAX];
	const char *where = path && !strcmp(path, "-") ? "stdout" : path ? path : "";

	if (!write_to(path, text, len, why, sizeof(why)))
		return 0;
	/* never nowhere: the results go to a fresh file whose name is said */
	const char *dot = strrchr(fallback, '.');
	const char *ext = dot ? dot + 1 : fallback;
	snprintf(name, sizeof(name), "%.*s", dot ? (int)(dot - fallback) : (int)strlen(fallback),
		 fallback);
	if (output_path_fallback(name, ext, text, len, saved, sizeof(saved)))
		return errbuf_printf(err, errlen,
				     "cannot write %s to '%s': %s; no fallback file could be "
				     "written either",
				     what, where, why);
	return errbuf_printf(err, errlen, "cannot write %s to '%s': %s; the %s is in %s instead",
			     what, where, why, what, saved);
}

int atomic_file_write(const char *path, const char *what, const char *text, size_t len, char *err,
		      size_t errlen)
{
	char word[16];
	size_t i = 0;
	/* a file name without spaces: the first word only */
	for (; what[i] && what[i] != ' ' && i + 1 < sizeof(word); i++)
		word[i] = (char)tolower((unsigned char)what[i]);
	word[i] = '\0';
	return atomic_file_write_as(path, what, word, text, len, err, errlen);
}
