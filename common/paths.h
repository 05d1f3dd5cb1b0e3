/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where the daemon listens unless uringtune.ini says otherwise, and where
 * the CLI and the agent look by default: the two must agree.
 */
#ifndef UT_PATHS_H
#define UT_PATHS_H

/* the control socket: [daemon] socket, uringtune --socket */
#define UT_CONTROL_SOCKET	"/run/uringtune/uringtune.sock"
/*
 * [daemon] status_group: its members may read status (the control socket is
 * theirs, 0660); systemd/uringtune.sysusers creates it
 */
#define UT_STATUS_GROUP		"uringtune"
/* the agent socket: [agent] socket, $URINGTUNE_AGENT_SOCKET */
#define UT_AGENT_SOCKET		"/run/uringtune/agent.sock"

#endif /* UT_PATHS_H */
