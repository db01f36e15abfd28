/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The `plerig run` options that no plain kind of the option table fits:
 * each fills more than one field of the plan, or checks the value against
 * the host. The entry passes its own limits and names in, so none is
 * written twice.
 */
#ifndef PLERIG_RUN_OPTION_PARSERS_H
#define PLERIG_RUN_OPTION_PARSERS_H

#include "cli/option_table.h"
#include "model/plan.h"

opt_parse_fn parse_vcpu_counts; /* min..max per item */
opt_parse_fn parse_halt_polls;	/* "kept" (or "host") or min..max ns per item */
opt_parse_fn parse_pcpus;
opt_parse_fn parse_pin;	      /* names: pin_names */
opt_parse_fn parse_seed;      /* min..max */
opt_parse_fn parse_discard;   /* min..max */
opt_parse_fn parse_reference; /* names: the axes */
opt_parse_fn parse_accel;     /* names: accel_names */

/*
 * --pcpus against this process's affinity mask, once the whole command line
 * is read: only where the VMs run here (another host's CPUs are its own).
 */
int check_pcpus_here(const struct run_plan *o, char *err, size_t errlen);
/* Does --connect name another machine, or several (--connect LIST)? An unparsable list: no. */
bool run_plan_elsewhere(const struct run_plan *o);
/*
 * --connect auto: this machine (NULL) where no kvm variant is planned or
 * its KVM device opens for reading and writing; else the emulated host,
 * with the reason in o->connect_auto (for one line on stderr).
 */
void resolve_connect_auto(struct run_plan *o);
/* --accel tcg turns the libvirt backend into its emulated twin, named so in every output. */
int apply_accel(struct run_plan *o, char *err, size_t errlen);
/*
 * A setting no backend of the run can take (--ple off, --halt-poll N,
 * --ring kernel: model/backend_limits.h) is refused with why and
 * the fix, instead of an empty table or a run that ignores it. Where one
 * backend of several cannot, the matrix leaves its variants out and the
 * run says so. After apply_accel (TCG is a backend of its own there).
 */
int check_backend_settings(const struct run_plan *o, char *err, size_t errlen);

#endif
