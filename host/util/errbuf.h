/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The error convention of plerig's modules: a caller's (char *err, size_t
 * errlen) buffer receives one line saying what failed and how to fix it.
 */
#ifndef PLERIG_ERRBUF_H
#define PLERIG_ERRBUF_H

#include <stddef.h>

/* Format into @err (if there is one); always returns -1, for `return errbuf_printf(...)`. */
int errbuf_printf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
