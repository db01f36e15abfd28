// SPDX-License-Identifier: GPL-2.0
/* Credentials in a libvirt URI never reach plerig's outputs. */
#include <check.h>
#include <string.h>

#include "support/check_main.h"
#include "util/uri_redact.h"

static const char *redact(const char *uri)
{
	static char out[512];
	uri_redact(uri, out, sizeof(out));
	return out;
}

START_TEST(user_and_key_parameters_are_hidden)
{
	ck_assert_str_eq(redact("qemu+ssh://root@127.0.0.1:2222/system?keyfile=/k/id&no_tty=1&"
				"no_verify=1&command=/x/ssh"),
			 "qemu+ssh://***@127.0.0.1:2222/system?keyfile=***&no_tty=1&no_verify=1&"
			 "command=***");
	ck_assert_str_eq(redact("qemu+tls://u:secret@h/system?pkipath=/p"),
			 "qemu+tls://***@h/system?pkipath=***");
	ck_assert_str_eq(redact("qemu+libssh2://h/system?known_hosts=/kh&sshauth=privkey"),
			 "qemu+libssh2://h/system?known_hosts=***&sshauth=privkey");
}
END_TEST

START_TEST(what_holds_no_credentials_is_unchanged)
{
	ck_assert_str_eq(redact("qemu:///system"), "qemu:///system");
	ck_assert_str_eq(redact("qemu:///embed?root=/a/b"), "qemu:///embed?root=/a/b");
	ck_assert_str_eq(redact("--json"), "--json");
	ck_assert_str_eq(redact("/tmp/x://y"), "/tmp/x://y");
	ck_assert_str_eq(redact("qemu+tcp://h/system?a=1&"), "qemu+tcp://h/system?a=1&");
}
END_TEST

START_TEST(a_short_buffer_is_cut_and_terminated)
{
	char out[12];
	uri_redact("qemu+ssh://root@h/system?keyfile=/k", out, sizeof(out));
	ck_assert_str_eq(out, "qemu+ssh://");
	uri_redact("x", out, 0); /* nothing written */
}
END_TEST

START_TEST(a_message_loses_the_uris_secrets_and_its_line_breaks)
{
	char out[256];
	uri_redact_text("qemu+ssh://alice@h:1/system?keyfile=/k/id&no_tty=1",
			"Cannot recv data: Warning: Identity file /k/id not accessible.\n"
			"ssh: alice@h: Permission denied (publickey).\n",
			out, sizeof(out));
	ck_assert_str_eq(out, "Cannot recv data: Warning: Identity file *** not accessible.; "
			      "ssh: ***@h: Permission denied (publickey).");
	uri_redact_text("qemu:///system", "plain", out, sizeof(out));
	ck_assert_str_eq(out, "plain");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("uri_redact");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, user_and_key_parameters_are_hidden);
	tcase_add_test(tc, what_holds_no_credentials_is_unchanged);
	tcase_add_test(tc, a_short_buffer_is_cut_and_terminated);
	tcase_add_test(tc, a_message_loses_the_uris_secrets_and_its_line_breaks);
	suite_add_tcase(s, tc);
	return check_run(s, CK_FORK_GETENV);
}
