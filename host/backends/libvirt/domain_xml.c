// SPDX-License-Identifier: GPL-2.0
#include "backends/libvirt/domain_xml.h"

#include "plerig/frame.h"

#include "util/cpulist.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/plan.h"
#include "util/errbuf.h"

size_t xml_escape(const char *s, char *out, size_t outlen)
{
	size_t n = 0;
	for (; *s; s++) {
		char one[2] = {*s, '\0'};
		const char *rep = one;
		switch (*s) {
		case '&':
			rep = "&amp;";
			break;
		case '<':
			rep = "&lt;";
			break;
		case '>':
			rep = "&gt;";
			break;
		case '"':
			rep = "&quot;";
			break;
		case '\'':
			rep = "&apos;";
			break;
		}
		for (; *rep; rep++, n++)
			if (n + 1 < outlen)
				out[n] = *rep;
	}
	if (outlen)
		out[n < outlen ? n : outlen - 1] = '\0';
	return n;
}

/* A growing string: every append checked once, at the end. */
struct text {
	char *s;
	size_t len, cap;
	bool failed;
	const char *unrepresentable; /* a value XML 1.0 cannot hold (control characters) */
};

static void append_n(struct text *t, const char *s, size_t n)
{
	if (t->failed)
		return;
	if (t->len + n + 1 > t->cap) {
		size_t cap = (t->len + n + 1) * 2;
		char *p = realloc(t->s, cap);
		if (!p) {
			t->failed = true;
			return;
		}
		t->s = p;
		t->cap = cap;
	}
	memcpy(t->s + t->len, s, n);
	t->len += n;
	t->s[t->len] = '\0';
}

static void append(struct text *t, const char *s)
{
	append_n(t, s, strlen(s));
}

static void append_escaped(struct text *t, const char *s)
{
	for (const char *c = s; *c; c++)
		if ((unsigned char)*c < 0x20 && !t->unrepresentable)
			t->unrepresentable = s;
	size_t n = xml_escape(s, NULL, 0);
	char *e = malloc(n + 1);
	if (!e) {
		t->failed = true;
		return;
	}
	xml_escape(s, e, n + 1);
	append_n(t, e, n);
	free(e);
}

static void append_uint(struct text *t, unsigned v)
{
	char b[16];
	snprintf(b, sizeof(b), "%u", v);
	append(t, b);
}

static void append_cpuset(struct text *t, const unsigned *cpus, unsigned nr)
{
	char b[4096];
	cpulist_format(cpus, nr, b, sizeof(b));
	append(t, b);
}

/* <cputune>: each vCPU on its CPU, or none (the vCPUs float on <vcpu cpuset>). */
static void append_cputune(struct text *t, const struct domain_spec *d)
{
	if (!d->pins)
		return;
	append(t, "<cputune>");
	for (unsigned i = 0; i < d->vcpus; i++) {
		append(t, "<vcpupin vcpu='");
		append_uint(t, i);
		append(t, "' cpuset='");
		append_uint(t, d->pins[i]);
		append(t, "'/>");
	}
	append(t, "<emulatorpin cpuset='");
	append_cpuset(t, d->cpuset, d->nr_cpuset);
	append(t, "'/></cputune>");
}

/* Returns 0, or -1 if @key is not a field of the template. */
static int append_field(struct text *t, const char *key, size_t len, const struct domain_spec *d)
{
#define IS(k) (len == sizeof(k) - 1 && !memcmp(key, k, len))
	if (IS("NAME"))
		append_escaped(t, d->name);
	else if (IS("DOMAIN_TYPE"))
		append(t, d->tcg ? "qemu" : "kvm");
	else if (IS("PV_FEATURES"))
		append(t, d->pv_unhalt ? "<pvspinlock state='on'/>" : "");
	else if (IS("MEMORY_MIB"))
		append_uint(t, d->memory_mib);
	else if (IS("VCPUS"))
		append_uint(t, d->vcpus);
	else if (IS("CPUSET"))
		append_cpuset(t, d->cpuset, d->nr_cpuset);
	else if (IS("CPUTUNE"))
		append_cputune(t, d);
	else if (IS("KERNEL"))
		append_escaped(t, d->kernel);
	else if (IS("CONFIG"))
		append_escaped(t, d->config ? d->config : "");
	else if (IS("CONFIG_ENTRY")) {
		append(t, "<entry name='" PLERIG_FW_CFG_CONFIG "'");
		if (d->config_hex) {
			append(t, ">");
			append(t, d->config_hex);
			append(t, "</entry>");
		} else {
			append(t, " file='");
			append_escaped(t, d->config ? d->config : "");
			append(t, "'/>");
		}
	} else if (IS("EMULATOR")) {
		if (d->emulator) {
			append(t, "<emulator>");
			append_escaped(t, d->emulator);
			append(t, "</emulator>");
		}
	} else if (IS("METADATA")) {
		if (d->owner) {
			append(t, "<metadata>");
			append(t, d->owner);
			append(t, "</metadata>");
		}
	} else if (IS("SERIAL"))
		append_escaped(t, d->serial ? d->serial : "");
	else if (IS("SERIAL_DEVICE")) {
		if (d->serial) {
			append(t, "<serial type='file'><source path='");
			append_escaped(t, d->serial);
			append(t, "'/><target port='0'/></serial>");
		} else
			append(t, "<serial type='pty'><target port='0'/></serial>");
	} else if (IS("QEMU_COMMANDLINE")) {
		/* after libvirt's -no-shutdown, which it overrides: the guest's power-off
		 * ends QEMU, so a guest whose plerig was killed leaves no QEMU behind
		 * (orphans.h); QEMU's microvm build has no isa-debug-exit for that */
		append(t, "<qemu:commandline><qemu:arg value='-action'/>"
			  "<qemu:arg value='shutdown=poweroff'/>");
		append(t, d->no_pause_exits
			      ? "<qemu:arg value='-overcommit'/><qemu:arg value='cpu-pm=on'/>"
			      : "");
		append(t, "</qemu:commandline>");
	} else
		return -1;
	return 0;
#undef IS
}

char *domain_xml_build(const char *template_text, const struct domain_spec *spec, char *err,
		       size_t errlen)
{
	struct text t = {0};
	const char *p = template_text;
	for (;;) {
		const char *at = strchr(p, '@');
		if (!at) {
			append(&t, p);
			break;
		}
		const char *end = strchr(at + 1, '@');
		if (!end) {
			errbuf_printf(err, errlen,
				      "domain template: unterminated @field at '%.20s'", at);
			free(t.s);
			return NULL;
		}
		append_n(&t, p, (size_t)(at - p));
		if (append_field(&t, at + 1, (size_t)(end - at - 1), spec)) {
			errbuf_printf(err, errlen, "domain template: unknown field @%.*s@",
				      (int)(end - at - 1), at + 1);
			free(t.s);
			return NULL;
		}
		p = end + 1;
	}
	if (t.unrepresentable) {
		errbuf_printf(
		    err, errlen,
		    "'%s' has a control character, which a libvirt domain XML cannot hold: "
		    "choose a path without one",
		    t.unrepresentable);
		free(t.s);
		return NULL;
	}
	if (t.failed) {
		errbuf_printf(err, errlen, "out of memory building the domain XML");
		free(t.s);
		return NULL;
	}
	return t.s;
}
