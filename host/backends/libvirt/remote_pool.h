/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a remote host needs of plerig's files, shipped through libvirt
 * itself: a directory storage pool plerig creates for the run of one
 * plerig process (/var/lib/libvirt/images/POOL), volumes uploaded into it
 * with virStorageVolUpload (the guest image, each run's config), and the
 * whole pool removed at the end. Nothing has to exist on that host but
 * libvirt and QEMU.
 *
 * The pool's name is its owner: plerig-HOST-PID-START-N, with this
 * (controller) machine's hostname, the plerig process's pid and start
 * time, and N counting the pools it made (two hosts of one run may reach
 * the same daemon). A later plerig on the same controller that finds a
 * pool of a process that no longer runs (killed with SIGKILL) removes it.
 */
#ifndef PLERIG_LV_REMOTE_POOL_H
#define PLERIG_LV_REMOTE_POOL_H

#include <libvirt/libvirt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>

struct lv_pool {
	virStoragePoolPtr pool;
	char name[160];
};

/* Define, build (mkdir) and start this process's pool. 0, or -1 with @err. */
int lv_pool_open(struct lv_pool *p, virConnectPtr conn, char *err, size_t errlen);

/*
 * A volume @vol_name of @len bytes holding @data; its path on the remote
 * host into @path (what the domain XML names). Replaces a volume of that
 * name. 0, or -1 with @err.
 */
int lv_pool_upload(struct lv_pool *p, const char *vol_name, const void *data, size_t len,
		   char *path, size_t pathlen, char *err, size_t errlen);

/* Delete volume @vol_name if it is there. */
void lv_pool_delete(struct lv_pool *p, const char *vol_name);

/* Every volume, then the pool's directory and the pool itself. */
void lv_pool_close(struct lv_pool *p);

/*
 * Pools of plerig processes of this machine that no longer run: removed,
 * one line on @say each. Returns how many.
 */
unsigned lv_pool_sweep(virConnectPtr conn, FILE *say);

/* This machine's hostname with what a name should not hold made '_'. */
void lv_host_slug(char *out, size_t len);

/*
 * Who owns what this process creates on a libvirt host: this machine's
 * slug (lv_host_slug), this process's pid and its start time (the pair
 * that process_tag() gives, so a reused pid is not taken for it).
 * 0, or -1 where the start time cannot be read.
 */
int lv_owner_identity(char *host, size_t len, int *pid, unsigned long long *start);

/* The owner part of a pool name, "plerig-HOST-PID-START", for this process. */
int lv_pool_owner_name(char *out, size_t len);

/* The name of this process's next pool, "plerig-HOST-PID-START-N": another each call. */
int lv_pool_next_name(char *out, size_t len);

/*
 * Does pool name @name belong to a process of @host that no longer runs?
 * (plerig-HOST-PID-START-N, or plerig-HOST-PID-START as plerig named its
 * one pool before.)
 */
int lv_pool_is_orphan(const char *name, const char *host);

#endif
