// SPDX-License-Identifier: GPL-2.0
/* The doctor's findings as text (one finding and its status a line) and as JSON. */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "doctor/doctor.h"
#include "output/json_util.h"
#include "ple/host_params.h"
#include "util/errbuf.h"
#include "util/printable.h"

/*
 * 2: "findings" of {"finding", "status"}, which version 1 called "checks"
 * of {"check", "verdict"} ("check" is the command, "verdict" a judgement of
 * a change: docs/glossary.md).
 */
#define DOCTOR_SCHEMA_VERSION 2

#ifndef PLERIG_VERSION
#define PLERIG_VERSION "unknown"
#endif

void doctor_print_text(FILE *out, const struct doctor_findings *r)
{
	fprintf(out, "plerig doctor: what this host offers PLE experiments\n");
	for (unsigned i = 0; i < r->n; i++) {
		const struct doctor_finding *c = &r->list[i];
		printable_printf(out, "%-5s %-26s %s\n", doctor_status_name(c->status), c->title,
				 c->detail);
		if (c->fix[0])
			printable_printf(out, "%-5s %-26s fix: %s\n", "", "", c->fix);
	}
}

static json_object *str_or_null(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

static json_object *module_json(const struct ple_host *h)
{
	json_object *m = json_object_new_object();
	json_object_object_add(m, "name", str_or_null(h->module));
	json_object_object_add(m, "vendor",
			       json_object_new_string(h->vendor == PLE_VENDOR_VMX   ? "vmx"
						      : h->vendor == PLE_VENDOR_SVM ? "svm"
										    : "none"));
	json_object_object_add(m, "loadable", json_object_new_boolean(h->loadable));
	json_object_object_add(m, "refcnt", h->loadable ? json_object_new_int64(h->refcnt) : NULL);
	json_object_object_add(m, "users", str_or_null(h->users));
	json_object_object_add(m, "holders", str_or_null(h->holders));
	json_object *params = json_object_new_array();
	for (unsigned i = 0; i < h->nr_params; i++) {
		const struct ple_param *p = &h->params[i];
		char why[512], mode[8];
		json_object *o = json_object_new_object();
		enum ple_method m2 = ple_decide(h, p->name, why, sizeof(why));
		snprintf(mode, sizeof(mode), "%04o", p->mode);
		json_object_object_add(o, "name", json_object_new_string(p->name));
		json_object_object_add(o, "value", json_object_new_string(p->value));
		json_object_object_add(o, "mode", json_object_new_string(mode));
		json_object_object_add(o, "writable", json_object_new_boolean(p->writable));
		json_object_object_add(o, "change",
				       json_object_new_string(m2 == PLE_METHOD_RUNTIME ? "runtime"
							      : m2 == PLE_METHOD_RELOAD
								  ? "reload"
								  : "refused"));
		json_object_object_add(o, "why", json_object_new_string(why));
		json_object_array_add(params, o);
	}
	json_object_object_add(m, "ple_params", params);
	return m;
}

int doctor_print_json(FILE *out, const struct doctor_findings *r, char *err, size_t errlen)
{
	json_object *root = json_object_new_object();
	json_object_object_add(root, "schema", json_object_new_string("plerig-doctor"));
	json_object_object_add(root, "schema_version", json_object_new_int(DOCTOR_SCHEMA_VERSION));
	json_object_object_add(root, "plerig_version", json_object_new_string(PLERIG_VERSION));
	json_object_object_add(root, "kvm_module", module_json(&r->host));
	json_object *cpus = json_object_new_object();
	json_object_object_add(cpus, "online", json_object_new_int(r->cpus_online));
	json_object_object_add(cpus, "allowed", json_object_new_int(r->cpus_allowed));
	json_object_object_add(cpus, "smt_threads_per_core",
			       json_object_new_int(r->smt_threads_per_core));
	json_object_object_add(root, "cpus", cpus);
	json_object *findings = json_object_new_array();
	for (unsigned i = 0; i < r->n; i++) {
		const struct doctor_finding *c = &r->list[i];
		json_object *o = json_object_new_object();
		json_object_object_add(o, "finding", json_object_new_string(c->key));
		json_object_object_add(o, "title", json_object_new_string(c->title));
		json_object_object_add(o, "status",
				       json_object_new_string(doctor_status_name(c->status)));
		json_object_object_add(o, "detail", json_object_new_string(c->detail));
		json_object_object_add(o, "fix", str_or_null(c->fix));
		json_object_array_add(findings, o);
	}
	json_object_object_add(root, "findings", findings);
	int rc = 0;
	if (json_print(out, root) || fflush(out)) {
		errbuf_printf(err, errlen, "writing the JSON to stdout failed");
		rc = -1;
	}
	json_object_put(root);
	return rc;
}
