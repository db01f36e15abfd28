/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the VM tests of tracepoints need before they start: the KVM device,
 * tracefs, permission to open a perf event on kvm:kvm_exit in this thread
 * (@try_open, the test's own way: a counter, a sampler), and the KVM module.
 * Without the device, tracefs or the permission: the reason to skip. Any
 * other failure of @try_open fails the test at once: it is not a skip.
 */
#ifndef PLERIG_TEST_TRACE_VM_H
#define PLERIG_TEST_TRACE_VM_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/kvm_system.h"
#include "measure/tracefs.h"
#include "ple/host_params.h"

/* 0 or -errno with @err; closes what it opened. */
typedef int (*trace_vm_try_fn)(const char *tracefs, char *err, size_t errlen);

/* NULL when the tests can run (then @tracefs and @module are set), else why not. */
static inline const char *trace_vm_cannot_run(char *tracefs, size_t tracefs_len, char *module,
					      size_t module_len, trace_vm_try_fn try_open)
{
	static char why[1200];
	char err[1024];
	struct ple_host h;
	int kvm = open(kvm_device_path(), O_RDWR | O_CLOEXEC);
	if (kvm < 0) {
		snprintf(why, sizeof(why), "cannot open %s: %s", kvm_device_path(),
			 strerror(errno));
		return why;
	}
	close(kvm);
	if (tracefs_locate(tracefs, tracefs_len, NULL, 0, err, sizeof(err))) {
		snprintf(why, sizeof(why), "%s", err);
		return why;
	}
	int rc = try_open(tracefs, err, sizeof(err));
	if (rc == -EACCES || rc == -EPERM) {
		snprintf(why, sizeof(why), "%s", err);
		return why;
	}
	if (rc) {
		fprintf(stderr, "FAIL: %s\n", err);
		exit(EXIT_FAILURE);
	}
	if (ple_host_detect(&h, ple_sysfs_root(), err, sizeof(err)) == 0)
		snprintf(module, module_len, "%s", h.module);
	return NULL;
}

#endif
