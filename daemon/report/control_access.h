/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Who may do what on the control socket, with no I/O: root everything;
 * members of the status group ([daemon] status_group, "uringtune" by
 * default), by their primary group (SO_PEERCRED) or a supplementary one
 * (SO_PEERGROUPS, Linux 4.13+), read status only; anyone else nothing.
 * Both are the credentials the peer had when it connected.
 */
#ifndef UT_CONTROL_ACCESS_H
#define UT_CONTROL_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "control_request.h"

/* no status group: only root */
#define CONTROL_NO_GROUP	((gid_t)-1)

enum control_access {
	CONTROL_ACCESS_NONE,
	CONTROL_ACCESS_READ,	/* status only */
	CONTROL_ACCESS_ALL,	/* root: status, set, reset */
};

/*
 * A peer of @uid, primary group @gid and the @n supplementary @groups;
 * @group: the status group's gid, or CONTROL_NO_GROUP.
 */
enum control_access control_access_of(uid_t uid, gid_t gid, const gid_t *groups, size_t n,
				      gid_t group);

/* a client, as the answer to its request needs it */
struct control_who {
	enum control_access access;
	uid_t uid;
	const char *group;	/* the status group's name, "" none */
};

/* may @a run @cmd */
bool control_access_allows(enum control_access a, enum control_cmd cmd);

/*
 * Why a peer of @uid is refused (@a NONE: the socket; READ: a change
 * @cmd_name), @group_name the status group ("" none): one line in @buf.
 */
void control_access_why(enum control_access a, uid_t uid, const char *cmd_name,
			const char *group_name, char *buf, size_t len);

#endif /* UT_CONTROL_ACCESS_H */
