// SPDX-License-Identifier: GPL-2.0
#include "measure/thread_state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/errbuf.h"
#include "util/text_file.h"

/* proc(5) numbers the fields from 1: state is field 3, processor field 39 */
#define STATE_FIELD 3
#define CPU_FIELD   39

int thread_state_parse(const char *text, struct thread_state *out)
{
	/* the name (field 2) may hold blanks and ')': the last ')' ends it */
	const char *p = text ? strrchr(text, ')') : NULL;
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -1;
	const char state = p[2];
	p += 3;
	for (int field = STATE_FIELD + 1; field < CPU_FIELD; field++) {
		const size_t len = *p == ' ' ? strspn(p + 1, "-0123456789") : 0;
		if (!len)
			return -1;
		p += 1 + len;
	}
	char *end;
	if (*p != ' ' || p[1] < '0' || p[1] > '9')
		return -1;
	errno = 0;
	const long cpu = strtol(p + 1, &end, 10);
	if (errno || cpu > 1 << 20 || (*end != ' ' && *end != '\0'))
		return -1;
	out->state = state;
	out->cpu = (int)cpu;
	return 0;
}

int thread_state_read(pid_t tid, struct thread_state *out, char *err, size_t errlen)
{
	char path[64], text[1024];
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	const ssize_t n = text_file_read(path, text, sizeof(text));
	if (n < 0)
		return errbuf_errno(err, errlen, (int)n, "cannot read %s: %s", path,
				    strerror((int)-n));
	if (thread_state_parse(text, out))
		return errbuf_errno(err, errlen, -EPROTO, "unexpected contents of %s", path);
	return 0;
}
