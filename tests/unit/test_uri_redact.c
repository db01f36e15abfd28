// SPDX-License-Identifier: GPL-2.0
/* Credentials in a libvirt URI never reach plerig's outputs. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "support/check_main.h"
#include "util/uri_redact.h"

static const char *redact(const char *uri)
{
	static char out[1024];
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
	ck_assert_str_eq(redact("test:///x@y"), "test:///x@y");
	ck_assert_str_eq(redact("ple_window=16384 a?b c:d"), "ple_window=16384 a?b c:d");
	ck_assert_str_eq(redact(""), "");
}
END_TEST

/* libvirt splits the query at '&' and at ';' (viruri.c virURIParseParams) */
START_TEST(both_separators)
{
	ck_assert_str_eq(redact("qemu+ssh://x/system?no_tty=1;keyfile=/SECRET"),
			 "qemu+ssh://x/system?no_tty=1;keyfile=***");
	ck_assert_str_eq(redact("qemu+ssh://x/system?keyfile=/SECRET;no_tty=1&pkipath=/p;x=1"),
			 "qemu+ssh://x/system?keyfile=***;no_tty=1&pkipath=***;x=1");
	ck_assert_str_eq(redact("qemu+ssh://x/system?;;keyfile=/S&&keyfile=/T;"),
			 "qemu+ssh://x/system?;;keyfile=***&&keyfile=***;");
}
END_TEST

/* ...and percent-decodes each name, which it compares in any case */
START_TEST(encoded_names)
{
	ck_assert_str_eq(redact("qemu+ssh://x/system?key%66ile=/SECRET"),
			 "qemu+ssh://x/system?key%66ile=***");
	ck_assert_str_eq(redact("qemu+ssh://x/system?%6B%65%79%46ILE=/S&KnOwN_HoStS=/kh"),
			 "qemu+ssh://x/system?%6B%65%79%46ILE=***&KnOwN_HoStS=***");
	ck_assert_str_eq(redact("qemu+ssh://x/system?no_tty=1;key%66ile=%2FSECRET"),
			 "qemu+ssh://x/system?no_tty=1;key%66ile=***");
	/* a '%' that starts no escape is itself */
	ck_assert_str_eq(redact("qemu+ssh://x/s?a%=1&b=%4&c=%zz"),
			 "qemu+ssh://x/s?a%=1&b=%4&c=%zz");
}
END_TEST

START_TEST(credential_like_names)
{
	ck_assert_str_eq(
	    redact("esx://h/?password=a&passphrase=b&api_token=c&PWD=d&client_secret=e&"
		   "cred=f&authfile=g&netcat=h&command=i&sshauth=privkey&no_verify=1&"
		   "known_hosts_verify=normal&mode=auto&socket=/run/s"),
	    "esx://h/?password=***&passphrase=***&api_token=***&PWD=***&client_secret=***&"
	    "cred=***&authfile=***&netcat=***&command=***&sshauth=privkey&no_verify=1&"
	    "known_hosts_verify=normal&mode=auto&socket=/run/s");
	/* no value, nothing to hide; "=value" libvirt ignores */
	ck_assert_str_eq(redact("qemu+ssh://h/s?keyfile&keyfile=&=x"),
			 "qemu+ssh://h/s?keyfile&keyfile=&=x");
}
END_TEST

/* name= is the remote end's URI, proxy= one of its own: what they hide is hidden */
START_TEST(a_uri_inside_a_value)
{
	ck_assert_str_eq(
	    redact("qemu+ssh://h/?name=qemu%2Bssh%3A%2F%2Fu%3Ap%40g%2Fsystem&no_tty=1"),
	    "qemu+ssh://h/?name=***&no_tty=1");
	ck_assert_str_eq(redact("esx://h/?proxy=http://u:p@proxy:3128"), "esx://h/?proxy=***");
	ck_assert_str_eq(redact("qemu+ssh://h/?name=qemu%3A%2F%2F%2Fsystem"),
			 "qemu+ssh://h/?name=qemu%3A%2F%2F%2Fsystem");
	/* nested deeper than the rule reads: hidden unread */
	ck_assert_str_eq(redact("a://h/?v=%3Fv%3D%253Fv%253D%25253Fv%25253D%2525253F"),
			 "a://h/?v=***");
}
END_TEST

/* A --connect list, an argument, a suite's options: every URI in it. */
START_TEST(every_uri_of_a_text)
{
	ck_assert_str_eq(
	    redact("test:///default,qemu+ssh://user:pass@x/system?no_tty=1;key%66ile=/SECRET"),
	    "test:///default,qemu+ssh://***@x/system?no_tty=1;key%66ile=***");
	ck_assert_str_eq(redact("qemu+ssh://a:1@x/s,qemu+ssh://b:2@y/s?keyfile=/k,embedded"),
			 "qemu+ssh://***@x/s,qemu+ssh://***@y/s?keyfile=***,embedded");
	ck_assert_str_eq(redact("--connect=qemu+ssh://u:p@h/system?keyfile=/k"),
			 "--connect=qemu+ssh://***@h/system?keyfile=***");
	ck_assert_str_eq(
	    redact("--backend libvirt --connect qemu+tls://u:pw@h/system?pkipath=/p "
		   "--vcpus 2"),
	    "--backend libvirt --connect qemu+tls://***@h/system?pkipath=*** --vcpus 2");
	ck_assert_str_eq(redact("connecting to 'qemu+ssh://u:p@h/s?keyfile=/k': failed\n"
				"\"qemu+ssh://v@h/s\"\tqemu+ssh:?keyfile=/z"),
			 /* a word ends at white space: the quote is hidden with the value */
			 "connecting to 'qemu+ssh://***@h/s?keyfile=***: failed\n"
			 "\"qemu+ssh://***@h/s\"\tqemu+ssh:?keyfile=***");
}
END_TEST

/* libxml2 ends the userinfo at the last '@'; a raw '/', '?' or '#' in a password makes no URI */
START_TEST(odd_userinfo)
{
	ck_assert_str_eq(redact("qemu+ssh://u:p@ss@h/system"), "qemu+ssh://***@h/system");
	ck_assert_str_eq(redact("qemu+ssh://u:p#w@h/system"), "qemu+ssh://***");
	ck_assert_str_eq(redact("qemu+ssh://u:pa/ss@h/system?x=1"), "qemu+ssh://***");
	ck_assert_str_eq(redact("qemu+ssh://u:p?x@h/system"), "qemu+ssh://***");
	ck_assert_str_eq(redact("qemu+ssh://u/x@h/system"), "qemu+ssh://***");
	ck_assert_str_eq(redact("qemu+ssh://root@[::1]:22/system"),
			 "qemu+ssh://***@[::1]:22/system");
	ck_assert_str_eq(redact("qemu+ssh://[::1]:22/system"), "qemu+ssh://[::1]:22/system");
	ck_assert_str_eq(redact("qemu+ssh://h:2222/system?root=/a@b"),
			 "qemu+ssh://h:2222/system?root=/a@b");
	ck_assert_str_eq(redact("qemu+ssh://@h/system"), "qemu+ssh://@h/system");
}
END_TEST

/* a ' ' or ',' in a password ends the word, not the userinfo: it runs on to its '@' */
START_TEST(a_password_with_a_space_or_a_comma)
{
	ck_assert_str_eq(redact("qemu+ssh://u:pa ss@h/system?keyfile=/k"),
			 "qemu+ssh://***@h/system?keyfile=***");
	ck_assert_str_eq(redact("qemu+ssh://u:pa,ss@h/system"), "qemu+ssh://***@h/system");
	ck_assert_str_eq(redact("--connect test:///default,qemu+ssh://u:a b,c d@h/s --vcpus 2"),
			 "--connect test:///default,qemu+ssh://***@h/s --vcpus 2");
	ck_assert_str_eq(redact("connecting to qemu+ssh://al ice:p w@h:22/system: failed"),
			 "connecting to qemu+ssh://***@h:22/system: failed");
	/* a list's next URI, a host's port or the sentence after it is no userinfo */
	ck_assert_str_eq(redact("qemu+ssh://h1,qemu+ssh://u@h2/s"),
			 "qemu+ssh://h1,qemu+ssh://***@h2/s");
	ck_assert_str_eq(redact("qemu+ssh://h:22 is down\nssh: a@b"),
			 "qemu+ssh://h:22 is down\nssh: a@b");
	char out[256];
	uri_redact_text("qemu+ssh://u:p w,x@h/system", "ssh: u:p w,x@h: denied", out, sizeof(out));
	ck_assert_str_eq(out, "ssh: ***@h: denied");
}
END_TEST

START_TEST(the_whole_text_fits_a_copy_of_its_own)
{
	char in[4096] = "qemu+ssh://a@h/s?", expect[8192] = "qemu+ssh://***@h/s?";
	for (int i = 0; i < 300; i++) {
		strcat(in, "keyfile=1;");
		strcat(expect, "keyfile=***;");
	}
	char *s = uri_redact_dup(in);
	ck_assert_ptr_nonnull(s);
	ck_assert(!strcmp(s, expect)); /* too long for check's message */
	free(s);
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
	/* ssh is given the keyfile decoded; a URI the message quotes is hidden by the rule */
	uri_redact_text("qemu+ssh://u:pw@h/system?no_tty=1;key%66ile=%2Fk%2Fid%20x",
			"Identity file /k/id x not accessible\nu:pw@h: denied\n"
			"qemu+ssh://u:pw@h/system?no_tty=1;key%66ile=%2Fk%2Fid%20x\n",
			out, sizeof(out));
	ck_assert_str_eq(out, "Identity file *** not accessible; ***@h: denied; "
			      "qemu+ssh://***@h/system?no_tty=1;key%66ile=***");
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
	tcase_add_test(tc, both_separators);
	tcase_add_test(tc, encoded_names);
	tcase_add_test(tc, credential_like_names);
	tcase_add_test(tc, a_uri_inside_a_value);
	tcase_add_test(tc, every_uri_of_a_text);
	tcase_add_test(tc, odd_userinfo);
	tcase_add_test(tc, a_password_with_a_space_or_a_comma);
	tcase_add_test(tc, the_whole_text_fits_a_copy_of_its_own);
	tcase_add_test(tc, a_short_buffer_is_cut_and_terminated);
	tcase_add_test(tc, a_message_loses_the_uris_secrets_and_its_line_breaks);
	suite_add_tcase(s, tc);
	return check_run(s, CK_FORK_GETENV);
}
