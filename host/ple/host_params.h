/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's PLE / pause-filter parameters: which KVM module drives the
 * host, what its PAUSE-loop parameters are, whether each can be written at
 * run time, and how a new value gets in (a sysfs write, or a module reload
 * that only an unused module allows).
 *
 * Everything is read under a sysfs root ($PLERIG_SYSFS_ROOT, default
 * "/sys"), so the logic is tested against a fake tree. On current kernels
 * every PLE parameter is 0444: changing it means reloading the module.
 */
#ifndef PLERIG_HOST_PARAMS_H
#define PLERIG_HOST_PARAMS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define PLE_MAX_PARAMS	   12 /* a vendor module's five, kvm's halt polling four */
#define PLE_NAME_LEN	   40
#define PLE_VALUE_LEN	   24
#define PLE_MODULE_LEN	   24
#define PLE_MAX_VALUE_TEXT 512

enum ple_vendor {
	PLE_VENDOR_NONE, /* no KVM module, or one without a PAUSE intercept (kvm_pvm) */
	PLE_VENDOR_VMX,	 /* kvm_intel: ple_gap, ple_window, ... */
	PLE_VENDOR_SVM,	 /* kvm_amd: pause_filter_count, pause_filter_thresh, ... */
};

struct ple_param {
	char name[PLE_NAME_LEN];
	char value[PLE_VALUE_LEN]; /* as sysfs shows it */
	unsigned mode;		   /* permission bits of the sysfs file */
	bool writable;		   /* a write bit is set and access(W_OK) lets this process write */
};

struct ple_setting {
	char name[PLE_NAME_LEN];
	char value[PLE_VALUE_LEN];
};

struct ple_host {
	char root[PATH_MAX];	     /* the sysfs root everything was read under */
	char module[PLE_MODULE_LEN]; /* kvm_intel, kvm_amd, kvm_pvm; "" when none */
	enum ple_vendor vendor;
	bool loadable;	    /* root/module/M/refcnt exists: M can be unloaded */
	long refcnt;	    /* its users (open /dev/kvm, VMs, vCPUs); -1 when built in */
	long self_refs;	    /* of those, this process's own fds (doctor's probe) */
	char holders[128];  /* modules that depend on it, comma-separated */
	char users[256];    /* the processes holding KVM, when refcnt > 0 */
	unsigned nr_params; /* PLE parameters present, in the vendor's order */
	struct ple_param params[PLE_MAX_PARAMS];
};

/* $PLERIG_SYSFS_ROOT, or "/sys". */
const char *ple_sysfs_root(void);

/*
 * The module @name belongs to ("kvm_intel" for ple_window, "kvm_amd" for
 * pause_filter_count), or NULL when it is no PLE parameter plerig knows.
 */
const char *ple_param_owner(const char *name);
/* "kvm_intel: ple_gap, ...; kvm_amd: pause_filter_count, ...": for messages and --help. */
const char *ple_params_known(void);
/* The PLE parameter names of a module, NULL-terminated; NULL for none. */
const char *const *ple_module_params(const char *module);

/* The KVM vendor module loaded under @root (kvm_intel, kvm_amd, kvm_pvm), or "" for none. */
const char *ple_loaded_module(const char *root);

/*
 * Read the state of the KVM module under @root. Succeeds (0) also when no
 * KVM module is there (module ""); -errno only when @root itself is
 * unusable, with @err filled.
 */
int ple_host_detect(struct ple_host *h, const char *root, char *err, size_t errlen);

/*
 * Only the parameters of @module under @root, in the vendor's order (no
 * detection, no refcount, no users): what a results file records.
 */
void ple_host_read_params(struct ple_host *h, const char *root, const char *module);

/* The parameter called @name, or NULL when this host's module has none. */
const struct ple_param *ple_host_param(const struct ple_host *h, const char *name);

/*
 * Why @name cannot be used here at all (not a PLE parameter, no such
 * parameter in this module: the host has no hardware PLE), as a message
 * naming the parameter and the module; NULL when it exists.
 */
const char *ple_param_missing(const struct ple_host *h, const char *name, char *why, size_t len);

enum ple_method {
	PLE_METHOD_RUNTIME, /* write the sysfs file */
	PLE_METHOD_RELOAD,  /* modprobe -r, then modprobe with the values */
	PLE_METHOD_REFUSED, /* neither: @why says why and how to fix it */
};

/*
 * How a new value of @name would get in right now. For RELOAD and REFUSED
 * @why says why (read-only parameter; module in use by whom; built into
 * the kernel) and what to do.
 */
enum ple_method ple_decide(const struct ple_host *h, const char *name, char *why, size_t len);
const char *ple_method_name(enum ple_method m);

/* A value plerig is willing to write or pass to modprobe: a decimal unsigned int. */
bool ple_value_valid(const char *value);

/*
 * A value of one of the module's other parameters that modprobe takes back
 * as sysfs shows it: a decimal int (pt_mode=-1) or a bool's Y or N.
 */
bool ple_value_passes_back(const char *value);

/*
 * The module's parameters that are not PLE's, as they read now, that a
 * reload passes again (ple_value_passes_back: enable_apicv=N given when
 * the module was loaded would otherwise go back to its default), at most
 * @max of them into @out, by name; their number.
 */
unsigned ple_host_kept_params(const struct ple_host *h, struct ple_setting *out, unsigned max);

/*
 * Set @n parameters: runtime writes where allowed, one module reload for
 * the rest (passing every PLE parameter, with its current value unless it
 * is being set, so a reload changes nothing else of the PLE set); every
 * value is read back. Nothing is changed when any parameter is refused.
 * @h is re-read afterwards. 0, or -errno with @err filled.
 */
int ple_apply(struct ple_host *h, const struct ple_setting *set, unsigned n, char *err,
	      size_t errlen);

/*
 * kvm's own halt-polling parameters (halt_poll_ns, halt_poll_ns_grow,
 * halt_poll_ns_grow_start, halt_poll_ns_shrink): one set for whichever
 * vendor module runs the vCPUs, PVM's too, and writable at run time, so
 * they are written, never reloaded (a reload of kvm would take the vendor
 * module with it). ple_param_owner() names "kvm" for them.
 */
bool ple_param_is_core(const char *name);
/* The parameter under @root/module/kvm/parameters: 0, or -errno with @err saying why not. */
int ple_core_read(const char *root, const char *name, struct ple_param *out, char *err,
		  size_t errlen);
/* Write @s there and read it back: 0, or -errno with @err filled. */
int ple_core_write(const char *root, const struct ple_setting *s, char *err, size_t errlen);

#endif
