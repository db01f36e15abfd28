// SPDX-License-Identifier: GPL-2.0
#include "cli/run_option_parsers.h"

#include "experiment/host_identity.h"
#include "measure/kvm_system.h"
#include "model/backend_limits.h"
#include "model/connect_list.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "util/cache_dir.h"
#include "util/comma_list.h"
#include "util/cpulist.h"
#include "util/errbuf.h"

/* --vcpus keeps the order given: it is the order the variants run in. */
int parse_vcpu_counts(const struct opt_entry *e, const char *value, void *target, char *err,
		      size_t errlen)
{
	struct run_plan *o = target;
	char item[LIST_ITEM_MAX], allowed[64];
	unsigned counts[PLAN_MAX_VCPU_COUNTS];
	const char *p = value;
	unsigned n = 0;
	int rc;

	while ((rc = list_next(&p, item, sizeof(item))) > 0) {
		unsigned v;
		if (n == PLAN_MAX_VCPU_COUNTS)
			return errbuf_printf(err, errlen, "--vcpus: more than %u values in '%s'",
					     PLAN_MAX_VCPU_COUNTS, value);
		if (opt_parse_unsigned("--vcpus", item, (unsigned)e->min, (unsigned)e->max, &v, err,
				       errlen))
			return -1;
		for (unsigned i = 0; i < n; i++)
			if (counts[i] == v)
				return errbuf_printf(
				    err, errlen, "--vcpus: '%s' listed twice in '%s'", item, value);
		counts[n++] = v;
	}
	if (rc < 0) {
		snprintf(allowed, sizeof(allowed), "%llu..%llu, e.g. 2,4", e->min, e->max);
		return list_item_error("--vcpus", value, rc, allowed, err, errlen);
	}
	memcpy(o->vcpu_counts, counts, n * sizeof(counts[0]));
	o->nr_vcpu_counts = n;
	return 0;
}

/* --halt-poll: ns values or "kept" ("host", its old name), in the order given, each once. */
int parse_halt_polls(const struct opt_entry *e, const char *value, void *target, char *err,
		     size_t errlen)
{
	struct run_plan *o = target;
	char item[LIST_ITEM_MAX], allowed[80];
	int64_t ns[PLAN_MAX_HALT_POLLS];
	const char *p = value;
	unsigned n = 0;
	int rc;

	while ((rc = list_next(&p, item, sizeof(item))) > 0) {
		unsigned long long v;
		if (n == PLAN_MAX_HALT_POLLS)
			return errbuf_printf(err, errlen,
					     "--halt-poll: more than %u values in '%s'",
					     PLAN_MAX_HALT_POLLS, value);
		if (!strcmp(item, "kept") || !strcmp(item, "host"))
			ns[n] = HALT_POLL_HOST;
		else if (item[strspn(item, "0123456789")])
			return errbuf_printf(err, errlen,
					     "--halt-poll: '%s' is neither kept nor a number of ns "
					     "(allowed: kept or %llu..%llu)",
					     item, e->min, e->max);
		else if (opt_parse_u64("--halt-poll", item, e->min, e->max, &v, err, errlen))
			return -1;
		else
			ns[n] = (int64_t)v;
		for (unsigned i = 0; i < n; i++)
			if (ns[i] == ns[n])
				return errbuf_printf(err, errlen,
						     "--halt-poll: '%s' listed twice in '%s'", item,
						     value);
		n++;
	}
	if (rc < 0) {
		snprintf(allowed, sizeof(allowed), "host or %llu..%llu ns, e.g. host,0,200000",
			 e->min, e->max);
		return list_item_error("--halt-poll", value, rc, allowed, err, errlen);
	}
	memcpy(o->halt_polls, ns, n * sizeof(ns[0]));
	o->nr_halt_polls = n;
	return 0;
}

/*
 * A CPU list; where the VMs run here each CPU must be one this process may
 * run on (check_pcpus_here): pinning a vCPU thread elsewhere would fail at
 * run time, deep inside a VM boot.
 */
int parse_pcpus(const struct opt_entry *e, const char *value, void *target, char *err,
		size_t errlen)
{
	struct run_plan *o = target;
	char why[ERRBUF_SIZE];

	(void)e;
	if (cpulist_parse(value, o->common.pcpus, PLERIG_MAX_PCPUS, &o->common.nr_pcpus, why,
			  sizeof(why)))
		return errbuf_printf(err, errlen, "--pcpus: %s", why);
	o->pcpus_given = true;
	return 0;
}

int check_pcpus_here(const struct run_plan *o, char *err, size_t errlen)
{
	unsigned allowed[PLERIG_MAX_PCPUS];
	bool ok[CPU_SETSIZE] = {false}; /* both lists hold CPUs below CPU_SETSIZE */
	char allowed_text[256];

	/* another host's CPUs are its own: libvirt says there when one is missing */
	if (!o->pcpus_given || run_plan_elsewhere(o))
		return 0;
	unsigned nr_allowed = allowed_host_cpus(allowed, PLERIG_MAX_PCPUS);
	for (unsigned i = 0; i < nr_allowed; i++)
		ok[allowed[i]] = true;
	for (unsigned i = 0; i < o->common.nr_pcpus; i++) {
		if (ok[o->common.pcpus[i]])
			continue;
		cpulist_format(allowed, nr_allowed, allowed_text, sizeof(allowed_text));
		return errbuf_printf(
		    err, errlen, "--pcpus: CPU %u is not available to this process (allowed: %s)",
		    o->common.pcpus[i], allowed_text);
	}
	return 0;
}

/* A name into a bool: the plan keeps "pinned" as a flag, the command line names it. */
int parse_pin(const struct opt_entry *e, const char *value, void *target, char *err, size_t errlen)
{
	struct run_plan *o = target;
	unsigned v;

	if (opt_parse_name("--pin", e->names, value, &v, err, errlen))
		return -1;
	o->common.pin_each = v == PIN_EACH;
	return 0;
}

int parse_seed(const struct opt_entry *e, const char *value, void *target, char *err, size_t errlen)
{
	struct run_plan *o = target;

	if (opt_parse_u64("--seed", value, e->min, e->max, &o->seed, err, errlen))
		return -1;
	o->seed_given = true;
	return 0;
}

/* The plan's -1 means "as --repeat says": not a value the command line may give. */
int parse_discard(const struct opt_entry *e, const char *value, void *target, char *err,
		  size_t errlen)
{
	struct run_plan *o = target;
	unsigned n;

	if (opt_parse_unsigned("--discard-rounds", value, (unsigned)e->min, (unsigned)e->max, &n,
			       err, errlen))
		return -1;
	o->discard_rounds = (int)n;
	return 0;
}

/* AXIS=VALUE: the value every compared variant is measured against. */
int parse_reference(const struct opt_entry *e, const char *value, void *target, char *err,
		    size_t errlen)
{
	static const struct name_table *const values[] = {
	    [REFERENCE_BACKEND] = &backend_names,
	    [REFERENCE_LOCK] = &lock_names,
	    [REFERENCE_RELAX] = &relax_names,
	    [REFERENCE_PLE] = &ple_names,
	};
	struct run_plan *o = target;
	char axis_name[16], allowed[128];
	const char *eq = strchr(value, '=');
	if (!eq)
		return errbuf_printf(
		    err, errlen, "--reference: '%s' is not AXIS=VALUE (e.g. relax=pause)", value);
	const size_t len = (size_t)(eq - value);
	const char *v = eq + 1;
	snprintf(axis_name, sizeof(axis_name), "%.*s", (int)(len < 15 ? len : 15), value);
	int axis = len < 15 ? name_lookup(e->names, axis_name) : -1;
	if (axis < 0)
		return errbuf_printf(err, errlen, "--reference: axis '%.*s' is not one of %s",
				     (int)len, value,
				     name_list(e->names, allowed, sizeof(allowed)));
	o->reference_axis = (enum reference_axis)axis;
	if (axis == REFERENCE_VCPUS)
		return opt_parse_unsigned("--reference vcpus", v, 1, PLERIG_MAX_VCPUS,
					  &o->reference_value, err, errlen);
	int n = name_lookup(values[axis], v);
	if (n < 0)
		return errbuf_printf(err, errlen, "--reference: '%s' is not a value of %s", v,
				     axis_name);
	o->reference_value = (unsigned)n;
	return 0;
}

/* Whether --accel was given at all decides if it may go with a backend that has no choice. */
int parse_accel(const struct opt_entry *e, const char *value, void *target, char *err,
		size_t errlen)
{
	struct run_plan *o = target;
	unsigned v;

	if (opt_parse_name("--accel", e->names, value, &v, err, errlen))
		return -1;
	o->accel = (enum accel)v;
	o->accel_given = true;
	return 0;
}

void resolve_connect_auto(struct run_plan *o)
{
	o->connect_auto_why[0] = '\0';
	o->connect_auto = o->connect_uri && !strcmp(o->connect_uri, CONNECT_AUTO);
	if (!o->connect_auto)
		return;
	bool kvm = false;
	for (unsigned i = 0; i < o->nr_backends; i++)
		kvm |= o->backends[i] == BACKEND_KVM;
	const char *dev = kvm_device_path();
	const int fd = kvm ? open(dev, O_RDWR | O_CLOEXEC) : -1;
	if (!kvm || fd >= 0) {
		if (fd >= 0)
			close(fd);
		o->connect_uri = NULL;
		return;
	}
	errbuf_printf(o->connect_auto_why, sizeof(o->connect_auto_why),
		      "--connect auto: no usable %s here (%s), so the kvm variants run on the "
		      "emulated host: Bochs' emulated Intel CPU with the real kvm_intel, times in "
		      "emulated seconds; its first start boots L1 (minutes)",
		      dev, strerror(errno));
	o->connect_uri = CONNECT_EMULATED;
}

bool run_plan_elsewhere(const struct run_plan *o)
{
	struct connect_list hosts;
	char err[ERRBUF_SIZE];
	if (connect_list_parse(o->connect_uri, &hosts, err, sizeof(err)))
		return false;
	return hosts.nr > 1 ||
	       (hosts.nr == 1 && !host_is_this_machine(connect_list_uri(&hosts, 0)));
}

int apply_accel(struct run_plan *o, char *err, size_t errlen)
{
	bool libvirt = false;
	for (unsigned i = 0; i < o->nr_backends; i++) {
		if (o->backends[i] != BACKEND_LIBVIRT && o->backends[i] != BACKEND_LIBVIRT_TCG)
			continue;
		libvirt = true;
		if (o->accel == ACCEL_TCG)
			o->backends[i] = BACKEND_LIBVIRT_TCG;
	}
	for (unsigned i = 0; i < o->nr_backends; i++)
		for (unsigned j = 0; j < i; j++)
			if (o->backends[i] == o->backends[j])
				return errbuf_printf(err, errlen,
						     "--accel tcg: --backend lists libvirt and "
						     "libvirt-emulated, which are then the same");
	if (o->accel_given && !libvirt)
		return errbuf_printf(err, errlen,
				     "--accel: only --backend libvirt has a choice of "
				     "accelerator");
	struct connect_list hosts;
	if (connect_list_parse(o->connect_uri, &hosts, err, errlen))
		return -1;
	const unsigned emulated_hosts = connect_list_emulated(&hosts);
	const bool emulated = emulated_hosts > 0;
	const unsigned libvirt_hosts = hosts.nr - emulated_hosts;
	/* said, not silently ignored: the kvm and native backends have no use for them */
	/* --connect auto may take --cache-dir for the emulated host it did not choose */
	if (((libvirt_hosts && o->connect_uri) || (o->cache_dir && !o->connect_auto)) && !libvirt &&
	    !emulated)
		return errbuf_printf(err, errlen,
				     "%s: only --backend libvirt %s (add --backend libvirt, or "
				     "leave it out)",
				     o->connect_uri ? "--connect" : "--cache-dir",
				     o->connect_uri ? "uses a libvirt URI"
						    : "and --connect emulated use a cache dir");
	if (o->cache_dir && cache_dir_given(o->cache_dir, err, errlen))
		return -1;
	if (libvirt_hosts && !libvirt)
		return errbuf_printf(err, errlen,
				     "--connect names libvirt hosts, where only --backend libvirt "
				     "runs: add it to --backend, or leave them out");
	if ((o->kernel_path || o->modules_path) && !emulated)
		return errbuf_printf(err, errlen,
				     "%s: only the emulated host boots a kernel of its own (add "
				     "--connect emulated)",
				     o->kernel_path ? "--kernel" : "--modules");
	if (o->module_params && !emulated)
		return errbuf_printf(err, errlen,
				     "--module-params: only the emulated host reloads its KVM "
				     "modules with them (add --connect emulated)");
	if (o->module_params && emulated_hosts > 1)
		return errbuf_printf(err, errlen,
				     "--module-params with %u emulated hosts: each vendor's module "
				     "has parameters of its own; name one emulated host",
				     emulated_hosts);
	if (o->modules_path && !o->kernel_path)
		return errbuf_printf(err, errlen,
				     "--modules: the modules of which kernel? (give --kernel "
				     "bzImage with them)");
	bool runs_here = false;
	for (unsigned i = 0; i < o->nr_backends; i++)
		runs_here |= o->backends[i] == BACKEND_KVM || o->backends[i] == BACKEND_NATIVE;
	if (emulated && !runs_here)
		return errbuf_printf(err, errlen,
				     "--connect emulated: the emulated host runs kvm and native "
				     "variants, and --backend names neither (add kvm)");
	/*
	 * each variant's host is the machine its VMs ran on: kvm and native run
	 * here, or inside the emulated host's L1; libvirt on the libvirt hosts
	 */
	const bool elsewhere = run_plan_elsewhere(o);
	for (unsigned i = 0; elsewhere && i < o->nr_backends; i++) {
		const bool here = o->backends[i] == BACKEND_KVM || o->backends[i] == BACKEND_NATIVE;
		if (here && !emulated)
			return errbuf_printf(
			    err, errlen,
			    "--connect names %s, where the libvirt variants would run, "
			    "while --backend %s runs here: run them in two plerig runs",
			    hosts.nr > 1 ? "several hosts" : "another host",
			    backend_name(o->backends[i]));
		if (!here && !libvirt_hosts)
			return errbuf_printf(
			    err, errlen,
			    "--backend %s: the emulated host runs plerig's kvm and "
			    "native backends inside L1, not libvirt (name a libvirt "
			    "host in --connect too, or leave it out)",
			    backend_name(o->backends[i]));
	}
	return 0;
}

/* @what (the setting as given) refused where no backend of @o can take @s. */
static int refuse_if_none(const struct run_plan *o, enum backend_setting s, const char *what,
			  char *err, size_t errlen)
{
	char whys[ERRBUF_SIZE];
	size_t used = 0;
	whys[0] = '\0';
	for (unsigned i = 0; i < o->nr_backends; i++) {
		const char *why = backend_cannot(o->backends[i], s);
		if (!why)
			return 0;
		int n = snprintf(whys + used, sizeof(whys) - used, "%s%s: %s", used ? "; " : "",
				 backend_name(o->backends[i]), why);
		if (n > 0 && (size_t)n < sizeof(whys) - used)
			used += (size_t)n;
	}
	return errbuf_printf(err, errlen, "%s: no backend of this run can take it (%s): %s", what,
			     whys, backend_setting_fix(s));
}

int check_backend_settings(const struct run_plan *o, char *err, size_t errlen)
{
	char what[64];
	for (unsigned i = 0; i < o->nr_ples; i++)
		if (o->ples[i] == PLE_OFF &&
		    refuse_if_none(o, SETTING_PLE_OFF, "--ple off", err, errlen))
			return -1;
	for (unsigned i = 0; i < o->nr_halt_polls; i++) {
		if (o->halt_polls[i] == HALT_POLL_HOST)
			continue;
		snprintf(what, sizeof(what), "--halt-poll %lld", (long long)o->halt_polls[i]);
		if (refuse_if_none(o, SETTING_HALT_POLL, what, err, errlen))
			return -1;
	}
	if (o->ring == RING_CHOICE_KERNEL &&
	    refuse_if_none(o, SETTING_RING_KERNEL, "--ring kernel", err, errlen))
		return -1;
	return 0;
}
