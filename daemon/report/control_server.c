// SPDX-License-Identifier: GPL-2.0-only
/*
 * The control socket's listening side: accept every waiting client at once,
 * admit it under the caps (SO_PEERCRED's uid) if it may use the socket at
 * all (root, or a member of the status group) or tell it why not, and hand
 * it to control_conn.c. Out of fds, accepting pauses briefly instead of
 * spinning on a listening socket that stays readable.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "control.h"
#include "control_conn.h"
#include "control_server.h"
#include "log.h"
#include "loop_source.h"

/* clients accepted per wake-up; more wait for the next turn of the loop */
#define ACCEPT_BATCH		32
#define ACCEPT_PAUSE_MS		100

static unsigned int clients_of(const struct control_server *srv, uid_t uid)
{
	const struct control_conn *c;
	unsigned int n = 0;

	for (c = srv->conns; c; c = c->next)
		n += c->peer.uid == uid;
	return n;
}

/*
 * one line to the client (its buffer is empty: it fits), then close: @a
 * says why, or, when it admits, the peer may not use the socket
 */
static void refuse(struct control_server *srv, int fd, const struct ucred *peer,
		   enum control_admit a)
{
	char why[256];
	unsigned int more;
	char *reply;

	if (a == CONTROL_ADMIT)
		control_access_why(CONTROL_ACCESS_NONE, peer->uid, "", srv->group_name, why,
				   sizeof(why));
	else
		control_admit_why(a, &srv->lim, peer->uid, why, sizeof(why));
	reply = control_error_reply("%s", why);
	if (reply && send(fd, reply, strlen(reply), MSG_NOSIGNAL | MSG_DONTWAIT) > 0)
		send(fd, "\n", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	free(reply);
	control_close_fd(fd);
	if (!control_note_due(&srv->refused, now_ns() / 1000, CONTROL_NOTE_EVERY_MS * 1000ULL,
			      &more))
		return;
	if (more)
		log_warn("control socket: refused client pid %d uid %u: %s (%u more refused in "
			 "the last minute, not logged)", peer->pid, (unsigned int)peer->uid, why, more);
	else
		log_warn("control socket: refused client pid %d uid %u: %s", peer->pid,
			 (unsigned int)peer->uid, why);
}

static int on_resume(sd_event_source *s, uint64_t usec, void *arg)
{
	struct control_server *srv = arg;

	(void)usec;
	loop_source_enter(s);
	sd_event_source_set_enabled(srv->listen, SD_EVENT_ON);
	return 0;
}

/* out of fds or memory: a listening socket stays readable, so stop looking for a while */
static void pause_accepting(struct control_server *srv, int err)
{
	unsigned int more;
	int ret;

	if (control_note_due(&srv->accept_err, now_ns() / 1000, CONTROL_NOTE_EVERY_MS * 1000ULL,
			     &more))
		log_warn("control socket: accept: %s: not accepting for %d ms (%u more in the "
			 "last minute, not logged)", strerror(err), ACCEPT_PAUSE_MS, more);
	if (srv->resume)
		ret = sd_event_source_set_time_relative(srv->resume, ACCEPT_PAUSE_MS * 1000ULL);
	else
		ret = sd_event_add_time_relative(srv->event, &srv->resume, CLOCK_MONOTONIC,
						 ACCEPT_PAUSE_MS * 1000ULL, 0, on_resume, srv);
	loop_source_describe(srv->resume, "control-resume");
	if (ret >= 0)
		ret = sd_event_source_set_enabled(srv->resume, SD_EVENT_ONESHOT);
	/* without the timer, keep accepting: busy, but never deaf */
	if (ret >= 0)
		sd_event_source_set_enabled(srv->listen, SD_EVENT_OFF);
}

/*
 * What the peer of @fd (@peer: SO_PEERCRED) may ask: its supplementary
 * groups are SO_PEERGROUPS's (Linux 4.13+), as they were when it
 * connected. Without them (an older kernel, out of memory) only the
 * primary group counts.
 */
static enum control_access access_of(const struct control_server *srv, int fd,
				     const struct ucred *peer)
{
	gid_t few[64], *groups = few;
	socklen_t len = sizeof(few);
	enum control_access a;

	a = control_access_of(peer->uid, peer->gid, NULL, 0, srv->group);
	if (a != CONTROL_ACCESS_NONE || srv->group == CONTROL_NO_GROUP)
		return a;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0) {
		/* ERANGE: len says how much room they need */
		if (errno != ERANGE || !(groups = malloc(len)) ||
		    getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0) {
			log_debug("control socket: SO_PEERGROUPS of pid %d: %s", peer->pid,
				  strerror(errno));
			len = 0;
		}
	}
	a = control_access_of(peer->uid, peer->gid, groups, len / sizeof(gid_t), srv->group);
	if (groups != few)
		free(groups);
	return a;
}

static void admit(struct control_server *srv, int fd)
{
	struct ucred peer;
	socklen_t len = sizeof(peer);
	enum control_access access;
	enum control_admit a;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) < 0) {
		log_debug("control socket: SO_PEERCRED: %s", strerror(errno));
		close(fd);
		return;
	}
	a = control_admit(&srv->lim, srv->n, clients_of(srv, peer.uid));
	access = access_of(srv, fd, &peer);
	if (a != CONTROL_ADMIT || access == CONTROL_ACCESS_NONE) {
		refuse(srv, fd, &peer, a);
		return;
	}
	if (control_conn_open(srv, fd, &peer, access) < 0)
		log_warn("control socket: cannot serve client pid %d: out of memory", peer.pid);
}

static int on_listen(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	struct control_server *srv = arg;
	int i, cfd;

	(void)revents;
	loop_source_enter(s);
	for (i = 0; i < ACCEPT_BATCH; i++) {
		cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (cfd >= 0) {
			admit(srv, cfd);
			continue;
		}
		if (errno == EINTR || errno == ECONNABORTED)
			continue;
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
			pause_accepting(srv, errno);
		else if (errno != EAGAIN && errno != EWOULDBLOCK)
			log_warn("control socket: accept: %s", strerror(errno));
		break;
	}
	return 0;
}

int control_server_start(struct control_server **out, sd_event *event, int listen_fd,
			 gid_t group, struct ut_daemon *d)
{
	struct control_server *srv;
	int ret;

	srv = calloc(1, sizeof(*srv));
	if (!srv)
		return -ENOMEM;
	srv->event = event;
	srv->d = d;
	srv->group = group;
	snprintf(srv->group_name, sizeof(srv->group_name), "%s",
		 group == CONTROL_NO_GROUP ? "" : d->cfg.status_group);
	srv->lim = (struct control_limits){
		.max_clients = CONTROL_MAX_CLIENTS,
		.max_per_uid = CONTROL_MAX_PER_UID,
	};
	ret = sd_event_add_io(event, &srv->listen, listen_fd, EPOLLIN, on_listen, srv);
	if (ret < 0) {
		free(srv);
		return ret;
	}
	loop_source_describe(srv->listen, "control-listen");
	*out = srv;
	return 0;
}

void control_server_stop(struct control_server *srv)
{
	if (!srv)
		return;
	while (srv->conns)
		control_conn_close(srv->conns);
	sd_event_source_disable_unref(srv->listen);
	sd_event_source_disable_unref(srv->resume);
	free(srv);
}
