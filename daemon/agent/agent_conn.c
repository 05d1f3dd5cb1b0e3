// SPDX-License-Identifier: GPL-2.0-only
/* The agent socket's connections: accept, one message, answer, close; never block. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent_conn.h"
#include "agent_server.h"
#include "clock.h"
#include "log.h"
#include "loop_source.h"

/* connections taken per wake-up of the listening socket, so that others get their turn */
#define ACCEPT_BATCH		32
/* the listening socket may take the loop this often per interval, never all of it */
#define LISTEN_BURST		64
#define LISTEN_INTERVAL_US	10000
/* out of file descriptors: the backlog waits this long rather than spin the loop */
#define EMFILE_PAUSE_US		100000
/* a deadline may fire this much late (sd-event's default is 250 ms) */
#define DEADLINE_ACCURACY_US	10000
/* any message longer is not ours (and is read truncated, then refused) */
#define MSG_MAX			256

struct conn {
	struct agent_conns *cs;
	int fd;
	struct agent_peer peer;
	sd_event_source *io;
	sd_event_source *timer;
	uint64_t deadline_us;		/* by cs->now_us: agent_conn_deadline() */
};

struct agent_conns {
	struct ut_agent_server *a;
	sd_event *ev;
	sd_event_source *listen;
	sd_event_source *pause;		/* re-enables listen after EMFILE */
	void (*drain)(void *arg);
	void *arg;
	/* the deadlines' clock, CLOCK_MONOTONIC us: loop_now(), or a test's */
	uint64_t (*now_us)(void *arg);
	void *clock_arg;
	struct conn *c[AGENT_CONNS];
	unsigned int n;
};

/* the answer, with the page's fd for a HELLO; 0 if it went whole */
static int send_answer(int fd, const struct agent_answer *ans, int page_fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = { .iov_base = (void *)&ans->reply, .iov_len = sizeof(ans->reply) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (ans->with_page) {
		if (page_fd < 0)
			return -EBADF;
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &page_fd, sizeof(int));
	}
	/* the peer's receive queue is empty: a reply fits, or the peer is gone */
	return sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof(ans->reply) ?
	       0 : -errno;
}

static void serve(struct agent_conns *cs, int fd, const struct agent_peer *peer,
		  const void *msg, size_t len)
{
	struct ut_agent_server *a = cs->a;
	struct agent_answer ans;
	uint32_t type = 0;

	memcpy(&type, msg, len < sizeof(type) ? len : sizeof(type));
	/*
	 * A RING names a ring whose create event must be in the registry, and
	 * the agent's register call at setup before it.
	 */
	cs->drain(cs->arg);
	agent_server_handle(a, peer, msg, len, &ans);
	if (ans.send && send_answer(fd, &ans, a->page.ro_fd))
		agent_server_unanswered(a, &ans);
}

/* one message: its length, 0 if the peer closed without one, -EAGAIN not there yet */
static ssize_t recv_msg(int fd, char *buf)
{
	ssize_t n;

	do
		n = recv(fd, buf, MSG_MAX, MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

static void drop(struct conn *c)
{
	struct agent_conns *cs = c->cs;

	for (unsigned int i = 0; i < cs->n; i++) {
		if (cs->c[i] != c)
			continue;
		cs->c[i] = cs->c[--cs->n];
		break;
	}
	sd_event_source_disable_unref(c->io);
	sd_event_source_disable_unref(c->timer);
	close(c->fd);
	agent_peer_close(&c->peer);
	free(c);
}

/* the loop's time: that of its last wake-up, as sd-event's timers count */
static uint64_t loop_now(void *arg)
{
	struct agent_conns *cs = arg;
	uint64_t t;

	if (sd_event_now(cs->ev, CLOCK_MONOTONIC, &t) < 0)
		t = now_ns() / 1000;
	return t;
}

/*
 * Close @c if its deadline has passed at @now_us (true); else its timer is
 * set to the time it has left. The timer only wakes this decision up: a
 * timer that fires late closes late, one never closes early.
 */
static bool expire(struct conn *c, uint64_t now_us)
{
	uint64_t left = agent_conn_time_left(c->deadline_us, now_us);

	if (left) {
		sd_event_source_set_time_relative(c->timer, left);
		sd_event_source_set_enabled(c->timer, SD_EVENT_ONESHOT);
		return false;
	}
	agent_server_refuse(c->cs->a, AGENT_REFUSED_TIMEOUT, c->peer.id.uid, "pid %d uid %u: "
			    "no message within %d ms: connection closed", c->peer.id.pid,
			    (unsigned int)c->peer.id.uid, UT_AGENT_REPLY_TIMEOUT_MS);
	drop(c);
	return true;
}

static int on_conn(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	struct conn *c = arg;
	char buf[MSG_MAX];
	ssize_t n;

	(void)revents;
	loop_source_enter(s);
	n = recv_msg(fd, buf);
	if (n == -EAGAIN)
		return 0;
	if (n > 0)
		serve(c->cs, fd, &c->peer, buf, n);
	drop(c);
	return 0;
}

static int on_deadline(sd_event_source *s, uint64_t usec, void *arg)
{
	struct conn *c = arg;

	(void)usec;
	loop_source_enter(s);
	expire(c, c->cs->now_us(c->cs->clock_arg));
	return 0;
}

static unsigned int waiting_of(const struct agent_conns *cs, uid_t uid)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < cs->n; i++)
		n += cs->c[i]->peer.id.uid == uid;
	return n;
}

/* a connection whose message is not there yet waits, within its user's share */
static void park(struct agent_conns *cs, int fd, struct agent_peer *peer)
{
	struct agent_limits lim;
	unsigned int of_uid = waiting_of(cs, peer->id.uid);
	struct conn *c;

	agent_server_limits(cs->a, &lim);
	if (!agent_conn_admit(&lim, cs->n, of_uid) || cs->n >= AGENT_CONNS) {
		agent_server_refuse(cs->a, AGENT_REFUSED_CONNS, peer->id.uid, "pid %d uid %u: "
				    "%u connections wait for their message (%u of this uid; at "
				    "most %u, %u per uid): closed", peer->id.pid,
				    (unsigned int)peer->id.uid, cs->n, of_uid, lim.conns,
				    lim.conns_per_uid);
		goto drop;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		goto drop;
	*c = (struct conn){
		.cs = cs, .fd = fd, .peer = *peer,
		.deadline_us = agent_conn_deadline(cs->now_us(cs->clock_arg)),
	};
	if (sd_event_add_io(cs->ev, &c->io, fd, EPOLLIN, on_conn, c) < 0 ||
	    sd_event_add_time_relative(cs->ev, &c->timer, CLOCK_MONOTONIC, AGENT_CONN_BUDGET_US,
				       DEADLINE_ACCURACY_US, on_deadline, c) < 0) {
		sd_event_source_disable_unref(c->io);
		free(c);
		goto drop;
	}
	loop_source_describe(c->io, "agent-conn");
	loop_source_describe(c->timer, "agent-deadline");
	cs->c[cs->n++] = c;
	return;
drop:
	close(fd);
	agent_peer_close(peer);
}

/* one accepted connection: who, then its message now, or later */
static void take(struct agent_conns *cs, int fd)
{
	struct agent_peer peer;
	char buf[MSG_MAX];
	ssize_t n;

	if (agent_peer_of_socket(fd, &peer)) {
		agent_server_refuse(cs->a, AGENT_REFUSED_PEER_GONE, (uid_t)-1, "a connection "
				    "whose process has exited: closed unread");
		close(fd);
		return;
	}
	n = recv_msg(fd, buf);
	if (n == -EAGAIN) {
		park(cs, fd, &peer);
		return;
	}
	if (n > 0)
		serve(cs, fd, &peer, buf, n);
	close(fd);
	agent_peer_close(&peer);
}

static int on_pause_over(sd_event_source *s, uint64_t usec, void *arg)
{
	struct agent_conns *cs = arg;

	(void)usec;
	loop_source_enter(s);
	sd_event_source_set_enabled(cs->listen, SD_EVENT_ON);
	return 0;
}

/* no fd for a connection: it stays queued; the socket rests instead of spinning */
static void pause_listen(struct agent_conns *cs)
{
	log_warn("agent socket: accept: %s: agents wait (or go on without uringtune) until "
		 "some close", strerror(errno));
	sd_event_source_set_enabled(cs->listen, SD_EVENT_OFF);
	if (!cs->pause) {
		if (sd_event_add_time_relative(cs->ev, &cs->pause, CLOCK_MONOTONIC,
					       EMFILE_PAUSE_US, 0, on_pause_over, cs) < 0)
			sd_event_source_set_enabled(cs->listen, SD_EVENT_ON);
		loop_source_describe(cs->pause, "agent-pause");
		return;
	}
	sd_event_source_set_time_relative(cs->pause, EMFILE_PAUSE_US);
	sd_event_source_set_enabled(cs->pause, SD_EVENT_ONESHOT);
}

static int on_listen(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	struct agent_conns *cs = arg;
	int cfd;

	(void)revents;
	loop_source_enter(s);
	for (int i = 0; i < ACCEPT_BATCH; i++) {
		cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (cfd >= 0) {
			take(cs, cfd);
			continue;
		}
		if (errno == EINTR || errno == ECONNABORTED)
			continue;
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
			pause_listen(cs);
		break;
	}
	return 0;
}

int agent_conn_start(struct ut_agent_server *a, sd_event *e, void (*drain)(void *arg),
		     void *arg)
{
	struct agent_conns *cs;
	int ret;

	if (a->listen_fd < 0 || a->conns)
		return 0;
	cs = calloc(1, sizeof(*cs));
	if (!cs)
		return -ENOMEM;
	*cs = (struct agent_conns){
		.a = a, .ev = sd_event_ref(e), .drain = drain, .arg = arg, .now_us = loop_now,
	};
	cs->clock_arg = cs;
	ret = sd_event_add_io(e, &cs->listen, a->listen_fd, EPOLLIN, on_listen, cs);
	if (ret < 0) {
		sd_event_unref(cs->ev);
		free(cs);
		return ret;
	}
	loop_source_describe(cs->listen, "agent-listen");
	/*
	 * The same priority as the control socket and the ring buffer: a flood
	 * of connections takes its turn, never the loop (and is rate-limited,
	 * systemd 248+).
	 */
	sd_event_source_set_ratelimit(cs->listen, LISTEN_INTERVAL_US, LISTEN_BURST);
	a->conns = cs;
	return 0;
}

void agent_conn_stop(struct ut_agent_server *a)
{
	struct agent_conns *cs = a->conns;

	if (!cs)
		return;
	while (cs->n)
		drop(cs->c[cs->n - 1]);
	sd_event_source_disable_unref(cs->listen);
	sd_event_source_disable_unref(cs->pause);
	sd_event_unref(cs->ev);
	free(cs);
	a->conns = NULL;
}

unsigned int agent_conn_waiting(const struct ut_agent_server *a)
{
	return a->conns ? a->conns->n : 0;
}

void agent_conn_set_clock(struct ut_agent_server *a, uint64_t (*now_us)(void *arg), void *arg)
{
	struct agent_conns *cs = a->conns;

	if (!cs)
		return;
	cs->now_us = now_us ? now_us : loop_now;
	cs->clock_arg = now_us ? arg : cs;
}

unsigned int agent_conn_expire(struct ut_agent_server *a)
{
	struct agent_conns *cs = a->conns;
	unsigned int i = 0, closed = 0;
	uint64_t now;

	if (!cs)
		return 0;
	now = cs->now_us(cs->clock_arg);
	/* a closed one's entry takes the last one: look at that entry again */
	while (i < cs->n) {
		if (expire(cs->c[i], now))
			closed++;
		else
			i++;
	}
	return closed;
}
