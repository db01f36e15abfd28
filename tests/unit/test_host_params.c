// SPDX-License-Identifier: GPL-2.0
/*
 * Host PLE parameters against a fake sysfs tree built here: detection,
 * runtime writes, the reload decision, reloads through a fake modprobe
 * that records its arguments, the state file, and restore after a crash
 * (a child that changes a value and dies without restoring).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ple/host_params.h"
#include "ple/kvm_users.h"
#include "ple/module_snapshot.h"
#include "ple/param_session.h"
#include "ple/state_file.h"
#include "ple/sweep_lock.h"
#include "support/check_main.h"
#include "support/scratch_dir.h"

static char top[256]; /* the temp dir of one test: short, so paths under it fit */
static char sys_root[512];
static char err[2048];

static void xmkdir(const char *fmt, const char *a, const char *b)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), fmt, a, b);
	ck_assert_msg(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", p, strerror(errno));
}

static void put(const char *path, const char *text, mode_t mode)
{
	FILE *f;
	chmod(path, 0644);
	f = fopen(path, "w");
	ck_assert_msg(f, "%s: %s", path, strerror(errno));
	fprintf(f, "%s\n", text);
	fclose(f);
	ck_assert_int_eq(chmod(path, mode), 0);
}

static void param_path(char *buf, size_t len, const char *module, const char *name)
{
	snprintf(buf, len, "%s/module/%s/parameters/%s", sys_root, module, name);
}

static void set_param(const char *module, const char *name, const char *value, mode_t mode)
{
	char p[PATH_MAX];
	param_path(p, sizeof(p), module, name);
	put(p, value, mode);
}

static const char *get_param(const char *module, const char *name)
{
	static char v[64];
	char p[PATH_MAX];
	FILE *f;
	param_path(p, sizeof(p), module, name);
	f = fopen(p, "r");
	ck_assert_msg(f, "%s: %s", p, strerror(errno));
	ck_assert_ptr_nonnull(fgets(v, sizeof(v), f));
	fclose(f);
	v[strcspn(v, "\n")] = '\0';
	return v;
}

/* A module dir with parameters; @refcnt NULL: built in. */
static void fake_module(const char *module, const char *refcnt)
{
	char p[PATH_MAX];
	xmkdir("%s/module/%s", sys_root, module);
	xmkdir("%s/module/%s/parameters", sys_root, module);
	if (refcnt) {
		snprintf(p, sizeof(p), "%s/module/%s/refcnt", sys_root, module);
		put(p, refcnt, 0444);
		xmkdir("%s/module/%s/holders", sys_root, module);
	}
}

static void fake_kvm_intel(mode_t mode, const char *refcnt)
{
	fake_module("kvm_intel", refcnt);
	set_param("kvm_intel", "ple_gap", "128", mode);
	set_param("kvm_intel", "ple_window", "4096", mode);
	set_param("kvm_intel", "ple_window_grow", "2", mode);
	set_param("kvm_intel", "ple_window_shrink", "0", mode);
	set_param("kvm_intel", "ple_window_max", "4294967295", mode);
}

/*
 * modprobe and rmmod stand-ins: each logs its call as one line (rmmod's
 * with "rmmod" in front); a load writes its NAME=VALUE arguments into the
 * fake sysfs as the kernel would (unless FAKE_IGNORE exists);
 * FAKE_FAIL_REMOVE / FAKE_FAIL_LOAD make a step fail; a removal resets
 * the parameters FAKE_DEFAULTS names (NAME=VALUE lines) to their defaults.
 */
static void fake_modprobe(void)
{
	char p[PATH_MAX], script[4096];
	snprintf(script, sizeof(script),
		 "#!/bin/sh\n"
		 "echo \"rmmod $*\" >> %s/modprobe.log\n"
		 "[ -e %s/FAKE_FAIL_REMOVE ] && { echo \"rmmod: ERROR: Module $1 is in use\"; "
		 "exit 1; }\n"
		 "[ -f %s/FAKE_DEFAULTS ] && while IFS= read -r a; do\n"
		 "  f=\"$PLERIG_SYSFS_ROOT/module/$1/parameters/${a%%%%=*}\"\n"
		 "  chmod u+w \"$f\"; echo \"${a#*=}\" > \"$f\"; chmod a-w \"$f\"\n"
		 "done < %s/FAKE_DEFAULTS\n"
		 "exit 0\n",
		 top, top, top, top);
	snprintf(p, sizeof(p), "%s/rmmod", top);
	put(p, script, 0755);
	setenv("PLERIG_RMMOD", p, 1);
	snprintf(script, sizeof(script),
		 "#!/bin/sh\n"
		 "echo \"$*\" >> %s/modprobe.log\n"
		 "mod=$1; shift\n"
		 "if [ -e %s/FAKE_FAIL_LOAD ] && [ $# -gt 0 ]; then echo \"modprobe: ERROR: "
		 "could not insert '$mod': Invalid argument\"; exit 1; fi\n"
		 "[ -e %s/FAKE_IGNORE ] && exit 0\n"
		 /* a module not loaded at all: loading it makes its sysfs directory */
		 "d=\"$PLERIG_SYSFS_ROOT/module/$mod\"\n"
		 "[ -d \"$d\" ] || { mkdir -p \"$d/parameters\" \"$d/holders\"; echo 0 > "
		 "\"$d/refcnt\"; }\n"
		 "for a in \"$@\"; do\n"
		 "  f=\"$PLERIG_SYSFS_ROOT/module/$mod/parameters/${a%%%%=*}\"\n"
		 "  chmod u+w \"$f\"; echo \"${a#*=}\" > \"$f\"; chmod a-w \"$f\"\n"
		 "done\n",
		 top, top, top);
	snprintf(p, sizeof(p), "%s/modprobe", top);
	put(p, script, 0755);
	setenv("PLERIG_MODPROBE", p, 1);
}

static void touch(const char *name)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", top, name);
	put(p, "", 0644);
}

/* The calls the fake modprobe saw, one a line; "" when none. */
static const char *modprobe_log(void)
{
	static char log[4096];
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/modprobe.log", top);
	FILE *f = fopen(p, "r");
	log[0] = '\0';
	if (f) {
		size_t n = fread(log, 1, sizeof(log) - 1, f);
		log[n] = '\0';
		fclose(f);
	}
	return log;
}

static bool state_exists(void)
{
	char p[PATH_MAX];
	ple_state_path(p, sizeof(p));
	return access(p, F_OK) == 0;
}

static void setup(void)
{
	char p[PATH_MAX];
	scratch_dir(top, sizeof(top), "params");
	snprintf(sys_root, sizeof(sys_root), "%s/sys", top);
	xmkdir("%s%s", sys_root, "");
	xmkdir("%s/module%s", sys_root, "");
	setenv("PLERIG_SYSFS_ROOT", sys_root, 1);
	snprintf(p, sizeof(p), "%s/proc", top);
	mkdir(p, 0755);
	setenv("PLERIG_PROC_ROOT", p, 1);
	snprintf(p, sizeof(p), "%s/state", top);
	setenv("PLERIG_STATE_DIR", p, 1);
	fake_modprobe();
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	ck_assert_int_eq(system(cmd), 0);
}

/* ---- discovery ---------------------------------------------------------- */

START_TEST(test_detect_vmx)
{
	struct ple_host h;
	fake_kvm_intel(0444, "0");
	ck_assert_int_eq(ple_host_detect(&h, sys_root, err, sizeof(err)), 0);
	ck_assert_str_eq(h.module, "kvm_intel");
	ck_assert_int_eq(h.vendor, PLE_VENDOR_VMX);
	ck_assert(h.loadable);
	ck_assert_int_eq(h.refcnt, 0);
	ck_assert_uint_eq(h.nr_params, 5);
	ck_assert_str_eq(h.params[0].name, "ple_gap");
	ck_assert_str_eq(ple_host_param(&h, "ple_window")->value, "4096");
	ck_assert_str_eq(ple_host_param(&h, "ple_window_max")->value, "4294967295");
	ck_assert_uint_eq(ple_host_param(&h, "ple_window")->mode, 0444);
	/* root passes access(W_OK): the mode bits must decide */
	ck_assert(!ple_host_param(&h, "ple_window")->writable);
	ck_assert_ptr_null(ple_host_param(&h, "pause_filter_count"));
}
END_TEST

START_TEST(test_detect_svm_partial)
{
	struct ple_host h;
	fake_module("kvm_amd", "3");
	set_param("kvm_amd", "pause_filter_count", "3000", 0644);
	set_param("kvm_amd", "pause_filter_thresh", "128", 0444);
	ck_assert_int_eq(ple_host_detect(&h, sys_root, err, sizeof(err)), 0);
	ck_assert_str_eq(h.module, "kvm_amd");
	ck_assert_int_eq(h.vendor, PLE_VENDOR_SVM);
	ck_assert_int_eq(h.refcnt, 3);
	ck_assert_uint_eq(h.nr_params, 2); /* older kernels lack the others: fine */
	ck_assert(ple_host_param(&h, "pause_filter_count")->writable);
	ck_assert(!ple_host_param(&h, "pause_filter_thresh")->writable);
}
END_TEST

START_TEST(test_detect_none_and_bad_root)
{
	struct ple_host h;
	char bad[PATH_MAX];
	ck_assert_int_eq(ple_host_detect(&h, sys_root, err, sizeof(err)), 0);
	ck_assert_str_eq(h.module, "");
	ck_assert_int_eq(h.vendor, PLE_VENDOR_NONE);
	ck_assert_str_eq(ple_param_missing(&h, "ple_window", err, sizeof(err)), err);
	ck_assert_msg(strstr(err, "kvm_intel") && strstr(err, "not loaded"), "%s", err);

	snprintf(bad, sizeof(bad), "%s/nowhere", top);
	ck_assert_int_lt(ple_host_detect(&h, bad, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "not a sysfs tree") && strstr(err, "PLERIG_SYSFS_ROOT"), "%s",
		      err);
}
END_TEST

/* This machine: PVM, built in, no PLE parameters at all. */
START_TEST(test_pvm_has_nothing)
{
	struct ple_host h;
	const char *const names[] = {"ple_window"};
	struct ple_session s;
	fake_module("kvm_pvm", NULL);
	set_param("kvm_pvm", "pvm_native", "Y", 0444);
	ck_assert_int_eq(ple_host_detect(&h, sys_root, err, sizeof(err)), 0);
	ck_assert_str_eq(h.module, "kvm_pvm");
	ck_assert(!h.loadable);
	ck_assert_uint_eq(h.nr_params, 0);
	ck_assert_ptr_null(ple_module_params("kvm_pvm"));
	ck_assert_int_eq(ple_decide(&h, "ple_window", err, sizeof(err)), PLE_METHOD_REFUSED);
	ck_assert_msg(strstr(err, "ple_window") && strstr(err, "kvm_intel") &&
			  strstr(err, "kvm_pvm") && strstr(err, "no hardware PLE"),
		      "%s", err);

	/* a sweep stops here, before any state is written */
	ck_assert_int_eq(ple_session_begin(&s, names, 1, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, "cannot change ple_window") && strstr(err, "kvm_pvm"), "%s", err);
	ck_assert(!state_exists());
	ck_assert_str_eq(modprobe_log(), "");
}
END_TEST

START_TEST(test_owner_and_values)
{
	ck_assert_str_eq(ple_param_owner("ple_gap"), "kvm_intel");
	ck_assert_str_eq(ple_param_owner("pause_filter_thresh"), "kvm_amd");
	ck_assert_str_eq(ple_param_owner("halt_poll_ns"), "kvm");
	ck_assert(ple_param_is_core("halt_poll_ns_shrink"));
	ck_assert(!ple_param_is_core("ple_window"));
	ck_assert_ptr_null(ple_param_owner("nx_huge_pages"));
	ck_assert(ple_value_valid("0"));
	ck_assert(ple_value_valid("4294967295"));
	ck_assert(!ple_value_valid("4294967296"));
	ck_assert(!ple_value_valid("-1"));
	ck_assert(!ple_value_valid(""));
	ck_assert(!ple_value_valid("12a"));
	ck_assert(!ple_value_valid("1 ple_gap=0"));
	ck_assert(!ple_value_valid("99999999999"));
}
END_TEST

/* ---- decisions ---------------------------------------------------------- */

START_TEST(test_decide)
{
	struct ple_host h;
	char p[PATH_MAX];

	fake_kvm_intel(0644, "0");
	ck_assert_int_eq(ple_host_detect(&h, sys_root, err, sizeof(err)), 0);
	ck_assert_int_eq(ple_decide(&h, "ple_window", err, sizeof(err)), PLE_METHOD_RUNTIME);

	fake_kvm_intel(0444, "0");
	ck_assert_int_eq(ple_host_detect(&h, sys_root, err, sizeof(err)), 0);
	ck_assert_int_eq(ple_decide(&h, "ple_window", err, sizeof(err)), PLE_METHOD_RELOAD);
	ck_assert_msg(strstr(err, "read-only"), "%s", err);

	/* a VM holds it: refused, naming the holder and the fix */
	snprintf(p, sizeof(p), "%s/module/kvm_intel/refcnt", sys_root);
	put(p, "2", 0444);
	snprintf(p, sizeof(p), "%s/proc/4242", top);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/proc/4242/fd", top);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/proc/4242/comm", top);
	put(p, "qemu-system-x86", 0644);
	snprintf(p, sizeof(p), "%s/proc/4242/fd/3", top);
	ck_assert_int_eq(symlink("/dev/kvm", p), 0);
	snprintf(p, sizeof(p), "%s/proc/4242/fd/4", top);
	ck_assert_int_eq(symlink("anon_inode:kvm-vm", p), 0);
	snprintf(p, sizeof(p), "%s/proc/4242/fd/5", top);
	ck_assert_int_eq(symlink("/dev/null", p), 0);
	ck_assert_int_eq(ple_host_detect(&h, sys_root, err, sizeof(err)), 0);
	ck_assert_int_eq(ple_decide(&h, "ple_window", err, sizeof(err)), PLE_METHOD_REFUSED);
	ck_assert_msg(strstr(err, "in use (refcnt 2)") &&
			  strstr(err, "4242 qemu-system-x86 (2 fds)") && strstr(err, "stop"),
		      "%s", err);
	/* the only pins are this process's own (doctor's probe): no obstacle to a reload */
	h.refcnt = h.self_refs = 1;
	ck_assert_int_eq(ple_decide(&h, "ple_window", err, sizeof(err)), PLE_METHOD_RELOAD);

	/* a module depending on it */
	snprintf(p, sizeof(p), "%s/module/kvm_intel/refcnt", sys_root);
	put(p, "0", 0444);
	xmkdir("%s/module/kvm_intel/holders/%s", sys_root, "kvmgt");
	ck_assert_int_eq(ple_host_detect(&h, sys_root, err, sizeof(err)), 0);
	ck_assert_int_eq(ple_decide(&h, "ple_gap", err, sizeof(err)), PLE_METHOD_REFUSED);
	ck_assert_msg(strstr(err, "kvmgt"), "%s", err);
}
END_TEST

START_TEST(test_decide_builtin)
{
	struct ple_host h;
	fake_module("kvm_intel", NULL);
	set_param("kvm_intel", "ple_window", "4096", 0444);
	ck_assert_int_eq(ple_host_detect(&h, sys_root, err, sizeof(err)), 0);
	ck_assert(!h.loadable);
	ck_assert_int_eq(ple_decide(&h, "ple_window", err, sizeof(err)), PLE_METHOD_REFUSED);
	ck_assert_msg(strstr(err, "built into the kernel") &&
			  strstr(err, "kvm_intel.ple_window=VALUE"),
		      "%s", err);
	/* but a writable one on an old kernel still works */
	set_param("kvm_intel", "ple_window", "4096", 0644);
	ck_assert_int_eq(ple_host_detect(&h, sys_root, err, sizeof(err)), 0);
	ck_assert_int_eq(ple_decide(&h, "ple_window", err, sizeof(err)), PLE_METHOD_RUNTIME);
}
END_TEST

/* ---- applying ----------------------------------------------------------- */

START_TEST(test_apply_runtime)
{
	struct ple_host h;
	struct ple_setting s = {"ple_window", "16384"};
	fake_kvm_intel(0644, "1"); /* in use does not matter for a runtime write */
	ck_assert_int_eq(ple_host_detect(&h, sys_root, err, sizeof(err)), 0);
	ck_assert_msg(ple_apply(&h, &s, 1, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(get_param("kvm_intel", "ple_window"), "16384");
	ck_assert_str_eq(ple_host_param(&h, "ple_window")->value, "16384");
	ck_assert_str_eq(modprobe_log(), "");
}
END_TEST

START_TEST(test_apply_reload)
{
	struct ple_host h;
	struct ple_setting s[] = {{"ple_window", "1024"}, {"ple_gap", "0"}};
	fake_kvm_intel(0444, "0");
	ck_assert_int_eq(ple_host_detect(&h, sys_root, err, sizeof(err)), 0);
	ck_assert_msg(ple_apply(&h, s, 2, err, sizeof(err)) == 0, "%s", err);
	/* every PLE parameter passed, the others with their current values */
	ck_assert_str_eq(modprobe_log(), "rmmod kvm_intel\n"
					 "kvm_intel ple_gap=0 ple_window=1024 ple_window_grow=2 "
					 "ple_window_shrink=0 ple_window_max=4294967295\n");
	ck_assert_str_eq(get_param("kvm_intel", "ple_window"), "1024");
	ck_assert_str_eq(get_param("kvm_intel", "ple_gap"), "0");
	ck_assert_str_eq(get_param("kvm_intel", "ple_window_grow"), "2");
	ck_assert_str_eq(ple_host_param(&h, "ple_window")->value, "1024");
}
END_TEST

/*
 * A parameter given when the module was loaded (enable_apicv=N) survives
 * the reload: passed again. One modprobe cannot take back as it reads
 * (a text) is read back after it, and a changed one is an error naming it.
 */
START_TEST(test_reload_keeps_other_params)
{
	struct ple_host h;
	struct ple_setting s = {"ple_window", "1024"};
	char p[PATH_MAX];
	fake_kvm_intel(0444, "0");
	set_param("kvm_intel", "enable_apicv", "N", 0444);
	set_param("kvm_intel", "pt_mode", "-1", 0444);
	set_param("kvm_intel", "vmentry_l1d_flush", "never", 0644);
	snprintf(p, sizeof(p), "%s/FAKE_DEFAULTS", top);
	put(p, "enable_apicv=Y\npt_mode=0", 0644);
	ck_assert_int_eq(ple_host_detect(&h, sys_root, err, sizeof(err)), 0);
	ck_assert_msg(ple_apply(&h, &s, 1, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(modprobe_log(), "rmmod kvm_intel\n"
					 "kvm_intel ple_gap=128 ple_window=1024 ple_window_grow=2 "
					 "ple_window_shrink=0 ple_window_max=4294967295 "
					 "enable_apicv=N pt_mode=-1\n");
	ck_assert_str_eq(get_param("kvm_intel", "enable_apicv"), "N");
	ck_assert_str_eq(get_param("kvm_intel", "pt_mode"), "-1");

	/* a text the reload resets: not silent */
	put(p, "vmentry_l1d_flush=cond", 0644);
	s = (struct ple_setting){"ple_window", "2048"};
	ck_assert_int_eq(ple_apply(&h, &s, 1, err, sizeof(err)), -EIO);
	ck_assert_msg(strstr(err, "vmentry_l1d_flush reads cond instead of never") &&
			  strstr(err, "/etc/modprobe.d/"),
		      "%s", err);
}
END_TEST

START_TEST(test_apply_refused_changes_nothing)
{
	struct ple_host h;
	struct ple_setting s[] = {{"ple_window", "1024"}, {"ple_gap", "64"}};
	char p[PATH_MAX];
	fake_kvm_intel(0444, "1");
	/* ple_window alone would be writable, ple_gap needs a reload that refcnt forbids */
	set_param("kvm_intel", "ple_window", "4096", 0644);
	ck_assert_int_eq(ple_host_detect(&h, sys_root, err, sizeof(err)), 0);
	ck_assert_int_eq(ple_apply(&h, s, 2, err, sizeof(err)), -EPERM);
	ck_assert_msg(strstr(err, "ple_gap=64") && strstr(err, "refcnt 1"), "%s", err);
	ck_assert_str_eq(get_param("kvm_intel", "ple_window"), "4096");
	ck_assert_str_eq(modprobe_log(), "");

	struct ple_setting bad = {"ple_window", "-5"};
	ck_assert_int_eq(ple_apply(&h, &bad, 1, err, sizeof(err)), -EINVAL);
	snprintf(p, sizeof(p), "%s", get_param("kvm_intel", "ple_window"));
	ck_assert_str_eq(p, "4096");
}
END_TEST

START_TEST(test_reload_failures)
{
	struct ple_host h;
	struct ple_setting s = {"ple_window", "1024"};
	fake_kvm_intel(0444, "0");
	ck_assert_int_eq(ple_host_detect(&h, sys_root, err, sizeof(err)), 0);

	touch("FAKE_FAIL_REMOVE");
	ck_assert_int_lt(ple_apply(&h, &s, 1, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "rmmod kvm_intel failed") && strstr(err, "is in use"), "%s", err);
	ck_assert_str_eq(get_param("kvm_intel", "ple_window"), "4096");

	/* the load with values fails: the module is loaded once more without them */
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/FAKE_FAIL_REMOVE", top);
	unlink(p);
	snprintf(p, sizeof(p), "%s/modprobe.log", top);
	unlink(p);
	touch("FAKE_FAIL_LOAD");
	ck_assert_int_lt(ple_apply(&h, &s, 1, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "Invalid argument") && strstr(err, "loaded again"), "%s", err);
	ck_assert_msg(strstr(modprobe_log(), "\nkvm_intel\n"), "%s", modprobe_log());
}
END_TEST

START_TEST(test_reload_verifies)
{
	struct ple_host h;
	struct ple_setting s = {"ple_window", "1024"};
	fake_kvm_intel(0444, "0");
	touch("FAKE_IGNORE"); /* the kernel "clamps": the value does not stick */
	ck_assert_int_eq(ple_host_detect(&h, sys_root, err, sizeof(err)), 0);
	ck_assert_int_eq(ple_apply(&h, &s, 1, err, sizeof(err)), -EIO);
	ck_assert_msg(strstr(err, "reads back 4096 instead of 1024"), "%s", err);
}
END_TEST

/* Either tool missing: -ENOENT, and the message says which package brings it. */
START_TEST(test_modprobe_missing)
{
	static const char *const tools[] = {"PLERIG_RMMOD", "PLERIG_MODPROBE"};
	struct ple_host h;
	struct ple_setting s = {"ple_window", "1024"};
	char p[PATH_MAX];
	fake_kvm_intel(0444, "0");
	snprintf(p, sizeof(p), "%s/no-such-tool", top);
	setenv(tools[_i], p, 1);
	ck_assert_int_eq(ple_host_detect(&h, sys_root, err, sizeof(err)), 0);
	ck_assert_int_eq(ple_apply(&h, &s, 1, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, "no-such-tool") && strstr(err, "cannot run") &&
			  strstr(err, "kmod"),
		      "%s", err);
}
END_TEST

/* ---- state file and sessions -------------------------------------------- */

START_TEST(test_state_text)
{
	struct ple_state s = {.pid = 77, .n = 2}, r;
	char text[1024];
	snprintf(s.root, sizeof(s.root), "/sys");
	snprintf(s.module, sizeof(s.module), "kvm_amd");
	s.orig[0] = (struct ple_setting){"pause_filter_count", "3000"};
	s.orig[1] = (struct ple_setting){"pause_filter_thresh", "128"};
	ck_assert_int_eq(ple_state_format(&s, text, sizeof(text)), 0);
	ck_assert_int_eq(ple_state_parse(text, &r, err, sizeof(err)), 0);
	ck_assert_int_eq(r.pid, 77);
	ck_assert_str_eq(r.root, "/sys");
	ck_assert_str_eq(r.module, "kvm_amd");
	ck_assert_uint_eq(r.n, 2);
	ck_assert_str_eq(r.orig[1].name, "pause_filter_thresh");
	ck_assert_str_eq(r.orig[1].value, "128");
	ck_assert_uint_eq(r.nk, 0);
	/* the module's other parameters, for a restore that loads it */
	s.nk = 2;
	s.kept[0] = (struct ple_setting){"avic", "Y"};
	s.kept[1] = (struct ple_setting){"nested", "-1"};
	ck_assert_int_eq(ple_state_format(&s, text, sizeof(text)), 0);
	ck_assert_msg(strstr(text, "\nkeep avic Y\nkeep nested -1\n"), "%s", text);
	ck_assert_int_eq(ple_state_parse(text, &r, err, sizeof(err)), 0);
	ck_assert_uint_eq(r.nk, 2);
	ck_assert_str_eq(r.kept[1].name, "nested");
	ck_assert_str_eq(r.kept[1].value, "-1");

	static const char *const bad[] = {
	    "",
	    "something else\n",
	    "plerig-ple-state 1\npid 1\nroot /sys\n",
	    "plerig-ple-state 1\npid x\nroot /sys\nmodule kvm_intel\n",
	    "plerig-ple-state 1\npid 8888888888888888888888884242\nroot /sys\nmodule kvm_intel\n",
	    "plerig-ple-state 1\npid 4294967297\nroot /sys\nmodule kvm_intel\n",
	    "plerig-ple-state 1\npid 1\nroot /tmp/x\nroot /sys\nmodule kvm_intel\n",
	    "plerig-ple-state 1\npid 1\nroot /sys\nmodule kvm_intel\nparam ple_gap 1\nparam "
	    "ple_gap 2\n",
	    "plerig-ple-state 1\npid 1\nroot /sys\nmodule kvm_intel\nparam ple_gap\n",
	    "plerig-ple-state 1\npid 1\nroot /sys\nmodule kvm_intel\nparam ple_gap -1\n",
	    "plerig-ple-state 1\npid 1\nroot /sys\nmodule kvm_intel\ncolour blue\n",
	    /* a kept value modprobe would not take back, a name it would read as more */
	    "plerig-ple-state 1\npid 1\nroot /sys\nmodule kvm_intel\nkeep flush never\n",
	    "plerig-ple-state 1\npid 1\nroot /sys\nmodule kvm_intel\nkeep a=b 1\n",
	    "plerig-ple-state 1\npid 1\nroot /sys\nmodule kvm_intel\nkeep avic\n",
	    "plerig-ple-state 1\npid 1\nroot /sys\nmodule kvm_intel\nkeep avic Y\nkeep avic N\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(ple_state_parse(bad[i], &r, err, sizeof(err)) == -1, "accepted: %s",
			      bad[i]);
}
END_TEST

START_TEST(test_session_roundtrip)
{
	struct ple_session s;
	const char *const names[] = {"ple_window"};
	struct ple_setting v = {"ple_window", "65536"};
	fake_kvm_intel(0444, "0");
	ck_assert_msg(ple_session_begin(&s, names, 1, err, sizeof(err)) == 0, "%s", err);
	ck_assert(state_exists());
	ck_assert_str_eq(get_param("kvm_intel", "ple_window"), "4096"); /* nothing yet */
	ck_assert_msg(ple_session_apply(&s, &v, 1, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(get_param("kvm_intel", "ple_window"), "65536");
	ck_assert_msg(ple_session_restore(&s, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(get_param("kvm_intel", "ple_window"), "4096");
	ck_assert(!state_exists());
	/* two reloads: to the value, back to the original */
	ck_assert_str_eq(modprobe_log(), "rmmod kvm_intel\n"
					 "kvm_intel ple_gap=128 ple_window=65536 ple_window_grow=2 "
					 "ple_window_shrink=0 ple_window_max=4294967295\n"
					 "rmmod kvm_intel\n"
					 "kvm_intel ple_gap=128 ple_window=4096 ple_window_grow=2 "
					 "ple_window_shrink=0 ple_window_max=4294967295\n");
	ck_assert_int_eq(ple_session_restore(&s, err, sizeof(err)), 0); /* again: no-op */
}
END_TEST

START_TEST(test_session_refuses_stale_state)
{
	struct ple_session s;
	struct ple_state st = {.pid = 999999, .n = 1};
	const char *const names[] = {"ple_window"};
	fake_kvm_intel(0644, "0");
	snprintf(st.root, sizeof(st.root), "%s", sys_root);
	snprintf(st.module, sizeof(st.module), "kvm_intel");
	st.orig[0] = (struct ple_setting){"ple_window", "4096"};
	ck_assert_int_eq(ple_state_save(&st, err, sizeof(err)), 0);
	ck_assert_int_eq(ple_session_begin(&s, names, 1, err, sizeof(err)), -EBUSY);
	ck_assert_msg(strstr(err, "plerig sweep --restore"), "%s", err);
	/* a live pid in the file is no sweep by itself: only the lock says one runs */
	st.pid = 1;
	ck_assert_int_eq(ple_state_save(&st, err, sizeof(err)), 0);
	ck_assert_int_eq(ple_session_begin(&s, names, 1, err, sizeof(err)), -EBUSY);
	ck_assert_msg(strstr(err, "plerig sweep --restore"), "%s", err);
}
END_TEST

/*
 * Another sweep holding the lock, as a child that takes it and waits: the
 * interleaving of two sweeps made deterministic. Returns the child's pid;
 * writing to *@release (or closing it) lets the child go.
 */
static pid_t hold_lock_in_child(int *release)
{
	int ready[2], go[2];
	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(pipe(go), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		pid_t holder;
		char c = sweep_lock_acquire(&holder, err, sizeof(err)) >= 0 ? 'y' : 'n';
		close(ready[0]);
		close(go[1]);
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) < 0)
			_exit(3);
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	char c = 0;
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	ck_assert_int_eq(c, 'y');
	close(ready[0]);
	*release = go[1];
	return pid;
}

static void let_go(pid_t pid, int release)
{
	int status;
	close(release);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

START_TEST(test_session_refused_while_locked)
{
	struct ple_session s;
	const char *const names[] = {"ple_window"};
	char msg[1024], expect[64];
	int release;
	fake_kvm_intel(0644, "0");
	pid_t other = hold_lock_in_child(&release);
	snprintf(expect, sizeof(expect), "another plerig sweep (pid %ld)", (long)other);

	/* no state file yet (the other sweep has not saved one): refused all the same */
	ck_assert_int_eq(ple_session_begin(&s, names, 1, err, sizeof(err)), -EBUSY);
	ck_assert_msg(strstr(err, expect), "%s", err);
	ck_assert(!state_exists()); /* the other sweep's originals are its to save */
	ck_assert_int_eq(ple_session_restore(&s, err, sizeof(err)), 0);

	/* the other sweep has changed a value: that must never become an "original" */
	set_param("kvm_intel", "ple_window", "8192", 0644);
	struct ple_state st = {.pid = other, .n = 1};
	snprintf(st.root, sizeof(st.root), "%s", sys_root);
	snprintf(st.module, sizeof(st.module), "kvm_intel");
	st.orig[0] = (struct ple_setting){"ple_window", "4096"};
	ck_assert_int_eq(ple_state_save(&st, err, sizeof(err)), 0);
	ck_assert_int_eq(ple_session_begin(&s, names, 1, err, sizeof(err)), -EBUSY);
	ck_assert_int_eq(ple_restore_from_state(msg, sizeof(msg)), -EBUSY);
	snprintf(expect, sizeof(expect), "(pid %ld) is still running", (long)other);
	ck_assert_msg(strstr(msg, expect), "%s", msg);
	ck_assert_int_eq(ple_state_load(&st, err, sizeof(err)), 0);
	ck_assert_str_eq(st.orig[0].value, "4096");
	ck_assert_str_eq(get_param("kvm_intel", "ple_window"), "8192");

	/* between its rmmod and its modprobe the module is gone: still the other sweep named */
	snprintf(expect, sizeof(expect), "another plerig sweep (pid %ld)", (long)other);
	char mod[PATH_MAX], moved[PATH_MAX];
	snprintf(mod, sizeof(mod), "%s/module/kvm_intel", sys_root);
	snprintf(moved, sizeof(moved), "%s/kvm_intel.unloaded", top);
	ck_assert_int_eq(rename(mod, moved), 0);
	ck_assert_int_eq(ple_session_begin(&s, names, 1, err, sizeof(err)), -EBUSY);
	ck_assert_msg(strstr(err, expect), "%s", err);
	ck_assert_int_eq(rename(moved, mod), 0);

	/* it dies without restoring (the kernel drops its lock): --restore now may */
	let_go(other, release);
	ck_assert_int_eq(ple_session_begin(&s, names, 1, err, sizeof(err)), -EBUSY);
	ck_assert_msg(strstr(err, "plerig sweep --restore"), "%s", err);
	ck_assert_int_eq(ple_restore_from_state(msg, sizeof(msg)), 1);
	ck_assert_str_eq(get_param("kvm_intel", "ple_window"), "4096");
	ck_assert(!state_exists());
}
END_TEST

START_TEST(test_session_holds_lock)
{
	struct ple_session s;
	const char *const names[] = {"ple_window"};
	pid_t holder;
	fake_kvm_intel(0644, "0");
	ck_assert_msg(ple_session_begin(&s, names, 1, err, sizeof(err)) == 0, "%s", err);
	/* a second process is refused while the session lasts, and told this one's pid */
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(sweep_lock_acquire(&holder, err, sizeof(err)) == -EBUSY && holder == getppid()
			  ? 0
			  : 1);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
	ck_assert_msg(ple_session_restore(&s, err, sizeof(err)) == 0, "%s", err);
	int fd = sweep_lock_acquire(&holder, err, sizeof(err));
	ck_assert_msg(fd >= 0, "after the restore the lock is free: %s", err);
	sweep_lock_release(fd);
}
END_TEST

/* A sweep that dies between its change and its restore, as kill -9 would. */
static void crash_after_apply(const char *value)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct ple_session s;
		const char *const names[] = {"ple_window", "ple_gap"};
		struct ple_setting v[] = {{"ple_window", ""}, {"ple_gap", "0"}};
		snprintf(v[0].value, sizeof(v[0].value), "%s", value);
		if (ple_session_begin(&s, names, 2, err, sizeof(err)) ||
		    ple_session_apply(&s, v, 2, err, sizeof(err))) {
			fprintf(stderr, "child: %s\n", err);
			_exit(3);
		}
		_exit(0); /* no restore */
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
}

static void check_crash_restore(mode_t mode)
{
	char msg[1024];
	fake_kvm_intel(mode, "0");
	crash_after_apply("1024");
	ck_assert_str_eq(get_param("kvm_intel", "ple_window"), "1024");
	ck_assert_str_eq(get_param("kvm_intel", "ple_gap"), "0");
	ck_assert(state_exists());

	ck_assert_int_eq(ple_restore_from_state(msg, sizeof(msg)), 1);
	ck_assert_msg(strstr(msg, "ple_window 1024 -> 4096") && strstr(msg, "ple_gap 0 -> 128"),
		      "%s", msg);
	ck_assert_str_eq(get_param("kvm_intel", "ple_window"), "4096");
	ck_assert_str_eq(get_param("kvm_intel", "ple_gap"), "128");
	ck_assert_str_eq(get_param("kvm_intel", "ple_window_grow"), "2");
	ck_assert(!state_exists());
	/* and nothing left to do */
	ck_assert_int_eq(ple_restore_from_state(msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, "nothing to restore"), "%s", msg);
}

START_TEST(test_crash_restore_runtime)
{
	check_crash_restore(0644);
	ck_assert_str_eq(modprobe_log(), "");
}
END_TEST

START_TEST(test_crash_restore_reload)
{
	check_crash_restore(0444);
	/* the child's reload, then the restore's */
	ck_assert_str_eq(modprobe_log(), "rmmod kvm_intel\n"
					 "kvm_intel ple_gap=0 ple_window=1024 ple_window_grow=2 "
					 "ple_window_shrink=0 ple_window_max=4294967295\n"
					 "rmmod kvm_intel\n"
					 "kvm_intel ple_gap=128 ple_window=4096 ple_window_grow=2 "
					 "ple_window_shrink=0 ple_window_max=4294967295\n");
}
END_TEST

START_TEST(test_crash_restore_refused_keeps_state)
{
	char msg[1024], p[PATH_MAX];
	fake_kvm_intel(0444, "0");
	crash_after_apply("2048");
	/* meanwhile a VM started: the restore must wait, and keep the originals */
	snprintf(p, sizeof(p), "%s/module/kvm_intel/refcnt", sys_root);
	put(p, "1", 0444);
	ck_assert_int_eq(ple_restore_from_state(msg, sizeof(msg)), -EPERM);
	ck_assert_msg(strstr(msg, "in use"), "%s", msg);
	ck_assert(state_exists());
	put(p, "0", 0444);
	ck_assert_int_eq(ple_restore_from_state(msg, sizeof(msg)), 1);
	ck_assert_str_eq(get_param("kvm_intel", "ple_window"), "4096");
	ck_assert(!state_exists());
}
END_TEST

/*
 * kill -9 between rmmod and modprobe: --restore loads the module with the
 * saved values, PLE's and the others it was loaded with (enable_apicv=N,
 * pt_mode=-1), as a reload passes them
 */
START_TEST(test_restore_unloaded_module)
{
	char msg[1024], cmd[PATH_MAX + 32];
	fake_kvm_intel(0444, "0");
	set_param("kvm_intel", "enable_apicv", "N", 0444);
	set_param("kvm_intel", "pt_mode", "-1", 0444);
	set_param("kvm_intel", "vmentry_l1d_flush", "never", 0644); /* a text: not passed */
	crash_after_apply("1024");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/module/kvm_intel'", sys_root);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(ple_restore_from_state(msg, sizeof(msg)), 1);
	ck_assert_msg(strstr(msg, "loaded it with the saved values"), "%s", msg);
	ck_assert_str_eq(get_param("kvm_intel", "ple_window"), "4096");
	ck_assert_str_eq(get_param("kvm_intel", "ple_gap"), "128");
	ck_assert_str_eq(get_param("kvm_intel", "ple_window_max"), "4294967295");
	ck_assert(!state_exists());
	ck_assert_str_eq(get_param("kvm_intel", "enable_apicv"), "N");
	ck_assert_str_eq(get_param("kvm_intel", "pt_mode"), "-1");
	ck_assert_msg(strstr(msg, "enable_apicv=N pt_mode=-1"), "%s", msg);
	ck_assert_msg(strstr(modprobe_log(),
			     "kvm_intel ple_gap=0 ple_window=1024 ple_window_grow=2 "
			     "ple_window_shrink=0 ple_window_max=4294967295 enable_apicv=N "
			     "pt_mode=-1\n"
			     "kvm_intel ple_gap=128 ple_window=4096 ple_window_grow=2 "
			     "ple_window_shrink=0 ple_window_max=4294967295 enable_apicv=N "
			     "pt_mode=-1\n"),
		      "%s", modprobe_log());
}
END_TEST

START_TEST(test_restore_other_root)
{
	struct ple_state st = {.pid = 999999, .n = 1};
	char msg[1024];
	snprintf(st.root, sizeof(st.root), "/elsewhere");
	snprintf(st.module, sizeof(st.module), "kvm_intel");
	st.orig[0] = (struct ple_setting){"ple_window", "4096"};
	ck_assert_int_eq(ple_state_save(&st, err, sizeof(err)), 0);
	ck_assert_int_eq(ple_restore_from_state(msg, sizeof(msg)), -EINVAL);
	ck_assert_msg(strstr(msg, "PLERIG_SYSFS_ROOT=/elsewhere"), "%s", msg);
	ck_assert(state_exists());
}
END_TEST

/* What @path holds, or "" (a missing file). */
static const char *text_of(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	buf[0] = '\0';
	if (f) {
		buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
		fclose(f);
	}
	return buf;
}

/*
 * The state file is written and read only in its directory, never through
 * a link planted at its name or at the temporary name it is written under
 * (the old one, NAME.tmp.PID, was opened O_TRUNC through links), and a
 * directory others may write to is refused.
 */
START_TEST(test_state_file_never_through_a_link)
{
	struct ple_state st = {.pid = 999999, .n = 1}, back;
	char victim[PATH_MAX], state[PATH_MAX], planted[PATH_MAX + 32];
	struct stat sb;
	snprintf(st.root, sizeof(st.root), "%s", sys_root);
	snprintf(st.module, sizeof(st.module), "kvm_intel");
	st.orig[0] = (struct ple_setting){"ple_window", "4096"};
	snprintf(victim, sizeof(victim), "%s/victim", top);
	put(victim, "precious", 0644);
	ck_assert_int_eq(ple_state_dir_make(err, sizeof(err)), 0);
	ple_state_path(state, sizeof(state));
	snprintf(planted, sizeof(planted), "%s.tmp.%ld", state, (long)getpid());
	ck_assert_int_eq(symlink(victim, planted), 0);
	ck_assert_int_eq(symlink(victim, state), 0);
	ck_assert_msg(ple_state_save(&st, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(text_of(victim), "precious\n");
	ck_assert_int_eq(lstat(state, &sb), 0);
	ck_assert_msg(S_ISREG(sb.st_mode), "the state file is still a link");
	ck_assert_msg(ple_state_load(&back, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(back.orig[0].value, "4096");
	/* a link at its name is not read through either */
	ck_assert_int_eq(unlink(state), 0);
	ck_assert_int_eq(symlink(victim, state), 0);
	ck_assert_int_lt(ple_state_load(&back, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "symbolic link"), "%s", err);
	/* a state directory others may write to is no place for root's originals */
	ck_assert_int_eq(unlink(state), 0);
	snprintf(planted, sizeof(planted), "%s", ple_state_dir());
	ck_assert_int_eq(chmod(planted, 0777), 0);
	ck_assert_int_lt(ple_state_save(&st, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "writable by others") && strstr(err, "PLERIG_STATE_DIR"), "%s",
		      err);
	ck_assert_int_lt(ple_state_load(&back, err, sizeof(err)), 0);
	ck_assert_int_ne(access(state, F_OK), 0);
	ck_assert_int_eq(chmod(planted, 0700), 0);
}
END_TEST

/* As root: a state directory another user owns, with their state file in it, is refused. */
START_TEST(test_state_dir_of_another_user)
{
	struct ple_state st = {.pid = 999999, .n = 1}, back;
	char dir[PATH_MAX];
	snprintf(st.root, sizeof(st.root), "%s", sys_root);
	snprintf(st.module, sizeof(st.module), "kvm_intel");
	st.orig[0] = (struct ple_setting){"ple_window", "1"};
	ck_assert_msg(ple_state_save(&st, err, sizeof(err)) == 0, "%s", err);
	snprintf(dir, sizeof(dir), "%s", ple_state_dir());
	ck_assert_int_eq(chown(dir, 65534, 65534), 0);
	ck_assert_int_lt(ple_state_load(&back, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "is owned by nobody (uid 65534), not by root"), "%s", err);
	ck_assert_int_lt(ple_state_dir_make(err, sizeof(err)), 0);
}
END_TEST

/* ---- kvm's halt polling: written at run time, beside any vendor module ---- */

static void fake_kvm_core(mode_t mode)
{
	fake_module("kvm", "1");
	set_param("kvm", "halt_poll_ns", "200000", mode);
	set_param("kvm", "halt_poll_ns_grow", "2", mode);
}

/* A sweep of halt_poll_ns and ple_window: the first written, the second reloaded, both back. */
START_TEST(test_session_halt_poll)
{
	struct ple_session s;
	const char *const names[] = {"halt_poll_ns", "ple_window"};
	struct ple_setting v[] = {{"halt_poll_ns", "0"}, {"ple_window", "8192"}};
	fake_kvm_intel(0444, "0");
	fake_kvm_core(0644);
	ck_assert_msg(ple_session_begin(&s, names, 2, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(ple_session_apply(&s, v, 2, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(get_param("kvm", "halt_poll_ns"), "0");
	ck_assert_str_eq(get_param("kvm_intel", "ple_window"), "8192");
	ck_assert_msg(ple_session_restore(&s, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(get_param("kvm", "halt_poll_ns"), "200000");
	ck_assert_str_eq(get_param("kvm_intel", "ple_window"), "4096");
	ck_assert_str_eq(get_param("kvm", "halt_poll_ns_grow"), "2");
	ck_assert(!state_exists());
	/* kvm itself is never reloaded, nor passed to the vendor module's modprobe */
	ck_assert_msg(!strstr(modprobe_log(), "halt_poll") &&
			  !strstr(modprobe_log(), "rmmod kvm\n"),
		      "%s", modprobe_log());
}
END_TEST

/* On PVM there is no PLE parameter, but kvm's halt polling is there to sweep. */
START_TEST(test_session_halt_poll_on_pvm)
{
	struct ple_session s;
	const char *const names[] = {"halt_poll_ns"};
	struct ple_setting v = {"halt_poll_ns", "50000"};
	fake_module("kvm_pvm", NULL);
	fake_kvm_core(0644);
	ck_assert_msg(ple_session_begin(&s, names, 1, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(ple_session_apply(&s, &v, 1, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(get_param("kvm", "halt_poll_ns"), "50000");
	ck_assert_msg(ple_session_restore(&s, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(get_param("kvm", "halt_poll_ns"), "200000");
	ck_assert(!state_exists());
}
END_TEST

START_TEST(test_session_halt_poll_refused)
{
	struct ple_session s;
	const char *const names[] = {"halt_poll_ns"};
	fake_module("kvm_pvm", NULL);
	/* no kvm directory at all, then a read-only parameter: refused before any state */
	ck_assert_int_eq(ple_session_begin(&s, names, 1, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, "cannot change halt_poll_ns"), "%s", err);
	fake_kvm_core(0444);
	ck_assert_int_eq(ple_session_begin(&s, names, 1, err, sizeof(err)), -EPERM);
	ck_assert_msg(strstr(err, "read-only"), "%s", err);
	ck_assert(!state_exists());
}
END_TEST

/* A sweep killed after changing halt_poll_ns: --restore puts it back. */
START_TEST(test_crash_restore_halt_poll)
{
	char msg[1024];
	fake_kvm_intel(0644, "0");
	fake_kvm_core(0644);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct ple_session s;
		const char *const names[] = {"halt_poll_ns"};
		struct ple_setting v = {"halt_poll_ns", "10"};
		if (ple_session_begin(&s, names, 1, err, sizeof(err)) ||
		    ple_session_apply(&s, &v, 1, err, sizeof(err)))
			_exit(3);
		_exit(0); /* no restore */
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
	ck_assert_str_eq(get_param("kvm", "halt_poll_ns"), "10");
	ck_assert_int_eq(ple_restore_from_state(msg, sizeof(msg)), 1);
	ck_assert_msg(strstr(msg, "halt_poll_ns 10 -> 200000"), "%s", msg);
	ck_assert_str_eq(get_param("kvm", "halt_poll_ns"), "200000");
	ck_assert(!state_exists());
}
END_TEST

START_TEST(test_kvm_users)
{
	char p[PATH_MAX], out[256];
	snprintf(p, sizeof(p), "%s/proc", top);
	ck_assert_int_eq(kvm_users_describe(p, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "");
	snprintf(p, sizeof(p), "%s/proc/17", top);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/proc/17/fd", top);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/proc/17/fd/9", top);
	ck_assert_int_eq(symlink("anon_inode:kvm-vcpu:0", p), 0);
	snprintf(p, sizeof(p), "%s/proc/self", top); /* not a pid: skipped */
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/proc", top);
	ck_assert_int_eq(kvm_users_describe(p, out, sizeof(out)), 1);
	ck_assert_str_eq(out, "17 ? (1 fd)");
}
END_TEST

/* Under the real /proc, our own KVM fds never make us "the holder" (doctor's probe). */
START_TEST(test_kvm_users_not_self)
{
	char out[4096], self[32], listed[40];
	int fd = open(getenv("PLERIG_KVM_DEVICE") ?: "/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("test_kvm_users_not_self: no KVM device to hold (%s): only the fake-/proc "
		       "case ran\n",
		       strerror(errno));
		return;
	}
	kvm_users_describe("/proc", out, sizeof(out));
	snprintf(self, sizeof(self), "%d ", (int)getpid());
	snprintf(listed, sizeof(listed), ", %s", self);
	/* counted as our own part of the refcnt instead, which blocks no other reload */
	ck_assert_uint_eq(kvm_users_self("/proc"), 1);
	ck_assert_uint_eq(kvm_users_self("/nonexistent/proc"), 0);
	close(fd);
	ck_assert_uint_eq(kvm_users_self("/proc"), 0);
	/* entries are "PID comm (N fds)", joined by ", " */
	ck_assert_msg(strncmp(out, self, strlen(self)) != 0 && !strstr(out, listed),
		      "listed itself (pid %d): %s", (int)getpid(), out);
}
END_TEST

/*
 * Snapshots of a module (expect = module-params): the same load with the same
 * values is the same; a value changed, a parameter gone or new, another
 * directory (a reload: the kernel makes /sys/module/M anew) or no module at
 * all is named.
 */
START_TEST(test_module_snapshot)
{
	static struct module_snapshot a, b;
	char why[1024], list[64], p[PATH_MAX], moved[PATH_MAX];
	fake_module("kvm", "0");
	set_param("kvm", "halt_poll_ns", "200001", 0644);
	set_param("kvm", "halt_poll_ns_grow", "2", 0644);
	module_snapshot_take(sys_root, "kvm", &a);
	ck_assert(a.loaded);
	ck_assert_uint_eq(a.n, 2);
	ck_assert_str_eq(module_snapshot_value(&a, "halt_poll_ns"), "200001");
	ck_assert_ptr_null(module_snapshot_value(&a, "nx_huge_pages"));
	module_snapshot_list(&a, list, sizeof(list));
	ck_assert_str_eq(list, "halt_poll_ns=200001 halt_poll_ns_grow=2");
	module_snapshot_list(&a, list, 20);
	ck_assert_str_eq(list, "halt_poll_ns=200..."); /* 19 characters */
	module_snapshot_take(sys_root, "kvm", &b);
	ck_assert_msg(module_snapshot_same(&a, &b, why, sizeof(why)), "%s", why);
	ck_assert_str_eq(why, "");

	/* reloaded: kvm's directory anew (the old one kept aside, so its inode is not reused),
	   halt_poll_ns back to its default, a parameter gone, another new */
	snprintf(p, sizeof(p), "%s/module/kvm", sys_root);
	snprintf(moved, sizeof(moved), "%s/kvm-before", top);
	ck_assert_int_eq(rename(p, moved), 0);
	fake_module("kvm", "0");
	set_param("kvm", "halt_poll_ns", "200000", 0644);
	set_param("kvm", "halt_poll_ns_shrink", "0", 0644);
	module_snapshot_take(sys_root, "kvm", &b);
	ck_assert(!module_snapshot_same(&a, &b, why, sizeof(why)));
	ck_assert_str_eq(why, "kvm was reloaded (its sysfs directory is another one now); "
			      "halt_poll_ns 200001 -> 200000; halt_poll_ns_grow gone (it was 2); "
			      "halt_poll_ns_shrink new (0)");

	/* unloaded */
	snprintf(moved, sizeof(moved), "%s/kvm-after", top);
	ck_assert_int_eq(rename(p, moved), 0);
	module_snapshot_take(sys_root, "kvm", &b);
	ck_assert(!b.loaded);
	ck_assert(!module_snapshot_same(&a, &b, why, sizeof(why)));
	ck_assert_str_eq(why, "kvm was loaded and is not loaded now");
}
END_TEST

static Suite *host_params_suite(void)
{
	Suite *s = suite_create("host_params");
	TCase *t = tcase_create("fake_sysfs");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_detect_vmx);
	tcase_add_test(t, test_module_snapshot);
	tcase_add_test(t, test_detect_svm_partial);
	tcase_add_test(t, test_detect_none_and_bad_root);
	tcase_add_test(t, test_pvm_has_nothing);
	tcase_add_test(t, test_owner_and_values);
	tcase_add_test(t, test_decide);
	tcase_add_test(t, test_decide_builtin);
	tcase_add_test(t, test_apply_runtime);
	tcase_add_test(t, test_apply_reload);
	tcase_add_test(t, test_reload_keeps_other_params);
	tcase_add_test(t, test_apply_refused_changes_nothing);
	tcase_add_test(t, test_reload_failures);
	tcase_add_test(t, test_reload_verifies);
	tcase_add_loop_test(t, test_modprobe_missing, 0, 2);
	tcase_add_test(t, test_state_text);
	tcase_add_test(t, test_session_roundtrip);
	tcase_add_test(t, test_session_refuses_stale_state);
	tcase_add_test(t, test_session_refused_while_locked);
	tcase_add_test(t, test_session_holds_lock);
	tcase_add_test(t, test_crash_restore_runtime);
	tcase_add_test(t, test_crash_restore_reload);
	tcase_add_test(t, test_crash_restore_refused_keeps_state);
	tcase_add_test(t, test_restore_unloaded_module);
	tcase_add_test(t, test_restore_other_root);
	tcase_add_test(t, test_state_file_never_through_a_link);
	if (geteuid() == 0)
		tcase_add_test(t, test_state_dir_of_another_user);
	else
		printf("SKIP (part): a state directory another user owns: making one (chown to "
		       "nobody) needs root\n");
	tcase_add_test(t, test_session_halt_poll);
	tcase_add_test(t, test_session_halt_poll_on_pvm);
	tcase_add_test(t, test_session_halt_poll_refused);
	tcase_add_test(t, test_crash_restore_halt_poll);
	tcase_add_test(t, test_kvm_users);
	tcase_add_test(t, test_kvm_users_not_self);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(host_params_suite)
