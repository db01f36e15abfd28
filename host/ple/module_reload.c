// SPDX-License-Identifier: GPL-2.0
#include "ple/module_reload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/errbuf.h"
#include "util/spawn.h"

/* rmmod waits for nothing; a minute means something is badly stuck */
#define MODPROBE_TIMEOUT_MS 60000

static const char *command_from_env(const char *var, const char *fallback)
{
	const char *p = getenv(var);
	return p && *p ? p : fallback;
}

const char *module_modprobe_command(void)
{
	return command_from_env("PLERIG_MODPROBE", "modprobe");
}

const char *module_rmmod_command(void)
{
	return command_from_env("PLERIG_RMMOD", "rmmod");
}

/* Last line of a helper's output, for a one-line message. */
static const char *last_line(char *out)
{
	size_t n = strlen(out);
	while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = '\0';
	char *nl = strrchr(out, '\n');
	return nl ? nl + 1 : out;
}

static int run(char *const argv[], const char *what, char *err, size_t errlen)
{
	char out[1024], serr[ERRBUF_SIZE];
	int rc = spawn_capture(argv, out, sizeof(out), MODPROBE_TIMEOUT_MS, serr, sizeof(serr));
	if (rc < 0)
		return errbuf_errno(err, errlen, rc, "%s: %s%s", what, serr,
				    rc == -ENOENT ? " (install kmod, or point PLERIG_MODPROBE and "
						    "PLERIG_RMMOD at modprobe and rmmod)"
						  : "");
	if (rc != 0)
		return errbuf_errno(err, errlen, -EIO, "%s failed (exit status %d): %s", what, rc,
				    *out ? last_line(out) : "no message");
	return 0;
}

int module_load(const char *module, const struct ple_setting *params, unsigned n, char *err,
		size_t errlen)
{
	const char *modprobe = module_modprobe_command();
	char what[512];
	char *argv[MODULE_MAX_PARAMS + 3];
	char args[MODULE_MAX_PARAMS][PLE_NAME_LEN + PLE_VALUE_LEN + 2];

	if (n > MODULE_MAX_PARAMS)
		return errbuf_errno(err, errlen, -E2BIG, "loading %s: %u parameters, at most %d",
				    module, n, MODULE_MAX_PARAMS);
	argv[0] = (char *)modprobe;
	argv[1] = (char *)module;
	size_t wlen = (size_t)snprintf(what, sizeof(what), "%s %s", modprobe, module);
	for (unsigned i = 0; i < n; i++) {
		snprintf(args[i], sizeof(args[i]), "%s=%s", params[i].name, params[i].value);
		argv[2 + i] = args[i];
		if (wlen < sizeof(what))
			wlen += (size_t)snprintf(what + wlen, sizeof(what) - wlen, " %s", args[i]);
	}
	argv[2 + n] = NULL;
	return run(argv, what, err, errlen);
}

int module_unload(const char *module, char *err, size_t errlen)
{
	char what[512];
	char *argv[3] = {(char *)module_rmmod_command(), (char *)module, NULL};
	snprintf(what, sizeof(what), "%s %s", argv[0], module);
	return run(argv, what, err, errlen);
}

int module_reload(const char *module, const struct ple_setting *params, unsigned n, char *err,
		  size_t errlen)
{
	if (n > MODULE_MAX_PARAMS)
		return errbuf_errno(err, errlen, -E2BIG, "reloading %s: %u parameters, at most %d",
				    module, n, MODULE_MAX_PARAMS);
	int rc = module_unload(module, err, errlen);
	if (rc) {
		size_t len = strlen(err);
		return errbuf_errno(err + len, errlen - len, rc,
				    "; is a VM still running? (plerig doctor lists who holds KVM)");
	}
	rc = module_load(module, params, n, err, errlen);
	if (!rc)
		return 0;

	/* never leave the host without KVM: load it back as the configuration says */
	char again_err[ERRBUF_SIZE];
	size_t len = strlen(err);
	if (module_load(module, NULL, 0, again_err, sizeof(again_err)))
		errbuf_printf(err + len, errlen - len,
			      "; loading it again without the new values failed too (%s): KVM is "
			      "unloaded, run `plerig sweep --restore` (or `modprobe %s`)",
			      again_err, module);
	else
		errbuf_printf(err + len, errlen - len,
			      "; %s was loaded again with its configured values (run plerig sweep "
			      "--restore to get the originals back)",
			      module);
	return rc;
}
