// SPDX-License-Identifier: GPL-2.0
/*
 * check --connect LIST: each host's identity, then the suite on every host
 * at once (a thread per host: they share no CPUs), each against its own
 * baseline; what each printed and recorded joined in the list's order.
 */
#include "commands/check_host.h"

#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"
#include "experiment/baseline_store.h"
#include "experiment/host_identity.h"
#include "model/connect_list.h"
#include "model/outcome.h"
#include "output/tap_junit.h"
#include "util/at_once.h"
#include "util/errbuf.h"
#include "util/interrupt.h"
#include "util/printable.h"
#include "util/strfmt.h"
#include "util/uri_redact.h"

struct host_job {
	const struct check_options *o;
	const char *uri;
	struct run_host host; /* identity, label, why it could not be reached */
	struct host_check h;
	struct check_result res;
	int status;
	char *summary; /* what its summary printed, joined at the end */
	size_t summary_len;
};

static void *identify(void *arg)
{
	struct host_job *j = arg;
	struct host_info *info = &j->host.info;
	if (host_identity(j->uri, info, j->host.error, sizeof(j->host.error)))
		host_identity_unreached(j->uri, info);
	else if (!j->uri)
		str_copy(info->connection, sizeof(info->connection), CONNECT_EMBEDDED);
	else if (!info->connection[0])
		uri_redact(j->uri, info->connection, sizeof(info->connection));
	return NULL;
}

static void *check_one(void *arg)
{
	struct host_job *j = arg;
	memset(&j->res, 0, sizeof(j->res));
	j->res.host = j->host.info;
	if (!j->host.error[0]) {
		j->status = check_host(j->o, &j->h, &j->res);
		return NULL;
	}
	str_copy(j->res.suite, sizeof(j->res.suite), j->h.suite_path);
	j->status = check_result_add(&j->res, "host", "reachable", CHECK_FAIL, "%s", j->host.error)
			? EXIT_FAILED
			: check_result_status(&j->res);
	verdicts_summary_print(j->h.summary, &j->res);
	return NULL;
}

/*
 * Two reached hosts whose identities make one baseline key (one host name
 * and one kind of machine: two URIs of one machine, or two machines of one
 * name) would record into one file: refused before anything runs. 0, or
 * EXIT_USAGE with the message.
 */
static int keys_apart(const struct check_options *o, const struct host_job *jobs, unsigned n)
{
	const char *dir = baseline_store_dir(o->baselines_dir);
	char a[256], b[256], path[1024], one[256], other[256], name[128];
	for (unsigned i = 0; dir && i < n; i++) {
		baseline_key(&jobs[i].host.info, a, sizeof(a));
		for (unsigned k = i + 1; !jobs[i].host.error[0] && k < n; k++) {
			baseline_key(&jobs[k].host.info, b, sizeof(b));
			if (jobs[k].host.error[0] || strcmp(a, b))
				continue;
			baseline_path(dir, a, path, sizeof(path));
			printable_copy(one, sizeof(one), jobs[i].host.info.connection);
			printable_copy(other, sizeof(other), jobs[k].host.info.connection);
			printable_copy(name, sizeof(name), jobs[i].host.info.name);
			printable_printf(
			    stderr,
			    "plerig check: --connect: %s and %s are one host by what plerig "
			    "reads of them (name '%s', the same CPU model, CPU count, SMT and "
			    "KVM module), so their baselines would share %s: check them one at "
			    "a time, with --baselines naming a store each (two machines: give "
			    "them distinct host names)\n",
			    one, other, name, path);
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* Job @j's --report results after the others', and its summary where the caller's goes. */
static int join_outputs(const struct host_check *proto, struct host_job *j)
{
	int rc = 0;
	for (size_t i = 0; j->h.results && i < json_object_array_length(j->h.results); i++)
		rc |= json_object_array_add(
		    proto->results, json_object_get(json_object_array_get_idx(j->h.results, i)));
	json_object_put(j->h.results);
	if (j->summary_len)
		fwrite(j->summary, 1, j->summary_len, proto->summary);
	free(j->summary);
	return rc;
}

int check_fleet(const struct check_options *o, const struct host_check *proto,
		struct check_result *all)
{
	struct connect_list list;
	char err[ERRBUF_SIZE];
	connect_list_parse(o->connect_list, &list, err, sizeof(err)); /* checked by the parser */
	struct host_job *jobs = calloc(list.nr, sizeof(*jobs));
	struct run_host *hosts = calloc(list.nr, sizeof(*hosts));
	if (!jobs || !hosts) {
		free(jobs);
		free(hosts);
		fprintf(stderr, "plerig check: out of memory\n");
		return EXIT_FAILED;
	}
	for (unsigned i = 0; i < list.nr; i++) {
		jobs[i].o = o;
		jobs[i].uri = connect_list_uri(&list, i);
	}
	at_once(jobs, sizeof(jobs[0]), list.nr, identify);
	if (keys_apart(o, jobs, list.nr)) {
		free(hosts);
		free(jobs);
		return EXIT_USAGE;
	}
	for (unsigned i = 0; i < list.nr; i++)
		hosts[i] = jobs[i].host;
	run_hosts_label(hosts, list.nr);
	unsigned here = 0;
	for (unsigned i = 0; i < list.nr; i++)
		here += !hosts[i].error[0] && host_is_this_machine(jobs[i].uri);
	int status = EXIT_OK;
	for (unsigned i = 0; i < list.nr; i++) {
		struct host_job *j = &jobs[i];
		j->host = hosts[i];
		j->h = *proto;
		j->h.uri = j->uri;
		j->h.hosts_here = here;
		j->h.label = j->host.label;
		j->h.results = proto->results ? json_object_new_array() : NULL;
		j->h.summary = open_memstream(&j->summary, &j->summary_len);
		if (!j->h.summary || (proto->results && !j->h.results)) {
			fprintf(stderr, "plerig check: out of memory\n");
			status = EXIT_FAILED;
			list.nr = i; /* what was set up is freed below */
			break;
		}
	}
	if (status == EXIT_OK)
		at_once(jobs, sizeof(jobs[0]), list.nr, check_one);
	for (unsigned i = 0; i < list.nr; i++) {
		struct host_job *j = &jobs[i];
		fclose(j->h.summary);
		if (join_outputs(proto, j) || check_result_append(all, &j->res, j->host.label))
			j->status = EXIT_FAILED;
		status = check_status_worst(status, j->status);
		check_result_free(&j->res);
	}
	fflush(proto->summary);
	all->host = hosts[0].info;
	all->interrupted |= interrupt_requested();
	free(hosts);
	free(jobs);
	return status;
}
