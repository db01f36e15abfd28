// SPDX-License-Identifier: GPL-2.0
#include "backends/libvirt/remote_pool.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "backends/libvirt/connection.h"
#include "backends/libvirt/process_tag.h"
#include "util/errbuf.h"
#include "util/printable.h"

#define POOL_DIR     "/var/lib/libvirt/images"
#define UPLOAD_CHUNK (256u << 10)

/* This machine's hostname with what a pool name should not hold made '_'. */
void lv_host_slug(char *out, size_t len)
{
	if (gethostname(out, len) || !out[0])
		snprintf(out, len, "unknown");
	out[len - 1] = '\0';
	for (char *c = out; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '.' || *c == '_'))
			*c = '_';
}

int lv_owner_identity(char *host, size_t len, int *pid, unsigned long long *start)
{
	char tag[64];
	lv_host_slug(host, len);
	if (process_tag(getpid(), tag, sizeof(tag)) || sscanf(tag, "%d %llu", pid, start) != 2)
		return -1;
	return 0;
}

int lv_pool_owner_name(char *out, size_t len)
{
	char host[64];
	unsigned long long start;
	int pid;
	if (lv_owner_identity(host, sizeof(host), &pid, &start))
		return -1;
	snprintf(out, len, "plerig-%s-%d-%llu", host, pid, start);
	return 0;
}

int lv_pool_next_name(char *out, size_t len)
{
	static unsigned pools;
	char owner[160];
	if (lv_pool_owner_name(owner, sizeof(owner)))
		return -1;
	const int n =
	    snprintf(out, len, "%s-%u", owner, __atomic_add_fetch(&pools, 1, __ATOMIC_RELAXED));
	return n > 0 && (size_t)n < len ? 0 : -1;
}

int lv_pool_is_orphan(const char *name, const char *host)
{
	char prefix[96];
	snprintf(prefix, sizeof(prefix), "plerig-%s-", host);
	if (strncmp(name, prefix, strlen(prefix)))
		return 0;
	int pid, end = 0;
	unsigned long long start;
	unsigned nth;
	char rest;
	const char *owner = name + strlen(prefix);
	if (sscanf(owner, "%d-%llu%n", &pid, &start, &end) != 2 || pid <= 0 || !end)
		return 0;
	/* nothing after START, or "-N" and nothing after that */
	if (owner[end] && (owner[end] != '-' || owner[end + 1] < '0' || owner[end + 1] > '9' ||
			   sscanf(owner + end + 1, "%u%c", &nth, &rest) != 1))
		return 0;
	return !process_runs(pid, start);
}

int lv_pool_open(struct lv_pool *p, virConnectPtr conn, char *err, size_t errlen)
{
	char xml[512];
	memset(p, 0, sizeof(*p));
	if (lv_pool_next_name(p->name, sizeof(p->name)))
		return errbuf_printf(err, errlen, "cannot name a storage pool for this process");
	snprintf(xml, sizeof(xml),
		 "<pool type='dir'><name>%s</name><target><path>" POOL_DIR
		 "/%s</path><permissions><mode>0700</mode></permissions></target></pool>",
		 p->name, p->name);
	p->pool = virStoragePoolDefineXML(conn, xml, 0);
	if (!p->pool)
		return errbuf_printf(err, errlen, "defining storage pool %s on the remote host: %s",
				     p->name, lv_last_error());
	if (virStoragePoolBuild(p->pool, 0) < 0 || virStoragePoolCreate(p->pool, 0) < 0) {
		errbuf_printf(err, errlen,
			      "creating storage pool %s (directory " POOL_DIR
			      "/%s) on the remote host: %s",
			      p->name, p->name, lv_last_error());
		lv_pool_close(p);
		return -1;
	}
	return 0;
}

static int send_all(virStreamPtr st, const unsigned char *data, size_t len)
{
	while (len) {
		const size_t n = len < UPLOAD_CHUNK ? len : UPLOAD_CHUNK;
		const int sent = virStreamSend(st, (const char *)data, n);
		if (sent <= 0)
			return -1;
		data += sent;
		len -= (size_t)sent;
	}
	return virStreamFinish(st);
}

int lv_pool_upload(struct lv_pool *p, const char *vol_name, const void *data, size_t len,
		   char *path, size_t pathlen, char *err, size_t errlen)
{
	char xml[512];
	lv_pool_delete(p, vol_name);
	snprintf(xml, sizeof(xml),
		 "<volume><name>%s</name><capacity unit='bytes'>%zu</capacity>"
		 "<target><format type='raw'/></target></volume>",
		 vol_name, len);
	virStorageVolPtr vol = virStorageVolCreateXML(p->pool, xml, 0);
	if (!vol)
		return errbuf_printf(err, errlen, "creating volume %s in pool %s: %s", vol_name,
				     p->name, lv_last_error());
	virStreamPtr st = virStreamNew(virStoragePoolGetConnect(p->pool), 0);
	int rc = -1;
	if (!st || virStorageVolUpload(vol, st, 0, len, 0) < 0)
		errbuf_printf(err, errlen, "uploading %s: %s", vol_name, lv_last_error());
	else if (send_all(st, data, len) < 0) {
		errbuf_printf(err, errlen, "uploading %s: %s", vol_name, lv_last_error());
		virStreamAbort(st);
	} else {
		char *where = virStorageVolGetPath(vol);
		if (where && (size_t)snprintf(path, pathlen, "%s", where) < pathlen)
			rc = 0;
		else
			errbuf_printf(err, errlen, "the path of volume %s: %s", vol_name,
				      where ? "too long" : lv_last_error());
		free(where);
	}
	if (st)
		virStreamFree(st);
	if (rc)
		virStorageVolDelete(vol, 0);
	virStorageVolFree(vol);
	return rc;
}

void lv_pool_delete(struct lv_pool *p, const char *vol_name)
{
	virStorageVolPtr vol = p->pool ? virStorageVolLookupByName(p->pool, vol_name) : NULL;
	if (vol) {
		virStorageVolDelete(vol, 0);
		virStorageVolFree(vol);
	}
}

static void remove_pool(virStoragePoolPtr pool)
{
	virStorageVolPtr *vols = NULL;
	if (virStoragePoolIsActive(pool) == 1) {
		const int n = virStoragePoolListAllVolumes(pool, &vols, 0);
		for (int i = 0; i < n; i++) {
			virStorageVolDelete(vols[i], 0);
			virStorageVolFree(vols[i]);
		}
		free(vols);
		virStoragePoolDestroy(pool);
	}
	virStoragePoolDelete(pool, 0); /* its directory */
	virStoragePoolUndefine(pool);
}

void lv_pool_close(struct lv_pool *p)
{
	if (!p->pool)
		return;
	remove_pool(p->pool);
	virStoragePoolFree(p->pool);
	p->pool = NULL;
}

unsigned lv_pool_sweep(virConnectPtr conn, FILE *say)
{
	virStoragePoolPtr *pools = NULL;
	char host[64];
	unsigned removed = 0;
	lv_host_slug(host, sizeof(host));
	const int n = virConnectListAllStoragePools(conn, &pools, 0);
	for (int i = 0; i < n; i++) {
		const char *name = virStoragePoolGetName(pools[i]);
		if (name && lv_pool_is_orphan(name, host)) {
			if (say)
				printable_printf(
				    say,
				    "plerig: removed storage pool %s of a plerig that no longer "
				    "runs\n",
				    name);
			remove_pool(pools[i]);
			removed++;
		}
		virStoragePoolFree(pools[i]);
	}
	free(pools);
	return removed;
}
