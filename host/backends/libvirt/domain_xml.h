/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The libvirt domain XML of one plerig VM, from the template kept in
 * images/ (plerig-domain.xml): @KEY@ fields are replaced by values, each
 * escaped for XML, so that a path or name can hold any character.
 */
#ifndef PLERIG_DOMAIN_XML_H
#define PLERIG_DOMAIN_XML_H

#include <stdbool.h>
#include <stddef.h>

struct domain_spec {
	const char *name;
	bool tcg; /* <domain type='qemu'>: emulated, no KVM */
	/*
	 * --ple off: QEMU's -overcommit cpu-pm=on, its only way to it, which
	 * asks KVM to stop intercepting PAUSE and also HLT, MWAIT and C-state
	 * exits (KVM_CAP_X86_DISABLE_EXITS with every bit it offers).
	 */
	bool no_pause_exits;
	/* <pvspinlock state='on'/>: QEMU's kvm-pv-unhalt, for lock pvqspin (KVM only) */
	bool pv_unhalt;
	unsigned memory_mib;
	unsigned vcpus;
	const unsigned *pins;	/* host CPU of each vCPU (vcpus entries), or NULL to float */
	const unsigned *cpuset; /* CPUs to float on (and the emulator's), nr_cpuset entries */
	unsigned nr_cpuset;
	const char *emulator; /* the QEMU binary, or NULL for libvirt's default */
	const char *kernel;   /* the guest image */
	const char *config;   /* the fw_cfg config file */
	/* or the config inline, its bytes in hex (the guest decodes it): no file at all */
	const char *config_hex;
	const char *serial; /* the serial log, or NULL: a pty, read as the console stream */
	const char
	    *owner; /* the <metadata> element naming plerig's run (domain_owner.h), or NULL */
};

/*
 * Escape @s for XML text or a quoted attribute into @out. Returns the
 * length it needs (excluding the NUL), like snprintf.
 */
size_t xml_escape(const char *s, char *out, size_t outlen);

/*
 * Fill @template for @spec; a malloc'ed string, or NULL with @err naming
 * the field that was unknown or the memory that ran out.
 */
char *domain_xml_build(const char *template_text, const struct domain_spec *spec, char *err,
		       size_t errlen);

#endif
