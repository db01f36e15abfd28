/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libvirt's own log (CACHE/libvirt.log), written by plerig through the one
 * redaction rule (util/uri_redact.h) and the printable rule: libvirt logs
 * its errors as they are, and with a remote URI those quote ssh ("Identity
 * file /k not accessible"). So libvirt writes into a file of plerig's that
 * has no name (created in the checked cache directory and unlinked at
 * once, reached by libvirt through /proc/PID/fd): what it holds is gone
 * with plerig's process, even after kill -9. plerig copies it into
 * libvirt.log line by line, with every connected URI's secrets hidden,
 * whenever its last libvirt connection has closed (then no libvirt thread
 * runs or forks: no thread of plerig's copies beside libvirt's fork for
 * ssh) and at exit. Unless LIBVIRT_LOG_OUTPUTS is set already: then the
 * user chose where it goes.
 */
#ifndef PLERIG_LV_LOG_H
#define PLERIG_LV_LOG_H

/*
 * Send libvirt's log towards @cache_dir/libvirt.log (NULL: nowhere chosen),
 * once, before libvirt's first connection reads where it goes.
 */
void lv_log_choose(const char *cache_dir);

/* What @uri holds that redaction hides never reaches the log: call before connecting. */
void lv_log_hide(const char *uri);

/*
 * Copy what libvirt wrote since the last copy into libvirt.log (whole
 * lines; every line when @all). Call only while no libvirt connection is
 * open or opening.
 */
void lv_log_copy(int all);

#endif
