/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What of a libvirt URI plerig may show (results, tables, reports, TAP,
 * JUnit, errors, `check --list`): one rule, applied to any text, so that a
 * URI is hidden alike alone, as an item of a --connect list, inside an
 * argument (--connect=URI) or a suite's options, or quoted in a message.
 *
 * A URI is any word (up to white space, a comma, a double quote or a
 * control character: a --connect list's items are separated by commas,
 * which a URI writes %2C; less a colon that ends it, "URI: why") with
 * "://" or a '?' in it. Hidden, each as "***":
 *  - its userinfo, user[:password] (user@hostA shows as ***@hostA), also
 *    where a ' ' or ',' in it ended the word: "u:p w@h" and "u:p,w@h" run
 *    on to their last '@' before a '/', '?', '#', '"' or control character
 *    (what follows may be hidden too, never less);
 *  - a whole URI whose authority is no host[:port] (a password with a raw
 *    '/', '?' or '#' in it: qemu+ssh://u:p#w@h keeps only its scheme);
 *  - the value of every query parameter whose name, percent-decoded as
 *    libvirt decodes it and in any case, is one libvirt reads a secret or
 *    the path of one from (keyfile, pkipath, known_hosts, authfile, and
 *    command and netcat, which run) or has pass, pwd, secret, token, key or
 *    cred in it;
 *  - the value of any other parameter that, percent-decoded, hides
 *    something by this rule itself (name=qemu%2Bssh%3A%2F%2Fu%3Ap%40h...).
 * Parameters are separated by '&' and by ';' (libvirt takes either:
 * src/util/viruri.c virURIParseParams); the rule splits at both always, so
 * it hides at least what libvirt would read. Everything else is copied.
 */
#ifndef PLERIG_URI_REDACT_H
#define PLERIG_URI_REDACT_H

#include <stddef.h>

/* @text by the rule into @out (always terminated; cut where short). */
void uri_redact(const char *text, char *out, size_t len);

/* @text by the rule, in memory of its own (free it); NULL when out of memory. */
char *uri_redact_dup(const char *text);

/*
 * @s (a buffer of @len bytes) by the rule, in place, cut to fit. Out of
 * memory, @s is cut before its first word that may hold a URI.
 */
void uri_redact_in_place(char *s, size_t len);

/*
 * A message about @uri (libvirt's, which may quote ssh: "Identity file
 * /k not accessible") on one line: the message by the rule, then what the
 * rule hides of @uri hidden wherever it still appears (as written in @uri
 * and percent-decoded; a user only as "user@", not every word "root"),
 * line breaks made "; ".
 */
void uri_redact_text(const char *uri, const char *text, char *out, size_t len);

#endif
