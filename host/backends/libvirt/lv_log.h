/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libvirt's own log (CACHE/libvirt.log), written by plerig through the one
 * redaction rule: libvirt logs its errors as they are, and with a remote
 * URI those quote ssh ("Identity file /k not accessible"), so libvirt
 * writes into a pipe and a thread of plerig's writes each line to the file
 * with every URI's secrets hidden (util/uri_redact.h) and the printable
 * rule applied. Unless LIBVIRT_LOG_OUTPUTS is set already: then the user
 * chose where it goes.
 */
#ifndef PLERIG_LV_LOG_H
#define PLERIG_LV_LOG_H

/*
 * Send libvirt's log to @cache_dir/libvirt.log (NULL: nowhere chosen),
 * once, before libvirt's first connection reads where it goes.
 */
void lv_log_choose(const char *cache_dir);

/* What @uri holds that redaction hides never reaches the log: call before connecting. */
void lv_log_hide(const char *uri);

#endif
