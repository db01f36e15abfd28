// SPDX-License-Identifier: GPL-2.0
#include "backends/libvirt/domain_owner.h"

#include <stdlib.h>
#include <string.h>

#include "backends/libvirt/connection.h"
#include "backends/libvirt/process_tag.h"
#include "backends/libvirt/remote_pool.h"
#include "util/printable.h"

unsigned lv_run_number(void)
{
	static unsigned runs;
	return __atomic_add_fetch(&runs, 1, __ATOMIC_RELAXED);
}

int domain_owner_element(unsigned run, char *out, size_t len)
{
	char host[64];
	unsigned long long start;
	int pid;
	if (lv_owner_identity(host, sizeof(host), &pid, &start))
		return -1;
	const int n = snprintf(out, len,
			       "<" DOMAIN_OWNER_PREFIX ":owner xmlns:" DOMAIN_OWNER_PREFIX
			       "='" DOMAIN_OWNER_NS "' host='%s' pid='%d' start='%llu' run='%u'/>",
			       host, pid, start, run);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* The value of attribute @name in @xml (either quote), into @out; -1 if absent. */
static int attribute(const char *xml, const char *name, char *out, size_t len)
{
	char key[32];
	snprintf(key, sizeof(key), " %s=", name);
	const char *at = strstr(xml, key);
	if (!at)
		return -1;
	at += strlen(key);
	const char quote = *at++;
	const char *end = quote == '\'' || quote == '"' ? strchr(at, quote) : NULL;
	if (!end || (size_t)(end - at) >= len)
		return -1;
	snprintf(out, len, "%.*s", (int)(end - at), at);
	return 0;
}

bool domain_owner_is_orphan(const char *xml, const char *host)
{
	char who[64], pid_s[16], start_s[32], rest;
	int pid;
	unsigned long long start;
	if (attribute(xml, "host", who, sizeof(who)) || strcmp(who, host) ||
	    attribute(xml, "pid", pid_s, sizeof(pid_s)) ||
	    attribute(xml, "start", start_s, sizeof(start_s)) ||
	    sscanf(pid_s, "%d%c", &pid, &rest) != 1 || pid <= 0 ||
	    sscanf(start_s, "%llu%c", &start, &rest) != 1)
		return false;
	return !process_runs(pid, start);
}

/* Destroy (and undefine, were it persistent) @dom: NULL, or what libvirt said. */
static const char *remove_domain(virDomainPtr dom)
{
	if (virDomainIsActive(dom) == 1 && virDomainDestroy(dom))
		return lv_last_error();
	if (virDomainIsPersistent(dom) == 1 && virDomainUndefine(dom))
		return lv_last_error();
	return NULL;
}

unsigned domain_owner_sweep(virConnectPtr conn, FILE *say)
{
	virDomainPtr *doms = NULL;
	char host[64];
	unsigned removed = 0;
	lv_host_slug(host, sizeof(host));
	const int n = virConnectListAllDomains(conn, &doms, 0);
	if (n < 0 && say)
		printable_printf(say,
				 "plerig: cannot list the domains to find a dead plerig's: %s\n",
				 lv_last_error());
	for (int i = 0; i < n; i++) {
		/* NULL for every domain without plerig's element: never ours */
		char *xml =
		    virDomainGetMetadata(doms[i], VIR_DOMAIN_METADATA_ELEMENT, DOMAIN_OWNER_NS, 0);
		if (xml && domain_owner_is_orphan(xml, host)) {
			const char *name = virDomainGetName(doms[i]);
			const char *why = remove_domain(doms[i]);
			if (say && why)
				printable_printf(
				    say,
				    "plerig: cannot remove domain %s of a plerig that no longer "
				    "runs (%s): %s\n",
				    name ? name : "?", xml, why);
			else if (say)
				printable_printf(
				    say,
				    "plerig: removed domain %s of a plerig that no longer runs "
				    "(%s)\n",
				    name ? name : "?", xml);
			removed += !why;
		}
		free(xml);
		virDomainFree(doms[i]);
	}
	free(doms);
	return removed;
}
