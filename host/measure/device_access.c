// SPDX-License-Identifier: GPL-2.0
#include "measure/device_access.h"

#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct device_identity device_identity_self(void)
{
	static gid_t groups[256];
	int n = getgroups(sizeof(groups) / sizeof(groups[0]), groups);
	return (struct device_identity){
	    .uid = geteuid(), .gid = getegid(), .groups = groups, .nr_groups = n > 0 ? n : 0};
}

static const char *user_name(uid_t uid, char *buf, size_t len)
{
	const struct passwd *pw = getpwuid(uid);
	if (pw)
		snprintf(buf, len, "%s", pw->pw_name);
	else
		snprintf(buf, len, "%u", (unsigned)uid);
	return buf;
}

static const char *group_name(gid_t gid, char *buf, size_t len)
{
	const struct group *gr = getgrgid(gid);
	if (gr)
		snprintf(buf, len, "%s", gr->gr_name);
	else
		snprintf(buf, len, "%u", (unsigned)gid);
	return buf;
}

static bool in_group(const struct device_identity *id, gid_t gid)
{
	if (id->gid == gid)
		return true;
	for (int i = 0; i < id->nr_groups; i++)
		if (id->groups[i] == gid)
			return true;
	return false;
}

/* The group database lists the user in @gid although this process is not in it. */
static bool listed_in_group(const struct device_identity *id, gid_t gid)
{
	const struct passwd *pw = getpwuid(id->uid);
	const struct group *gr = getgrgid(gid);
	if (!pw || !gr)
		return false;
	if (pw->pw_gid == gid)
		return true;
	for (char **m = gr->gr_mem; *m; m++)
		if (!strcmp(*m, pw->pw_name))
			return true;
	return false;
}

void device_access_advice(const char *path, const struct device_identity *id, char *out, size_t len)
{
	struct stat st;
	char user[64], owner[64], group[64];
	if (stat(path, &st)) {
		snprintf(out, len, "permission denied opening %s, which cannot be examined", path);
		return;
	}
	const unsigned mode = st.st_mode & 07777;
	user_name(st.st_uid, owner, sizeof(owner));
	group_name(st.st_gid, group, sizeof(group));
	user_name(id->uid, user, sizeof(user));
	const int n = snprintf(out, len, "permission denied opening %s (%s:%s %04o) as %s: ", path,
			       owner, group, mode, user);
	if (n < 0 || (size_t)n >= len)
		return;
	out += n, len -= (size_t)n;
	const bool owner_rw = (mode & 0600) == 0600, group_rw = (mode & 060) == 060,
		   other_rw = (mode & 06) == 06;
	if (id->uid == st.st_uid && owner_rw)
		snprintf(out, len,
			 "its mode lets you open it: an ACL or a security module (SELinux, "
			 "AppArmor) or a container's device policy refuses it");
	else if (!group_rw && !other_rw)
		snprintf(out, len,
			 "only %s may open it, so no group membership helps; as root, give it "
			 "to a group: chgrp kvm %s && chmod 0660 %s (for good, a udev rule: "
			 "KERNEL==\"kvm\", GROUP=\"kvm\", MODE=\"0660\"), then join that group, or "
			 "run plerig as root",
			 owner, path, path);
	else if (group_rw && in_group(id, st.st_gid))
		snprintf(out, len,
			 "you are in group %s, which may open it: an ACL, a security module or a "
			 "container's device policy refuses it",
			 group);
	else if (group_rw && listed_in_group(id, st.st_gid))
		snprintf(out, len,
			 "you were added to group %s but this session predates it: log in again "
			 "(or run newgrp %s)",
			 group, group);
	else if (group_rw)
		snprintf(out, len,
			 "group %s may open it and you are not in it: usermod -aG %s %s, then log "
			 "in again, or run plerig as root",
			 group, group, user);
	else
		snprintf(out, len,
			 "its mode lets everyone open it: an ACL, a security module or a "
			 "container's device policy refuses it");
}
