/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One control client's life (control_conn.c) and the server that holds them
 * (control_server.c): shared by those two only.
 */
#ifndef UT_CONTROL_CONN_H
#define UT_CONTROL_CONN_H

#include <sys/socket.h>
#include <systemd/sd-event.h>

#include "control_access.h"
#include "control_limits.h"
#include "control_request.h"
#include "daemon.h"
#include "status_stream.h"

struct control_conn;

struct control_server {
	sd_event *event;
	struct ut_daemon *d;
	sd_event_source *listen;
	sd_event_source *resume;	/* accepting again after EMFILE */
	struct control_conn *conns;	/* newest first */
	unsigned int n;
	struct control_limits lim;
	struct control_note refused;	/* over a cap */
	struct control_note dropped;	/* past the deadline */
	struct control_note accept_err;
	/* the status group: its members may read status (control_access.h) */
	gid_t group;
	char group_name[32];
};

struct control_conn {
	struct control_server *srv;
	struct control_conn *next, **pprev;
	int fd;
	struct ucred peer;
	enum control_access access;	/* what the peer may ask */
	sd_event_source *io;
	sd_event_source *deadline;
	size_t have;			/* request bytes read */
	char req[CONTROL_REQUEST_MAX];
	/* the answer: a short reply, or a status made as the socket drains */
	char *reply;
	size_t reply_len, sent;
	struct status_stream *status;
	/* how the answer went, for the log */
	uint64_t answered_ns;		/* when the request was read */
	uint64_t first_step_ns;		/* the turn of the loop that read and answered it */
	uint64_t step_max_ns;		/* the longest turn after it */
	unsigned int steps;
	size_t bytes;			/* sent in all */
};

/*
 * serve the accepted client @fd (non-blocking) of @peer, who may ask what
 * @access allows; 0, or -errno and @fd closed
 */
int control_conn_open(struct control_server *srv, int fd, const struct ucred *peer,
		      enum control_access access);

/* close a client's socket so that it reads what was sent, then EOF (no ECONNRESET) */
void control_close_fd(int fd);

/* close and forget the client */
void control_conn_close(struct control_conn *c);

#endif /* UT_CONTROL_CONN_H */
