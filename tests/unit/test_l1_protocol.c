// SPDX-License-Identifier: GPL-2.0
/*
 * The emulated host's protocol with L1 (backends/emulated/l1_protocol.h)
 * and what travels in it (l1_blob.h): frames as L1's console carries them,
 * with kernel messages between their lines; damaged, cut and foreign ones
 * refused with the reason; a result that comes back whole. And the one
 * line of a saved L1 state plerig rewrites (l1_state.h): Bochs' plugins in
 * the order it started its devices.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/emulated/l1_blob.h"
#include "backends/emulated/l1_protocol.h"
#include "backends/emulated/l1_side.h"
#include "backends/emulated/l1_state.h"
#include "support/check_main.h"
#include "util/errbuf.h"

/* Everything l1_frame_write writes for @data, as lines. */
static char *frame_text(const char *name, const void *data, size_t len)
{
	char *text = NULL, err[ERRBUF_SIZE];
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(l1_frame_write(f, NULL, name, data, len, err, sizeof(err)), 0);
	fclose(f);
	return text;
}

/* Feed @text line by line; the file that came, or the error of a bad one. */
static enum l1_feed feed_all(char *text, struct l1_file *file, char *err, size_t errlen,
			     unsigned *foreign)
{
	struct l1_frame_reader fr = {0};
	enum l1_feed last = L1_FEED_LINE;
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		enum l1_feed r = l1_frame_feed(&fr, line, file, err, errlen);
		if (r == L1_FEED_FILE || r == L1_FEED_BAD_FILE)
			last = r;
	}
	*foreign = fr.foreign;
	l1_frame_reader_free(&fr);
	return last;
}

START_TEST(test_a_frame_comes_back_whole)
{
	uint8_t data[5000];
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + i / 100);
	char *text = frame_text("run-1.result", data, sizeof(data));
	ck_assert(!strncmp(text, "@@ple file run-1.result ", 24));
	struct l1_file f;
	char err[ERRBUF_SIZE] = "";
	unsigned foreign;
	ck_assert_int_eq(feed_all(text, &f, err, sizeof(err), &foreign), L1_FEED_FILE);
	ck_assert_str_eq(f.name, "run-1.result");
	ck_assert_uint_eq(f.len, sizeof(data));
	ck_assert(!memcmp(f.data, data, sizeof(data)));
	l1_file_free(&f);
	free(text);
}
END_TEST

/*
 * Through the side channel (a file, as the fake Bochs' parallel port): one
 * line on the console, the bytes taken in order from the side's file; a
 * byte changed there, bytes missing, or no side at all refuse the file.
 */
START_TEST(test_files_through_the_side_channel)
{
	char dir[] = "/tmp/plerig-side-XXXXXX", path[64], err[ERRBUF_SIZE] = "", *text = NULL;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/" L1_SIDE_FILE, dir);
	struct l1_side side;
	ck_assert_int_eq(l1_side_open(&side, path, err, sizeof(err)), 0);
	size_t n = 0;
	FILE *console = open_memstream(&text, &n);
	const char a[] = "the first file", b[] = "the second, after it";
	ck_assert_int_eq(l1_frame_write(console, &side, "a", a, sizeof(a), err, sizeof(err)), 0);
	ck_assert_int_eq(l1_frame_write(console, &side, "b", b, sizeof(b), err, sizeof(err)), 0);
	l1_side_close(&side);
	fclose(console);
	ck_assert(!strncmp(text, "@@ple file-at a ", 16));
	ck_assert_ptr_null(strstr(text, "@@ple file-end"));
	struct l1_frame_reader fr;
	struct l1_file f;
	l1_frame_reader_init(&fr, path);
	char *second = strchr(text, '\n');
	*second++ = '\0';
	ck_assert_int_eq(l1_frame_feed(&fr, text, &f, err, sizeof(err)), L1_FEED_FILE);
	ck_assert_str_eq(f.name, "a");
	ck_assert_str_eq((char *)f.data, a);
	l1_file_free(&f);
	ck_assert_int_eq(l1_frame_feed(&fr, second, &f, err, sizeof(err)), L1_FEED_FILE);
	ck_assert_str_eq((char *)f.data, b);
	l1_file_free(&f);
	/* read past its end: bytes missing */
	ck_assert_int_eq(l1_frame_feed(&fr, second, &f, err, sizeof(err)), L1_FEED_BAD_FILE);
	ck_assert_ptr_nonnull(strstr(err, "0 of"));
	l1_file_free(&f);
	l1_frame_reader_free(&fr);
	/* a byte changed: its SHA-256 */
	FILE *w = fopen(path, "r+");
	ck_assert_ptr_nonnull(w);
	fseek(w, 12, SEEK_SET);
	fputc('X', w);
	fclose(w);
	l1_frame_reader_init(&fr, path);
	ck_assert_int_eq(l1_frame_feed(&fr, text, &f, err, sizeof(err)), L1_FEED_BAD_FILE);
	ck_assert_ptr_nonnull(strstr(err, "where L1 sent"));
	l1_file_free(&f);
	l1_frame_reader_free(&fr);
	/* none here: refused, not read from anywhere */
	l1_frame_reader_init(&fr, NULL);
	ck_assert_int_eq(l1_frame_feed(&fr, text, &f, err, sizeof(err)), L1_FEED_BAD_FILE);
	ck_assert_ptr_nonnull(strstr(err, "no side channel"));
	l1_frame_reader_free(&fr);
	/* an I/O port spec that is none is refused before any ioperm */
	ck_assert_int_eq(l1_side_open(&side, "ioport:0", err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "not an I/O port"));
	unlink(path);
	rmdir(dir);
	free(text);
}
END_TEST

/* A kernel message between two lines of a frame is not data; one inside a line is damage. */
START_TEST(test_lines_of_others_are_skipped_and_damage_is_caught)
{
	const char msg[] = "the same bytes, whatever the console said meanwhile";
	char *text = frame_text("f", msg, sizeof(msg));
	char *second = strchr(strchr(text, '\n') + 1, '\n') + 1;
	char *mixed = NULL;
	ck_assert_int_ge(asprintf(&mixed, "%.*s[   12.5] kvm: a warning\n%s", (int)(second - text),
				  text, second),
			 0);
	struct l1_file f;
	char err[ERRBUF_SIZE] = "";
	unsigned foreign;
	ck_assert_int_eq(feed_all(mixed, &f, err, sizeof(err), &foreign), L1_FEED_FILE);
	ck_assert_uint_eq(foreign, 1);
	ck_assert_str_eq((char *)f.data, msg);
	l1_file_free(&f);
	free(mixed);
	/* a character of the data changed: the SHA-256 says so */
	char *data_line = strchr(text, '\n') + 1;
	data_line[3] = data_line[3] == 'A' ? 'B' : 'A';
	ck_assert_int_eq(feed_all(text, &f, err, sizeof(err), &foreign), L1_FEED_BAD_FILE);
	ck_assert_ptr_nonnull(strstr(err, "where L1 sent"));
	free(text);
}
END_TEST

START_TEST(test_a_request_line_round_trips)
{
	char *line, err[ERRBUF_SIZE];
	const char blob[] = "a variant";
	ck_assert_int_eq(l1_request_format("run-7", "variant", 1764633600, blob, sizeof(blob),
					   &line, err, sizeof(err)),
			 0);
	ck_assert(!strncmp(line, "@@ple req run-7 variant 1764633600 ", 35));
	ck_assert_ptr_eq(strchr(line, '\n'), line + strlen(line) - 1); /* one line */
	struct l1_request q;
	ck_assert_int_eq(l1_request_parse(line, &q, err, sizeof(err)), 0);
	ck_assert_str_eq(q.id, "run-7");
	ck_assert_str_eq(q.kind, "variant");
	ck_assert_int_eq(q.epoch, 1764633600);
	ck_assert_uint_eq(q.len, sizeof(blob));
	ck_assert_str_eq((char *)q.blob, blob);
	l1_request_free(&q);
	free(line);
	ck_assert_int_eq(l1_request_parse("@@ple req x variant 1 not*base64", &q, err, sizeof(err)),
			 -1);
	ck_assert_ptr_nonnull(strstr(err, "base64"));
	ck_assert_int_eq(
	    l1_request_format("two words", "variant", 0, "", 0, &line, err, sizeof(err)), -1);
}
END_TEST

/* What L1 writes of an answer, plerig reads back with the same helpers, and only its own request's.
 */
START_TEST(test_an_answer_is_named_and_read_by_one_rule)
{
	char name[L1_NAME_MAX], line[512];
	const char *rel = NULL;
	ck_assert_int_eq(l1_answer_name(name, sizeof(name), "exec-3", "exec"), 0);
	ck_assert_str_eq(name, "exec-3.exec");
	ck_assert_int_eq(l1_answer_name(name, 8, "exec-3", "error"), -1);
	ck_assert_int_eq(l1_output_name(name, sizeof(name), "exec-3", NULL), 0);
	ck_assert_str_eq(name, "exec-3/stdout");
	ck_assert_int_eq(l1_output_of(name, "exec-3", &rel), L1_OUTPUT_STDOUT);
	ck_assert_int_eq(l1_output_of(name, "exec-", &rel), L1_OUTPUT_NONE);
	ck_assert_int_eq(l1_output_name(name, sizeof(name), "exec-3", "baselines/k.json"), 0);
	ck_assert_str_eq(name, "exec-3/out/baselines/k.json");
	ck_assert_int_eq(l1_output_of(name, "exec-3", &rel), L1_OUTPUT_FILE);
	ck_assert_str_eq(rel, "baselines/k.json");
	ck_assert_int_eq(l1_output_of(name, "exec-31", &rel), L1_OUTPUT_NONE);
	ck_assert_int_eq(l1_output_of("exec-3/out/", "exec-3", &rel), L1_OUTPUT_NONE);
	ck_assert_int_eq(l1_output_of("exec-3/stdout2", "exec-3", &rel), L1_OUTPUT_NONE);

	FILE *f = fmemopen(line, sizeof(line), "w");
	ck_assert_ptr_nonnull(f);
	l1_err_print(f, "exec-3", "check: pause \x1b[2J 1.2 s");
	fclose(f);
	*strchr(line, '\n') = '\0';
	ck_assert_str_eq(line, "@@ple err exec-3 check: pause \\x1b[2J 1.2 s");
	ck_assert_str_eq(l1_err_text(line, "exec-3"), "check: pause \\x1b[2J 1.2 s");
	ck_assert_ptr_null(l1_err_text(line, "exec-"));
	ck_assert_ptr_null(l1_err_text(line, "exec-31"));
	ck_assert_ptr_null(l1_err_text("@@ple step exec-3 end rc=0", "exec-3"));

	f = fmemopen(line, sizeof(line), "w");
	l1_step_end_print(f, "run-1", 2, 12.345);
	fclose(f);
	ck_assert_str_eq(line, "@@ple step run-1 end rc=2 uptime=12.35\n");
}
END_TEST

START_TEST(test_a_result_travels_whole)
{
	struct variant_result r, back;
	char err[ERRBUF_SIZE];
	memset(&r, 0, sizeof(r));
	r.variant.vms = 2;
	r.variant.vcpus = 2;
	r.ok = true;
	r.interval_s = 0.5;
	r.nr_records = 4;
	r.records = calloc(4, sizeof(*r.records));
	r.protected_counter = calloc(2, sizeof(uint64_t));
	ck_assert_ptr_nonnull(r.records);
	ck_assert_ptr_nonnull(r.protected_counter);
	r.records[3].guest.acquisitions = 12345;
	r.records[3].ple.pause_exits = 1494;
	r.protected_counter[1] = 99;
	snprintf(r.ple_note, sizeof(r.ple_note), "counted at CPL 0");
	struct l1_blob b;
	ck_assert_int_eq(l1_blob_result(&r, &b, err, sizeof(err)), 0);
	ck_assert_int_eq(l1_blob_read_result(b.data, b.len, &back, err, sizeof(err)), 0);
	ck_assert(back.ok);
	ck_assert_uint_eq(back.nr_records, 4);
	ck_assert_uint_eq(back.records[3].guest.acquisitions, 12345);
	ck_assert_uint_eq(back.records[3].ple.pause_exits, 1494);
	ck_assert_uint_eq(back.protected_counter[1], 99);
	ck_assert_ptr_null(back.window_acquisitions);
	ck_assert_str_eq(back.ple_note, "counted at CPL 0");
	variant_result_free(&back);
	/* cut short: refused, nothing half-read */
	ck_assert_int_eq(l1_blob_read_result(b.data, b.len - 8, &back, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "cut short"));
	ck_assert_ptr_null(back.records);
	/* another plerig's (another version): refused, never misread */
	memcpy(b.data + 8, "9.9.9", 6);
	ck_assert_int_eq(l1_blob_read_result(b.data, b.len, &back, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "comes from another plerig (9.9.9"));
	/* a variant where a result is expected */
	struct l1_blob v;
	ck_assert_int_eq(l1_blob_variant(&r.variant, &v, err, sizeof(err)), 0);
	ck_assert_int_eq(l1_blob_read_result(v.data, v.len, &back, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "a variant where a result was expected");
	l1_blob_free(&v);
	l1_blob_free(&b);
	variant_result_free(&r);
}
END_TEST

START_TEST(test_a_state_lists_plugins_in_the_order_bochs_started_them)
{
	/* Bochs 2.7's saved line, and its devices as booting started them (its log) */
	const char *line = "plugin_ctrl: voodoo=false, biosdev=true, usb_uhci=true, "
			   "busmouse=false, iodebug=true, serial=true, unmapped=true";
	const char *const order[] = {"pci",    "cmos",	   "biosdev", "iodebug",
				     "serial", "unmapped", "usb",     "usb_uhci"};
	char out[512];
	ck_assert_int_eq(l1_state_plugin_order(line, order, 8, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "plugin_ctrl: biosdev=true, iodebug=true, serial=true, "
			      "unmapped=true, usb_uhci=true, voodoo=false, busmouse=false");
	/* none started: as it was */
	ck_assert_int_eq(l1_state_plugin_order(line, order, 0, out, sizeof(out)), 0);
	ck_assert_str_eq(out, line);
	/* not that line, or no room: refused, never cut */
	ck_assert_int_eq(l1_state_plugin_order("com1: enabled=true", order, 8, out, sizeof(out)),
			 -1);
	ck_assert_int_eq(l1_state_plugin_order(line, order, 8, out, 40), -1);
}
END_TEST

START_TEST(test_gunzip_refuses_what_is_not_gzip_or_too_big)
{
	uint8_t *gz, *out;
	size_t n, m;
	char err[ERRBUF_SIZE];
	char big[4096];
	memset(big, 'a', sizeof(big));
	ck_assert_int_eq(l1_gzip(big, sizeof(big), &gz, &n, err, sizeof(err)), 0);
	ck_assert_int_eq(l1_gunzip(gz, n, sizeof(big), &out, &m, err, sizeof(err)), 0);
	ck_assert_uint_eq(m, sizeof(big));
	free(out);
	ck_assert_int_eq(l1_gunzip(gz, n, 100, &out, &m, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "gunzip: more than 100 bytes");
	ck_assert_int_eq(l1_gunzip(gz, n / 2, sizeof(big), &out, &m, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "gunzip: the data ends early");
	free(gz);
	ck_assert_int_eq(l1_gunzip((const uint8_t *)"plain", 5, 100, &out, &m, err, sizeof(err)),
			 -1);
}
END_TEST

static Suite *l1_protocol_suite(void)
{
	Suite *s = suite_create("l1_protocol");
	TCase *t = tcase_create("l1_protocol");
	tcase_add_test(t, test_a_frame_comes_back_whole);
	tcase_add_test(t, test_lines_of_others_are_skipped_and_damage_is_caught);
	tcase_add_test(t, test_files_through_the_side_channel);
	tcase_add_test(t, test_a_request_line_round_trips);
	tcase_add_test(t, test_an_answer_is_named_and_read_by_one_rule);
	tcase_add_test(t, test_a_result_travels_whole);
	tcase_add_test(t, test_gunzip_refuses_what_is_not_gzip_or_too_big);
	tcase_add_test(t, test_a_state_lists_plugins_in_the_order_bochs_started_them);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(l1_protocol_suite)
