// SPDX-License-Identifier: GPL-2.0-only
/* Who may do what on the control socket (control_access.h). */
#include <stdio.h>

#include "control_access.h"

enum control_access control_access_of(uid_t uid, gid_t gid, const gid_t *groups, size_t n,
				      gid_t group)
{
	if (uid == 0)
		return CONTROL_ACCESS_ALL;
	if (group == CONTROL_NO_GROUP)
		return CONTROL_ACCESS_NONE;
	if (gid == group)
		return CONTROL_ACCESS_READ;
	for (size_t i = 0; i < n; i++)
		if (groups[i] == group)
			return CONTROL_ACCESS_READ;
	return CONTROL_ACCESS_NONE;
}

bool control_access_allows(enum control_access a, enum control_cmd cmd)
{
	switch (a) {
	case CONTROL_ACCESS_ALL:
		return true;
	case CONTROL_ACCESS_READ:
		return cmd == CONTROL_STATUS;
	case CONTROL_ACCESS_NONE:
		break;
	}
	return false;
}

void control_access_why(enum control_access a, uid_t uid, const char *cmd_name,
			const char *group_name, char *buf, size_t len)
{
	if (a == CONTROL_ACCESS_READ) {
		snprintf(buf, len, "%s: permission denied: changes are root's; uid %u may read "
			 "status only (a member of group %s)", cmd_name, (unsigned int)uid,
			 group_name);
		return;
	}
	if (group_name[0])
		snprintf(buf, len, "permission denied: uid %u is neither root nor a member of "
			 "group %s (who may read status)", (unsigned int)uid, group_name);
	else
		snprintf(buf, len, "permission denied: uid %u is not root, and no group may read "
			 "status here ([daemon] status_group empty, its group missing, or the "
			 "socket not given to it: see the daemon's log)", (unsigned int)uid);
}
