/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why a process cannot open the KVM device, from the device's actual
 * owner, group and mode and the caller's identity: "add your user to the
 * kvm group" is advice only for a user who is not in a group that may open
 * it; a device that is root:root 0600 needs its mode changed first.
 */
#ifndef PLERIG_DEVICE_ACCESS_H
#define PLERIG_DEVICE_ACCESS_H

#include <stddef.h>
#include <sys/types.h>

/* Who asks: effective uid and gid, and supplementary groups. */
struct device_identity {
	uid_t uid;
	gid_t gid;
	const gid_t *groups;
	int nr_groups;
};

/* This process's identity; groups point into a static buffer. */
struct device_identity device_identity_self(void);

/*
 * What keeps @id from opening @path read-write and what would fix it, in
 * one line into @out ("/dev/kvm is root:root 0600: only root may open it;
 * ..."). Names users and groups through the passwd and group databases.
 */
void device_access_advice(const char *path, const struct device_identity *id, char *out,
			  size_t len);

#endif
