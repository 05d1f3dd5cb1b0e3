// SPDX-License-Identifier: GPL-2.0-only
/*
 * One control client: read its request line as it comes, answer it, write
 * the reply as the socket drains, close; dropped at its deadline. Nothing
 * here waits: every recv and send is MSG_DONTWAIT, and a send never raises
 * SIGPIPE (MSG_NOSIGNAL), whatever the client did.
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
#include "log.h"
#include "loop_source.h"

#define UT_STR_(x)	#x
#define UT_STR(x)	UT_STR_(x)

/*
 * A unix socket closed with bytes unread makes the peer's next read fail
 * with ECONNRESET, even after a whole reply (a refused client's request, or
 * a line longer than the cap): shut down first, so that the peer can send no
 * more, drop what it had sent (a bounded amount), then close.
 */
void control_close_fd(int fd)
{
	char buf[4096];
	int i;

	shutdown(fd, SHUT_RDWR);
	for (i = 0; i < 64 && recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0; i++)
		;
	close(fd);
}

void control_conn_close(struct control_conn *c)
{
	struct control_server *srv = c->srv;

	/* safe from the sources' own callbacks: sd-event defers the free */
	sd_event_source_disable_unref(c->io);
	sd_event_source_disable_unref(c->deadline);
	control_close_fd(c->fd);
	free(c->reply);
	if (c->next)
		c->next->pprev = c->pprev;
	*c->pprev = c->next;
	srv->n--;
	free(c);
}

/* a line about this client, at most once a minute with the count of the others */
static void note(struct control_conn *c, struct control_note *n, const char *what)
{
	unsigned int more;

	if (!control_note_due(n, now_ns() / 1000, CONTROL_NOTE_EVERY_MS * 1000ULL, &more))
		return;
	if (more)
		log_warn("control socket: %s (client pid %d uid %u; %u more like it in the last "
			 "minute, not logged)", what, c->peer.pid, (unsigned int)c->peer.uid, more);
	else
		log_warn("control socket: %s (client pid %d uid %u)", what, c->peer.pid,
			 (unsigned int)c->peer.uid);
}

/* as much of the reply as the socket takes now; closes the client when done or gone */
static void conn_write(struct control_conn *c)
{
	while (c->sent < c->reply_len) {
		ssize_t n = send(c->fd, c->reply + c->sent, c->reply_len - c->sent,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n >= 0) {
			c->sent += (size_t)n;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			sd_event_source_set_io_events(c->io, EPOLLOUT);
			return;
		}
		/* EPIPE, ECONNRESET: Ctrl-C on `uringtune status`, or a client that never reads */
		log_debug("control socket: client pid %d went away after %zu of %zu bytes of its "
			  "reply: %s", c->peer.pid, c->sent, c->reply_len, strerror(errno));
		break;
	}
	control_conn_close(c);
}

/* the reply (NULL: out of memory) goes out with its newline */
static void conn_answer(struct control_conn *c, char *reply)
{
	size_t len;
	char *r;

	if (!reply) {
		log_err("control socket: out of memory answering client pid %d", c->peer.pid);
		control_conn_close(c);
		return;
	}
	len = strlen(reply);
	r = realloc(reply, len + 2);
	if (!r) {
		free(reply);
		conn_answer(c, NULL);
		return;
	}
	memcpy(r + len, "\n", 2);
	c->reply = r;
	c->reply_len = len + 1;
	/* the time to read the reply starts now */
	if (sd_event_source_set_time_relative(c->deadline, CONTROL_DEADLINE_MS * 1000ULL) < 0 ||
	    sd_event_source_set_enabled(c->deadline, SD_EVENT_ONESHOT) < 0)
		log_debug("control socket: client pid %d: its reply keeps the request's deadline",
			  c->peer.pid);
	conn_write(c);
}

/* what came so far: 1 to wait for more, 0 at EOF, -errno if the client is gone */
static int conn_recv(struct control_conn *c)
{
	while (c->have < sizeof(c->req)) {
		ssize_t n = recv(c->fd, c->req + c->have, sizeof(c->req) - c->have, MSG_DONTWAIT);

		if (n > 0) {
			c->have += (size_t)n;
			if (memchr(c->req + c->have - n, '\n', (size_t)n))
				return 1;
			continue;
		}
		if (n == 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 1;
		return -errno;
	}
	return 1;
}

static void conn_read(struct control_conn *c)
{
	struct ut_daemon *d = c->srv->d;
	size_t len;
	int ret;

	ret = conn_recv(c);
	if (ret < 0) {
		log_debug("control socket: client pid %d: %s", c->peer.pid, strerror(-ret));
		control_conn_close(c);
		return;
	}
	switch (control_request_frame(c->req, c->have, ret == 0, sizeof(c->req), &len)) {
	case CONTROL_FRAME_MORE:
		return;
	case CONTROL_FRAME_EMPTY:
		/* connect and close: a probe, nothing to answer */
		log_debug("control socket: client pid %d closed without a request", c->peer.pid);
		control_conn_close(c);
		return;
	case CONTROL_FRAME_TOO_LONG:
		note(c, &c->srv->refused, "refused a request line longer than "
		     UT_STR(CONTROL_REQUEST_MAX) " bytes");
		conn_answer(c, control_error_reply("request longer than %d bytes (newline "
						   "included): refused", CONTROL_REQUEST_MAX));
		return;
	case CONTROL_FRAME_LINE:
		break;
	}
	/* answer from the newest state: ring events first */
	daemon_events(d);
	conn_answer(c, control_handle(d, c->req, len));
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	struct control_conn *c = arg;

	(void)fd, (void)revents;
	loop_source_enter(s);
	if (c->reply)
		conn_write(c);
	else
		conn_read(c);
	return 0;
}

static int on_deadline(sd_event_source *s, uint64_t usec, void *arg)
{
	struct control_conn *c = arg;
	char what[160];
	char *why;

	(void)usec;
	loop_source_enter(s);
	if (c->reply) {
		snprintf(what, sizeof(what), "dropped a client that read %zu of the %zu bytes of "
			 "its reply in the %d ms it had", c->sent, c->reply_len, CONTROL_DEADLINE_MS);
	} else {
		snprintf(what, sizeof(what), "dropped a client whose request was not complete "
			 "after %d ms (%zu bytes, no newline)", CONTROL_DEADLINE_MS, c->have);
		/* best effort: the socket's buffer is empty, no reply was started */
		why = control_error_reply("request not complete within %d ms (send it whole, "
					  "ending with a newline or EOF)", CONTROL_DEADLINE_MS);
		if (why && send(c->fd, why, strlen(why), MSG_NOSIGNAL | MSG_DONTWAIT) > 0)
			send(c->fd, "\n", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
		free(why);
	}
	note(c, &c->srv->dropped, what);
	control_conn_close(c);
	return 0;
}

int control_conn_open(struct control_server *srv, int fd, const struct ucred *peer)
{
	struct control_conn *c;
	int ret;

	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return -ENOMEM;
	}
	c->srv = srv;
	c->fd = fd;
	c->peer = *peer;
	c->next = srv->conns;
	c->pprev = &srv->conns;
	if (c->next)
		c->next->pprev = &c->next;
	srv->conns = c;
	srv->n++;
	ret = sd_event_add_io(srv->event, &c->io, fd, EPOLLIN, on_io, c);
	if (ret >= 0)
		ret = sd_event_add_time_relative(srv->event, &c->deadline, CLOCK_MONOTONIC,
						 CONTROL_DEADLINE_MS * 1000ULL, 10 * 1000ULL,
						 on_deadline, c);
	if (ret < 0) {
		control_conn_close(c);
		return ret;
	}
	loop_source_describe(c->io, "control-conn");
	loop_source_describe(c->deadline, "control-deadline");
	return 0;
}
