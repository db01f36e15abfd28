// SPDX-License-Identifier: GPL-2.0
/*
 * The printable rule (util/printable.h): what is shown as itself, what as
 * \xHH; printable_printf's arguments escaped and its format not; the
 * HTML writer's entities on top of the rule (output/html_text.h).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "model/outcome.h"
#include "output/html_text.h"
#include "support/check_main.h"
#include "util/errbuf.h"
#include "util/printable.h"

/* What @print wrote, in a string to free. */
#define CAPTURE(text, print)                                                                       \
	do {                                                                                       \
		size_t len_ = 0;                                                                   \
		FILE *f = open_memstream(&(text), &len_);                                          \
		ck_assert_ptr_nonnull(f);                                                          \
		print;                                                                             \
		ck_assert_int_eq(fclose(f), 0);                                                    \
	} while (0)

static char *rule(const char *s)
{
	char *text = NULL;
	CAPTURE(text, printable_fputs(f, s));
	return text;
}

static void assert_rule(const char *in, const char *want)
{
	char *got = rule(in);
	ck_assert_str_eq(got, want);
	free(got);
	char copy[256];
	ck_assert(printable_copy(copy, sizeof(copy), in));
	ck_assert_str_eq(copy, want);
	ck_assert_int_eq(printable_plain(in), !strcmp(in, want));
	char *dup = printable_dup(in);
	ck_assert_str_eq(dup, want);
	free(dup);
}

START_TEST(test_shown_as_themselves)
{
	assert_rule("host-1.example", "host-1.example");
	assert_rule("Intel(R) Xeon(R) \u00b1 \u2026 \xe6\x97\xa5",
		    "Intel(R) Xeon(R) \u00b1 \u2026 \xe6\x97\xa5");
	assert_rule("a\\x1b", "a\\x1b"); /* the backslash as it is: the rule twice is the rule */
}
END_TEST

START_TEST(test_controls_escaped)
{
	assert_rule("a\x1b[31mred", "a\\x1b[31mred"); /* ESC */
	assert_rule("bell\a", "bell\\x07");
	assert_rule("two\nlines\r", "two\\x0alines\\x0d");
	assert_rule("tab\tcolumn", "tab\\x09column");
	assert_rule("del\x7f", "del\\x7f");
	assert_rule("csi\xc2\x9b"
		    "2J",
		    "csi\\xc2\\x9b2J"); /* U+009B, C1 CSI */
	assert_rule("nel\xc2\x85", "nel\\xc2\\x85");
	assert_rule("ls\xe2\x80\xa8", "ls\\xe2\\x80\\xa8"); /* U+2028 */
	assert_rule("rlo\xe2\x80\xae"
		    "cba",
		    "rlo\\xe2\\x80\\xaecba");			      /* U+202E */
	assert_rule("isolate\xe2\x81\xa6", "isolate\\xe2\\x81\\xa6"); /* U+2066 */
}
END_TEST

START_TEST(test_invalid_utf8_escaped)
{
	assert_rule("8bit csi \x9b", "8bit csi \\x9b");		 /* a lone C1 byte */
	assert_rule("cut \xe2\x80", "cut \\xe2\\x80");		 /* a sequence cut short */
	assert_rule("overlong \xc0\xaf", "overlong \\xc0\\xaf"); /* '/' in two bytes */
	assert_rule("surrogate \xed\xa0\x80", "surrogate \\xed\\xa0\\x80");
	assert_rule("\xff\xfe", "\\xff\\xfe");
}
END_TEST

START_TEST(test_copy_cut_at_an_escape)
{
	char buf[8];
	ck_assert(!printable_copy(buf, sizeof(buf), "ab\x1b\x1b"));
	ck_assert_str_eq(buf, "ab\\x1b"); /* never half an escape */
}
END_TEST

/*
 * A label the rule made already ("\\x1b" as four characters: a host name,
 * a results file's string), cut to a field's width: never in an escape.
 */
START_TEST(test_a_cut_never_ends_in_half_an_escape)
{
	static const char made[] = "ab\\x1bcd";
	for (size_t max = 2; max < 6; max++)
		ck_assert_uint_eq(printable_cut(made, max), 2);
	ck_assert_uint_eq(printable_cut(made, 6), 6);
	ck_assert_uint_eq(printable_cut(made, 100), strlen(made));
	/* a backslash that starts no escape is a character like any */
	ck_assert_uint_eq(printable_cut("a\\xz\\x4", 3), 3);
	ck_assert_uint_eq(printable_cut("a\\xz\\x4", 7), 7);
	ck_assert_uint_eq(printable_cut("\xe6\x97\xa5z", 2), 0); /* nor half a character */
	char *text = NULL;
	CAPTURE(text, printable_printf(f, "[%.4s|%.6s]", made, made));
	ck_assert_str_eq(text, "[ab|ab\\x1b]");
	free(text);
	/* hosts sharing a name that the rule made: labelled name(N), cut whole */
	struct run_host hosts[2];
	memset(hosts, 0, sizeof(hosts));
	for (unsigned i = 0; i < 2; i++)
		snprintf(hosts[i].info.name, sizeof(hosts[i].info.name), "%048d\\x1b[31m", 0);
	run_hosts_label(hosts, 2);
	ck_assert_str_eq(hosts[1].label, "000000000000000000000000000000000000000000000000(2)");
	snprintf(hosts[0].info.name, sizeof(hosts[0].info.name), "%061d\\x1b", 1);
	run_hosts_label(hosts, 2);
	ck_assert_str_eq(hosts[0].label,
			 "0000000000000000000000000000000000000000000000000000000000001");
}
END_TEST

START_TEST(test_printf_escapes_arguments_only)
{
	char *text = NULL;
	CAPTURE(text, printable_printf(f, "%s: %d%%\t%c|%5.1f|%-6s|%6s|%.3s\n", "h\x1b]0;x\a", -3,
				       '\x1b', 2.25, "a\n", "b",
				       "\xc2\x9b"
				       "abc"));
	ck_assert_str_eq(text, "h\\x1b]0;x\\x07: -3%\t\\x1b|  2.2|a\\x0a |     b|\\xc2\\x9ba\n");
	free(text);
}
END_TEST

START_TEST(test_printf_numbers_and_stars)
{
	char *text = NULL;
	CAPTURE(text,
		printable_printf(f, "%zu %llu %lx %*d|%-*s|%.*s|%+.2e", (size_t)7, 123456789012ULL,
				 255UL, 4, 5, 3, "x", 2, "\xe6\x97\xa5z", -1.5));
	/* a precision that would split a character cuts before it */
	ck_assert_str_eq(text, "7 123456789012 ff    5|x  ||-1.50e+00");
	free(text);
	CAPTURE(text, printable_printf(f, "[%*s]", -4, "ab"));
	ck_assert_str_eq(text, "[ab  ]");
	free(text);
}
END_TEST

START_TEST(test_errbuf_messages_by_the_rule)
{
	char err[ERRBUF_SIZE];
	errbuf_printf(err, sizeof(err), "connecting to %s: %s", "qemu+ssh://h\x1b[2J/system",
		      "refused\nplerig: all good");
	ck_assert_str_eq(err,
			 "connecting to qemu+ssh://h\\x1b[2J/system: refused\\x0aplerig: all good");
	char again[ERRBUF_SIZE];
	errbuf_printf(again, sizeof(again), "%s", err);
	ck_assert_str_eq(again, err);
}
END_TEST

/* The rule before the redaction: a BEL inside a password must not end the URI there. */
START_TEST(test_rule_then_redaction)
{
	char err[ERRBUF_SIZE];
	errbuf_printf(err, sizeof(err), "connecting to %s: refused",
		      "qemu+ssh://root:hunter\a2@h/system?no_tty=1\a&keyfile=/secret");
	ck_assert_msg(!strstr(err, "hunter") && !strstr(err, "/secret"), "%s", err);
	ck_assert_msg(strstr(err, "@h/system"), "%s", err);
	char *text = NULL;
	CAPTURE(text,
		html_printf(f, "<td>%s</td>", "qemu+ssh://h/system?no_tty=1\a&keyfile=/secret"));
	ck_assert_msg(!strstr(text, "/secret") && strstr(text, "h/system"), "%s", text);
	free(text);
}
END_TEST

START_TEST(test_html_entities_on_the_rule)
{
	char *text = NULL;
	CAPTURE(text, html_printf(f, "<td class=\"%s\">%s</td>", "x\" onclick=\"y",
				  "<script>alert('1')</script>&]]>\x1b\xc2\x9b"));
	ck_assert_str_eq(text,
			 "<td class=\"x&quot; onclick=&quot;y\">&lt;script&gt;alert(&#39;1&#39;)"
			 "&lt;/script&gt;&amp;]]&gt;\\x1b\\xc2\\x9b</td>");
	free(text);
	CAPTURE(text, html_escape(f, "a<b"));
	ck_assert_str_eq(text, "a&lt;b");
	free(text);
}
END_TEST

static Suite *printable_suite(void)
{
	Suite *s = suite_create("printable");
	TCase *t = tcase_create("printable");

	tcase_add_test(t, test_shown_as_themselves);
	tcase_add_test(t, test_controls_escaped);
	tcase_add_test(t, test_invalid_utf8_escaped);
	tcase_add_test(t, test_copy_cut_at_an_escape);
	tcase_add_test(t, test_a_cut_never_ends_in_half_an_escape);
	tcase_add_test(t, test_printf_escapes_arguments_only);
	tcase_add_test(t, test_printf_numbers_and_stars);
	tcase_add_test(t, test_errbuf_messages_by_the_rule);
	tcase_add_test(t, test_rule_then_redaction);
	tcase_add_test(t, test_html_entities_on_the_rule);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(printable_suite)
