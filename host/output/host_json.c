// SPDX-License-Identifier: GPL-2.0
#include "output/host_json.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/json_util.h"

/* A sysfs value: integers as numbers ("128" -> 128), anything else ("Y") as text. */
static json_object *param_value(const char *v)
{
	char *end;

	errno = 0;
	long long n = strtoll(v, &end, 10);
	if (*v && !isspace((unsigned char)*v) && !*end && !errno)
		return json_object_new_int64(n);
	return json_object_new_string(v);
}

/* "ple_gap=128 ple_window=4096" -> {"ple_gap": 128, "ple_window": 4096} */
static json_object *ple_params_json(const char *text)
{
	json_object *o = json_object_new_object();
	char *copy = strdup(text ? text : "");
	char *save = NULL;

	if (!copy)
		return o;
	for (char *tok = strtok_r(copy, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		char *eq = strchr(tok, '=');
		if (eq)
			*eq = '\0';
		json_add(o, tok, eq ? param_value(eq + 1) : NULL);
	}
	free(copy);
	return o;
}

json_object *host_json(const struct host_info *h)
{
	json_object *o = json_object_new_object();

	json_add_str(o, "kernel", h->kernel);
	json_add_str(o, "kvm_module", h->kvm_module);
	/* where the module was inferred: the name stays a module's name, this says so */
	if (h->kvm_module_source[0])
		json_add_str(o, "kvm_module_source", h->kvm_module_source);
	json_add_str(o, "cpu_model", h->cpu_model);
	json_add(o, "cpus", json_object_new_int64(h->cpus));
	json_add(o, "cpus_online",
		 h->cpus_online > 0 ? json_object_new_int64(h->cpus_online) : NULL);
	json_add(o, "smt", h->smt < 0 ? NULL : json_object_new_boolean(h->smt));
	json_add(o, "ple_params", ple_params_json(h->ple_params));
	/* parameters given beyond the stock ones (the emulated host's --module-params) */
	if (h->module_params[0])
		json_add(o, "module_params", ple_params_json(h->module_params));
	if (h->name[0])
		json_add_str(o, "name", h->name);
	if (h->connection[0])
		json_add_str(o, "connection", h->connection);
	if (h->hypervisor[0])
		json_add_str(o, "hypervisor", h->hypervisor);
	if (h->unknown_why[0])
		json_add_str(o, "unknown_why", h->unknown_why);
	/* a host whose seconds are not this world's (the emulated host) says so */
	if (h->clock[0])
		json_add_str(o, "clock", h->clock);
	return o;
}

/* {"ple_gap": 128, ...} back to "ple_gap=128 ...", the text host_info_collect makes. */
static void ple_params_text(json_object *p, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	json_object_object_foreach(p, key, val)
	{
		int n = snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", key,
				 val ? json_object_get_string(val) : "null");
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
}

static void copy_string(json_object *o, const char *key, char *dst, size_t len)
{
	json_object *v;
	const char *s =
	    json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		? json_object_get_string(v)
		: "";
	snprintf(dst, len, "%s", s);
}

void host_from_json(json_object *o, struct host_info *h)
{
	json_object *v;

	memset(h, 0, sizeof(*h));
	h->smt = -1;
	if (!json_object_is_type(o, json_type_object))
		return;
	copy_string(o, "kernel", h->kernel, sizeof(h->kernel));
	copy_string(o, "kvm_module", h->kvm_module, sizeof(h->kvm_module));
	copy_string(o, "kvm_module_source", h->kvm_module_source, sizeof(h->kvm_module_source));
	copy_string(o, "cpu_model", h->cpu_model, sizeof(h->cpu_model));
	if (json_object_object_get_ex(o, "ple_params", &v) &&
	    json_object_is_type(v, json_type_object))
		ple_params_text(v, h->ple_params, sizeof(h->ple_params));
	else
		copy_string(o, "ple_params", h->ple_params, sizeof(h->ple_params));
	if (json_object_object_get_ex(o, "module_params", &v) &&
	    json_object_is_type(v, json_type_object))
		ple_params_text(v, h->module_params, sizeof(h->module_params));
	if (json_object_object_get_ex(o, "cpus", &v) && json_object_is_type(v, json_type_int))
		h->cpus = (unsigned)json_object_get_int64(v);
	/* a count of 0 or below is no count: written back as null, so read as unknown */
	if (json_object_object_get_ex(o, "cpus_online", &v) &&
	    json_object_is_type(v, json_type_int) && json_object_get_int64(v) > 0)
		h->cpus_online = (long)json_object_get_int64(v);
	if (json_object_object_get_ex(o, "smt", &v) && json_object_is_type(v, json_type_boolean))
		h->smt = json_object_get_boolean(v);
	/* a host of --connect: its name and connection are part of its baseline's key */
	copy_string(o, "name", h->name, sizeof(h->name));
	copy_string(o, "connection", h->connection, sizeof(h->connection));
	copy_string(o, "hypervisor", h->hypervisor, sizeof(h->hypervisor));
	copy_string(o, "unknown_why", h->unknown_why, sizeof(h->unknown_why));
	copy_string(o, "clock", h->clock, sizeof(h->clock));
}
