/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control socket's clients, served inside the event loop without ever
 * blocking it: accepted non-blocking, each request read as it comes (a line
 * of at most CONTROL_REQUEST_MAX bytes), answered, the reply written as the
 * socket drains, then closed. A client is dropped CONTROL_DEADLINE_MS after
 * it was accepted if its request is not complete, and as long after its
 * reply was ready if it has not read all of it; clients beyond the caps
 * (control_limits.h), and peers who may not use the socket at all
 * (control_access.h), are told why and closed. Writes never raise SIGPIPE (MSG_NOSIGNAL).
 */
#ifndef UT_CONTROL_SERVER_H
#define UT_CONTROL_SERVER_H

#include <sys/types.h>
#include <systemd/sd-event.h>

#include "daemon.h"

struct control_server;

/*
 * serve clients of the listening socket @listen_fd (not taken over) in
 * @event, members of @group (control_share()'s, CONTROL_NO_GROUP: none;
 * named d->cfg.status_group) reading status; 0 or -errno
 */
int control_server_start(struct control_server **out, sd_event *event, int listen_fd,
			 gid_t group, struct ut_daemon *d);

/* close every client and stop accepting; NULL is fine */
void control_server_stop(struct control_server *srv);

#endif /* UT_CONTROL_SERVER_H */
