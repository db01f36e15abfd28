// SPDX-License-Identifier: GPL-2.0
#include "doctor/doctor.h"

#include <string.h>

#include "doctor/probes.h"

void doctor_collect(struct doctor_findings *r)
{
	memset(r, 0, sizeof(*r));
	/* KVM first: the PLE checks read the module it found */
	doctor_probe_kvm(r);
	doctor_probe_ple(r);
	doctor_probe_tracing(r);
	doctor_probe_tools(r);
	doctor_probe_cpus(r);
}
