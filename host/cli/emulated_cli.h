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
#include "model/connect_list.h"
#include "ple/module_params.h"
#include "util/cache_dir.h"
#include "util/errbuf.h"
#include "util/uri_redact.h"

/* --module-params: checked as text here (exit 2), each name in L1 against its modules. */
static inline int emulated_cli_module_params(const struct opt_entry *e, const char *value,
					     void *target, char *err, size_t errlen)
{
	struct module_params p;
	char why[ERRBUF_SIZE];
	if (module_params_parse(value, &p, why, sizeof(why)))
		return errbuf_printf(err, errlen, "--%s: %s", e->name, why);
	*(const char **)((char *)target + e->off) = value;
	return 0;
}

#define EMULATED_MODULE_PARAMS_HELP                                                                \
	"--connect emulated: more parameters for L1's KVM modules, after the vendor's stock "      \
	"ones (images/l1/vendors.cfg): NAME=VALUE of kvm_intel or kvm_amd, kvm.NAME=VALUE of "     \
	"kvm.ko, separated by blanks; L1 reloads the modules with them once it is up (its "        \
	"saved state stays stock), each name held to the module's own parameters, and the "        \
	"results and baselines record them (host.module_params)"

/*
 * The entries of a table whose struct @type has kernel_path, modules_path,
 * cache_dir and module_params.
 */
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
	 .help = "--connect emulated: where its kernels and L1 media are kept"},                 \
	{.name = "module-params",                                                               \
	 .metavar = "'NAME=VALUE ...'",                                                         \
	 .kind = OPT_CUSTOM,                                                                    \
	 OPT_OFF(type, module_params, const char *),                                            \
	 .parse = emulated_cli_module_params,                                                   \
	 .help = EMULATED_MODULE_PARAMS_HELP}
// clang-format on

/* They go with --connect emulated (@emulated), and --modules with --kernel. 0, or -1 with @err. */
static inline int emulated_cli_check(bool emulated, const char *kernel_path,
				     const char *modules_path, const char *cache_dir,
				     const char *module_params, char *err, size_t errlen)
{
	if ((kernel_path || modules_path || cache_dir || module_params) && !emulated)
		return errbuf_printf(err, errlen, "%s: only for --connect emulated",
				     kernel_path    ? "--kernel"
				     : modules_path ? "--modules"
				     : cache_dir    ? "--cache-dir"
						    : "--module-params");
	if (modules_path && !kernel_path)
		return errbuf_printf(err, errlen,
				     "--modules: the modules of which kernel? (give --kernel "
				     "bzImage with them)");
	return cache_dir ? cache_dir_given(cache_dir, err, errlen) : 0;
}

/*
 * --connect of a command that runs whole inside L1 (sweep, tune: it sets the
 * KVM parameters of the machine it runs on): emulated hosts only, each vendor
 * once (emulated,emulated:amd: each in turn). 0, or -1 with @err naming the
 * first other host.
 */
static inline int emulated_cli_hosts(const char *list, const char *noun, char *err, size_t errlen)
{
	struct connect_list l;
	char shown[CONNECT_URI_MAX];
	if (!list)
		return 0;
	if (connect_list_parse(list, &l, err, errlen))
		return -1;
	if (!l.nr)
		return errbuf_printf(err, errlen, "--connect: no host given");
	for (unsigned i = 0; i < l.nr; i++)
		if (!connect_is_emulated(l.uris[i])) {
			uri_redact(l.uris[i], shown, sizeof(shown));
			return errbuf_printf(
			    err, errlen,
			    "--connect %s: %s sets the parameters of the machine it runs on: "
			    "only the emulated host runs one for this plerig (emulated, "
			    "emulated:amd, or both; run plerig %s on that host)",
			    shown, noun, noun);
		}
	return 0;
}

#endif
