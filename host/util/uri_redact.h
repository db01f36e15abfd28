/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A URI as plerig may show it (results, tables, errors): the user of
 * user[:password]@host and the values of query parameters that name a key,
 * a password or a file of credentials become three asterisks: the user
 * and keyfile of qemu+ssh://root@hostA/system?keyfile=/k&no_tty=1 are
 * hidden, no_tty=1 is shown.
 */
#ifndef PLERIG_URI_REDACT_H
#define PLERIG_URI_REDACT_H

#include <stddef.h>

/* Into @out (always terminated; cut where short); a text that is no URI is copied. */
void uri_redact(const char *uri, char *out, size_t len);

/*
 * A message about @uri (libvirt's, which may quote ssh: "Identity file
 * /k not accessible") on one line: what uri_redact hides of @uri hidden
 * wherever it appears in @text, line breaks made "; ".
 */
void uri_redact_text(const char *uri, const char *text, char *out, size_t len);

#endif
