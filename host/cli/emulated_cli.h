/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options of the emulated host (--kernel, --modules, --cache-dir) that
 * every command taking --connect emulated has, and their one check.
 */
#ifndef PLERIG_EMULATED_CLI_H
#define PLERIG_EMULATED_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/option_table.h"
#include "util/errbuf.h"

/* The entries of a table whose struct @type has kernel_path, modules_path, cache_dir. */
// clang-format off
#define EMULATED_CLI_ENTRIES(type)                                                              \
	{.name = "kernel",                                                                      \
	 .metavar = "FILE",                                                                     \
	 OPT_PATH_FIELD(type, kernel_path),                                                     \
	 .def = "the kernel Debian's linux-image-amd64 depends on",                             \
	 .help = "--connect emulated: L1's kernel, a linux-image *.deb or a bzImage (then "     \
		 "--modules, unless KVM is built in)"},                                         \
	{.name = "modules",                                                                     \
	 .metavar = "DIR",                                                                      \
	 OPT_PATH_FIELD(type, modules_path),                                                    \
	 .help = "--connect emulated with a bzImage: its modules (make modules_install's "      \
		 "INSTALL_MOD_PATH)"},                                                          \
	{.name = "cache-dir",                                                                   \
	 .metavar = "DIR",                                                                      \
	 OPT_PATH_FIELD(type, cache_dir),                                                       \
	 .def = "~/.cache/plerig",                                                              \
	 .help = "--connect emulated: where its kernels and L1 media are kept"}
// clang-format on

/* They go with --connect emulated (@emulated), and --modules with --kernel. 0, or -1 with @err. */
static inline int emulated_cli_check(bool emulated, const char *kernel_path,
				     const char *modules_path, const char *cache_dir, char *err,
				     size_t errlen)
{
	if ((kernel_path || modules_path || cache_dir) && !emulated)
		return errbuf_printf(err, errlen, "%s: only for --connect emulated",
				     kernel_path    ? "--kernel"
				     : modules_path ? "--modules"
						    : "--cache-dir");
	if (modules_path && !kernel_path)
		return errbuf_printf(err, errlen,
				     "--modules: the modules of which kernel? (give --kernel "
				     "bzImage with them)");
	return 0;
}

#endif
