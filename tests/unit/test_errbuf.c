// SPDX-License-Identifier: GPL-2.0
/* The error convention: what errbuf_printf and errbuf_errno write and return. */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "support/check_main.h"
#include "util/errbuf.h"

START_TEST(test_printf_formats_and_fails)
{
	char err[ERRBUF_SIZE] = "";

	ck_assert_int_eq(errbuf_printf(err, sizeof(err), "opening %s: %s", "/x", "gone"), -1);
	ck_assert_str_eq(err, "opening /x: gone");
}
END_TEST

START_TEST(test_errno_returns_its_value)
{
	char err[ERRBUF_SIZE] = "";

	ck_assert_int_eq(errbuf_errno(err, sizeof(err), -ENOENT, "no %s", "module"), -ENOENT);
	ck_assert_str_eq(err, "no module");
}
END_TEST

/* whichever layer quoted a URI (getopt's "unknown option", a suite's line, libvirt) */
START_TEST(test_credentials_never_in_a_message)
{
	char err[ERRBUF_SIZE] = "", small[24];

	errbuf_printf(err, sizeof(err), "unknown option '%s' (see --help)",
		      "--conect=test:///default,qemu+ssh://u:pw@h/system?no_tty=1;key%66ile=/S");
	ck_assert_str_eq(err, "unknown option '--conect=test:///default,qemu+ssh://***@h/system?"
			      "no_tty=1;key%66ile=*** (see --help)");
	ck_assert_int_eq(errbuf_errno(small, sizeof(small), -EIO, "%s", "qemu+ssh://u:pw@h/s"),
			 -EIO);
	ck_assert_str_eq(small, "qemu+ssh://***@h/s");
	/* redacted whole, then cut: not u:12, a password's start read as a port */
	errbuf_printf(small, 18, "%s", "x qemu+ssh://u:1234@h");
	ck_assert_str_eq(small, "x qemu+ssh://***@");
}
END_TEST

START_TEST(test_no_buffer)
{
	ck_assert_int_eq(errbuf_printf(NULL, 64, "x"), -1);
	ck_assert_int_eq(errbuf_errno(NULL, 0, -EIO, "x"), -EIO);
}
END_TEST

START_TEST(test_cut_not_overflowed)
{
	char err[8];

	memset(err, 'x', sizeof(err));
	errbuf_printf(err, 4, "%s", "abcdef");
	ck_assert_str_eq(err, "abc");
	ck_assert_int_eq(err[4], 'x');
}
END_TEST

START_TEST(test_size_holds_a_path)
{
	char path[PATH_MAX], err[ERRBUF_SIZE];

	memset(path, 'p', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	errbuf_printf(err, sizeof(err), "opening %s: %s", path, strerror(EACCES));
	ck_assert_uint_eq(strlen(err),
			  strlen("opening : ") + strlen(path) + strlen(strerror(EACCES)));
}
END_TEST

static Suite *errbuf_suite(void)
{
	Suite *s = suite_create("errbuf");
	TCase *t = tcase_create("errbuf");

	tcase_add_test(t, test_printf_formats_and_fails);
	tcase_add_test(t, test_errno_returns_its_value);
	tcase_add_test(t, test_credentials_never_in_a_message);
	tcase_add_test(t, test_no_buffer);
	tcase_add_test(t, test_cut_not_overflowed);
	tcase_add_test(t, test_size_holds_a_path);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(errbuf_suite)
