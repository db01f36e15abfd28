/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one protocol between plerig and L1, the Linux it boots under Bochs
 * (docs/architecture.md, "The emulated host"). L1 writes lines on its
 * serial console (COM1); everything but the lines below is log:
 *
 *   @@ple step ID begin ...             a request (or an init step) starts
 *   @@ple step ID end rc=N ...          it ended with status N; its files follow
 *   @@ple err ID TEXT                   a line an exec'd command wrote on its stderr
 *   @@ple file NAME SIZE SHA256         a file: gzip, then base64 lines of 76
 *   @@ple file-end NAME                 ... until this line (SIZE, SHA256: the gzip)
 *   @@ple file-at NAME SIZE SHA256      a file whose gzip came through the side
 *                                       channel (l1_side.h): its next SIZE bytes
 *   @@ple ready                         L1 waits for requests
 *   @@ple alive ...                     a heartbeat, every 10 emulated seconds
 *   @@ple fatal WHY                     L1 cannot go on
 *   @@ple done ...                      L1 powers off
 *
 * plerig writes one line per request on L1's COM2:
 *
 *   @@ple req ID KIND EPOCH PAYLOAD     PAYLOAD: base64 of the gzip'ed blob, one line
 *
 * EPOCH is the controlling host's clock (seconds): L1's own starts at
 * 2000-01-01 (Bochs' time0, fixed for repeatable runs), and dates in what
 * it writes must be this host's.
 */
#ifndef PLERIG_L1_PROTOCOL_H
#define PLERIG_L1_PROTOCOL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backends/emulated/l1_side.h"

#define L1_NAME_MAX 256 /* a file's or request's name, NUL included */

/* @len bytes, gzip'ed (mtime 0: the same bytes give the same frame), into a malloc'ed buffer. */
int l1_gzip(const void *data, size_t len, uint8_t **out, size_t *out_len, char *err, size_t errlen);
/* The reverse; refuses more than @max bytes out. */
int l1_gunzip(const uint8_t *data, size_t len, size_t max, uint8_t **out, size_t *out_len,
	      char *err, size_t errlen);
/* base64 of @len bytes, NUL-terminated, malloc'ed; NULL out of memory. */
char *l1_base64(const uint8_t *data, size_t len);
/* Decode base64 (no whitespace); malloc'ed. -1 with @err on a character outside it. */
int l1_unbase64(const char *text, size_t len, uint8_t **out, size_t *out_len, char *err,
		size_t errlen);
/* SHA-256 of @len bytes as 64 hex digits and a NUL. */
void l1_sha256_hex(const void *data, size_t len, char hex[65]);

/*
 * Write @data as the frame of file @name on @out (the lines above); where
 * @side is on, its gzip'ed bytes through it (l1_side.h) and on @out only
 * "@@ple file-at NAME SIZE SHA256" after them.
 */
int l1_frame_write(FILE *out, struct l1_side *side, const char *name, const void *data, size_t len,
		   char *err, size_t errlen);

/*
 * A request's answer, written by L1 and read by plerig with these alone:
 * its end line ("@@ple step ID end rc=N uptime=S"), the one file that
 * answers it, "ID.WHAT" (result, warm, exec; "ID.error" refuses it), and
 * an exec's outputs before that, "ID/stdout" and "ID/out/RELPATH".
 */
void l1_step_end_print(FILE *out, const char *id, int rc, double uptime);
/* "ID.WHAT" into @buf; -1 when it does not fit. */
int l1_answer_name(char *buf, size_t len, const char *id, const char *what);
/* "ID/out/REL", or "ID/stdout" for @rel NULL, into @buf; -1 when it does not fit. */
int l1_output_name(char *buf, size_t len, const char *id, const char *rel);
enum l1_output { L1_OUTPUT_NONE, L1_OUTPUT_STDOUT, L1_OUTPUT_FILE };
/* Which output of request @id a file @name is; for L1_OUTPUT_FILE, @rel its RELPATH. */
enum l1_output l1_output_of(const char *name, const char *id, const char **rel);
/* "@@ple err ID TEXT": a line the command of request @id wrote on its stderr. */
void l1_err_print(FILE *out, const char *id, const char *text);
/* TEXT of such a line of request @id; NULL for any other line. */
const char *l1_err_text(const char *line, const char *id);

/* A request line into @line (malloc'ed): "@@ple req ID KIND EPOCH PAYLOAD". */
int l1_request_format(const char *id, const char *kind, long long epoch, const void *blob,
		      size_t len, char **line, char *err, size_t errlen);

struct l1_request {
	char id[L1_NAME_MAX];
	char kind[32];
	long long epoch;
	uint8_t *blob; /* malloc'ed, gunzip'ed */
	size_t len;
};
/* Parse a request line; 0, or -1 with @err. */
int l1_request_parse(const char *line, struct l1_request *r, char *err, size_t errlen);
void l1_request_free(struct l1_request *r);

/* ---- reading L1's console ---- */

/* A file that came whole: its name and its bytes (gunzip'ed), malloc'ed. */
struct l1_file {
	char name[L1_NAME_MAX];
	uint8_t *data;
	size_t len;
};

/*
 * A frame being read. Lines inside a frame that are not base64 (a kernel
 * message, another writer's line) are skipped and counted: one that cut
 * into a data line fails the SHA-256.
 */
struct l1_frame_reader {
	/* the side channel's file (l1_side.h), read in order from side_pos; "" none */
	char side[PATH_MAX];
	int side_fd;
	uint64_t side_pos;
	bool in_frame;
	char name[L1_NAME_MAX];
	size_t size;
	char sha[65];
	char *b64;
	size_t b64_len, b64_cap;
	unsigned foreign; /* lines skipped inside frames */
};

enum l1_feed {
	L1_FEED_LINE,	    /* not part of a frame: the caller looks at it */
	L1_FEED_FRAME_LINE, /* taken by the frame being read */
	L1_FEED_FILE,	    /* a frame ended: @file holds it */
	L1_FEED_BAD_FILE,   /* a frame ended damaged: @err says how */
};

/* A reader whose file-at lines take their bytes from @side_path (NULL: none). */
void l1_frame_reader_init(struct l1_frame_reader *fr, const char *side_path);
/* One console line (no line end) into the reader. */
enum l1_feed l1_frame_feed(struct l1_frame_reader *fr, const char *line, struct l1_file *file,
			   char *err, size_t errlen);
void l1_frame_reader_free(struct l1_frame_reader *fr);
void l1_file_free(struct l1_file *f);

/* The largest file L1 may send, gunzip'ed: a run's results (histograms) fit in far less. */
#define L1_FILE_MAX (256u << 20)

#endif
