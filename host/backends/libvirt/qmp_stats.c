// SPDX-License-Identifier: GPL-2.0
#include "backends/libvirt/qmp_stats.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "util/errbuf.h"

const char *qmp_query_stats_command(void)
{
	static char cmd[1024];
	if (cmd[0])
		return cmd;
	size_t n =
	    (size_t)snprintf(cmd, sizeof(cmd),
			     "{\"execute\":\"query-stats\",\"arguments\":{\"target\":\"vcpu\","
			     "\"providers\":[{\"provider\":\"kvm\",\"names\":[");
	for (int s = 0; s < KVM_STAT_COUNT && n < sizeof(cmd); s++)
		n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, "%s\"%s\"", s ? "," : "",
				      kvm_stat_name((enum kvm_vcpu_stat)s));
	if (n < sizeof(cmd))
		snprintf(cmd + n, sizeof(cmd) - n, "]}]}}");
	return cmd;
}

/* The "return" member of a reply, or NULL with @err (an "error" member says why). */
static json_object *reply_return(json_object *root, const char *what, char *err, size_t errlen)
{
	json_object *ret, *error, *desc;
	if (json_object_object_get_ex(root, "return", &ret))
		return ret;
	if (json_object_object_get_ex(root, "error", &error) &&
	    json_object_object_get_ex(error, "desc", &desc))
		errbuf_printf(err, errlen, "%s: QEMU answered: %s", what,
			      json_object_get_string(desc));
	else
		errbuf_printf(err, errlen, "%s: the reply has no \"return\"", what);
	return NULL;
}

static json_object *parse(const char *reply, const char *what, char *err, size_t errlen)
{
	json_object *root = json_tokener_parse(reply);
	if (!root)
		errbuf_printf(err, errlen, "%s: the reply is not JSON: %.60s", what, reply);
	return root;
}

int qmp_parse_cpus_fast(const char *reply, struct qmp_vcpu *vcpus, unsigned nr, char *err,
			size_t errlen)
{
	json_object *root = parse(reply, "query-cpus-fast", err, errlen);
	if (!root)
		return -1;
	int rc = -1;
	unsigned found = 0;
	json_object *ret = reply_return(root, "query-cpus-fast", err, errlen);
	if (!ret)
		goto out;
	if (!json_object_is_type(ret, json_type_array)) {
		errbuf_printf(err, errlen, "query-cpus-fast: \"return\" is not an array");
		goto out;
	}
	memset(vcpus, 0, nr * sizeof(vcpus[0]));
	for (size_t i = 0; i < json_object_array_length(ret); i++) {
		json_object *cpu = json_object_array_get_idx(ret, i), *index, *tid, *path;
		if (!json_object_object_get_ex(cpu, "cpu-index", &index) ||
		    !json_object_object_get_ex(cpu, "thread-id", &tid) ||
		    !json_object_object_get_ex(cpu, "qom-path", &path))
			continue;
		int64_t idx = json_object_get_int64(index);
		if (idx < 0 || idx >= (int64_t)nr || vcpus[idx].tid)
			continue;
		vcpus[idx].tid = (pid_t)json_object_get_int64(tid);
		snprintf(vcpus[idx].qom_path, sizeof(vcpus[idx].qom_path), "%s",
			 json_object_get_string(path));
		found++;
	}
	if (found != nr)
		errbuf_printf(err, errlen, "query-cpus-fast: %u of %u vCPUs listed", found, nr);
	else
		rc = 0;
out:
	json_object_put(root);
	return rc;
}

static void parse_one_vcpu(json_object *stats, struct kvm_stats_snapshot *out)
{
	for (size_t j = 0; j < json_object_array_length(stats); j++) {
		json_object *st = json_object_array_get_idx(stats, j), *name, *value;
		if (!json_object_object_get_ex(st, "name", &name) ||
		    !json_object_object_get_ex(st, "value", &value) ||
		    !json_object_is_type(value, json_type_int))
			continue;
		for (int s = 0; s < KVM_STAT_COUNT; s++)
			if (!strcmp(json_object_get_string(name),
				    kvm_stat_name((enum kvm_vcpu_stat)s))) {
				out->value[s] = (uint64_t)json_object_get_uint64(value);
				out->valid[s] = true;
			}
	}
}

int qmp_parse_stats(const char *reply, const struct qmp_vcpu *vcpus, unsigned nr,
		    struct kvm_stats_snapshot *out, char *err, size_t errlen)
{
	memset(out, 0, nr * sizeof(out[0]));
	json_object *root = parse(reply, "query-stats", err, errlen);
	if (!root)
		return -1;
	int rc = -1;
	json_object *ret = reply_return(root, "query-stats", err, errlen);
	if (!ret)
		goto out;
	if (!json_object_is_type(ret, json_type_array)) {
		errbuf_printf(err, errlen, "query-stats: \"return\" is not an array");
		goto out;
	}
	for (size_t i = 0; i < json_object_array_length(ret); i++) {
		json_object *entry = json_object_array_get_idx(ret, i), *path, *stats;
		if (!json_object_object_get_ex(entry, "qom-path", &path) ||
		    !json_object_object_get_ex(entry, "stats", &stats) ||
		    !json_object_is_type(stats, json_type_array))
			continue;
		for (unsigned v = 0; v < nr; v++)
			if (!strcmp(vcpus[v].qom_path, json_object_get_string(path)))
				parse_one_vcpu(stats, &out[v]);
	}
	rc = 0;
out:
	json_object_put(root);
	return rc;
}
