// SPDX-License-Identifier: GPL-2.0
#include "experiment/baseline_key.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* A name longer than this was cut by the old key: it gets a hash now. */
#define NAME_PLAIN_MAX 62
/* What a hashed name keeps of its slug, for people reading the store. */
#define NAME_SHOWN 40

/* Lower-case letters and digits; every other run of characters one '-'. */
static size_t slug(const char *s, char *out, size_t len)
{
	size_t o = 0;
	bool dash = false;
	for (; *s && o + 2 < len; s++) {
		if (isalnum((unsigned char)*s) || *s == '_') {
			if (dash && o)
				out[o++] = '-';
			out[o++] = (char)tolower((unsigned char)*s);
			dash = false;
		} else {
			dash = true;
		}
	}
	out[o] = '\0';
	return o;
}

/* FNV-1a over @s in lower case: a name's case does not make another host. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++) {
		h ^= (unsigned char)tolower((unsigned char)*s);
		h *= 16777619u;
	}
	return h;
}

/* @h's name as it stands in its key (see the header); "" for none. */
static void name_part(const struct host_info *h, char *out, size_t len)
{
	char s[sizeof(h->name) + 2];
	const size_t n = slug(h->name, s, sizeof(s));
	if (n == strlen(h->name) && n <= NAME_PLAIN_MAX && !strcasecmp(s, h->name)) {
		snprintf(out, len, "%.*s", NAME_PLAIN_MAX, s);
		return;
	}
	size_t shown = n < NAME_SHOWN ? n : NAME_SHOWN;
	while (shown && s[shown - 1] == '-')
		shown--;
	/* "host--1a2b3c4d" for a name of punctuation alone: a key never begins with '-' */
	snprintf(out, len, "%.*s--%08x", shown ? (int)shown : 4, shown ? s : "host",
		 (unsigned)name_hash(h->name));
}

/* The kind of machine: "amd-epyc-7b13-64cpu-smt1-unknown". */
static void machine_part(const struct host_info *h, char *out, size_t len)
{
	char model[128], raw[256];
	slug(h->cpu_model, model, sizeof(model));
	/* a module inferred from a remote host's CPU flags adds nothing its CPU model does
	 * not: such a host keeps the key it had while plerig said its module was unknown */
	snprintf(raw, sizeof(raw), "%s %ldcpu smt%s %s", model, h->cpus_online,
		 h->smt < 0 ? "unknown"
		 : h->smt   ? "1"
			    : "0",
		 h->kvm_module_source[0] ? "unknown" : h->kvm_module);
	slug(raw, out, len);
}

void baseline_key(const struct host_info *h, char *buf, size_t len)
{
	char name[96] = "", machine[256];
	/* check --connect: one baseline per host, not per kind of machine, so that two
	 * hosts of one model (another BIOS setting, another kernel) each keep their own */
	if (h->connection[0])
		name_part(h, name, sizeof(name));
	machine_part(h, machine, sizeof(machine));
	snprintf(buf, len, "%s%s%s", name, name[0] ? "-" : "", machine);
}

void baseline_legacy_key(const struct host_info *h, char *buf, size_t len)
{
	char raw[400], name[64] = "", machine[256];
	if (h->connection[0])
		slug(h->name, name, sizeof(name));
	machine_part(h, machine, sizeof(machine));
	snprintf(raw, sizeof(raw), "%s %s", name, machine);
	slug(raw, buf, len);
}

bool baseline_same_host(const struct host_info *stored, const struct host_info *now)
{
	return !now->connection[0] || !strcasecmp(stored->name, now->name);
}
