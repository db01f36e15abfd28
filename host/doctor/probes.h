/* SPDX-License-Identifier: GPL-2.0 */
/* The probes of `plerig doctor`, a group per file (probe_*.c). */
#ifndef PLERIG_DOCTOR_PROBES_H
#define PLERIG_DOCTOR_PROBES_H

#include "doctor/findings.h"

void doctor_probe_kvm(struct doctor_findings *f);
void doctor_probe_ple(struct doctor_findings *f);
void doctor_probe_tracing(struct doctor_findings *f);
void doctor_probe_tools(struct doctor_findings *f);
void doctor_probe_cpus(struct doctor_findings *f);

#endif
