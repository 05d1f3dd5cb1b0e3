// SPDX-License-Identifier: GPL-2.0-only
/*
 * One control client: read its request line as it comes, answer it, write
 * the reply as the socket drains (a status reply is made as it drains, a
 * bounded batch at a time), close; dropped at its deadline. Nothing
 * here waits: every recv and send is MSG_DONTWAIT, and a send never raises
 * SIGPIPE (MSG_NOSIGNAL), whatever the client did.
 */
#include <errno.h>
#include <malloc.h>
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
	if (c->status) {
		status_stream_close(c->status);
		free(c->status);
	}
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

/* the time one turn of the loop spent on this client (@t0: when it began) */
static void conn_step(struct control_conn *c, uint64_t t0)
{
	uint64_t dt = now_ns() - t0;

	if (!c->steps++)
		c->first_step_ns = dt;
	else if (dt > c->step_max_ns)
		c->step_max_ns = dt;
}

/* the reply is out (or cannot be): a line for whoever debugs, memory back, close */
static void conn_done(struct control_conn *c, uint64_t t0)
{
	struct status_stream *s = c->status;
	bool trim = s && c->bytes >= CONTROL_TRIM_BYTES;

	conn_step(c, t0);
	if (s)
		log_debug("control socket: client pid %d: status of %zu rings (%zu gone meanwhile), "
			  "%zu bytes in %u turns of the loop over %.1f ms: the first (request, "
			  "statistics, ring list) %.2f ms, the longest after it %.2f ms",
			  c->peer.pid, s->rings_written, s->rings_gone, c->bytes, c->steps,
			  (now_ns() - c->answered_ns) / 1e6, c->first_step_ns / 1e6,
			  c->step_max_ns / 1e6);
	control_conn_close(c);
	/*
	 * A large reply leaves free memory at the top of the heap and between
	 * live chunks; give it back rather than keep the peak for ever.
	 */
	if (trim)
		malloc_trim(0);
}

/*
 * The bytes to send next: the short reply's rest, or the status stream's
 * buffer, refilled when empty. 0 (*len 0: all sent), 1 when this turn of
 * the loop made its share (@made: bytes made in it), or -errno.
 */
static int conn_out(struct control_conn *c, size_t *made, const char **p, size_t *len)
{
	struct status_stream *s = c->status;
	int ret;

	if (!s) {
		*p = c->reply + c->sent;
		*len = c->reply_len - c->sent;
		return 0;
	}
	if (!s->w.len && !s->done) {
		if (*made >= CONTROL_STEP_BYTES)
			return 1;
		ret = status_stream_fill(s, c->srv->d, CONTROL_CHUNK_BYTES);
		if (ret)
			return ret;
		*made += s->w.len;
	}
	*p = s->w.buf;
	*len = s->w.len;
	return 0;
}

/*
 * As much of the reply as the socket takes now, made as it goes; closes the
 * client when done or gone. A turn of the loop makes CONTROL_STEP_BYTES at
 * most: a fast reader does not hold the loop for a whole large reply.
 */
static void conn_write(struct control_conn *c, uint64_t t0)
{
	size_t made = 0, len;
	const char *p;
	ssize_t n;
	int ret;

	for (;;) {
		ret = conn_out(c, &made, &p, &len);
		if (ret > 0)
			goto again;
		if (ret < 0) {
			log_err("control socket: client pid %d: status reply cut short after %zu "
				"bytes: %s", c->peer.pid, c->bytes, strerror(-ret));
			break;
		}
		if (!len)
			break;
		n = send(c->fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n >= 0) {
			c->bytes += (size_t)n;
			if (c->status)
				sw_drop(&c->status->w, (size_t)n);
			else
				c->sent += (size_t)n;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			goto again;
		/* EPIPE, ECONNRESET: Ctrl-C on `uringtune status`, or a client that never reads */
		log_debug("control socket: client pid %d went away after %zu bytes of its reply: %s",
			  c->peer.pid, c->bytes, strerror(errno));
		break;
	}
	conn_done(c, t0);
	return;
again:
	/* when the socket drains (at once if it already has room) */
	sd_event_source_set_io_events(c->io, EPOLLOUT);
	conn_step(c, t0);
}

/* the answer (NULL reply text and stream: out of memory) goes out, a newline after it */
static void conn_answer(struct control_conn *c, char *reply, struct status_stream *status,
			uint64_t t0)
{
	size_t len;
	char *r;

	c->answered_ns = t0;
	if (!reply && !status) {
		log_err("control socket: out of memory answering client pid %d", c->peer.pid);
		control_conn_close(c);
		return;
	}
	if (reply) {
		len = strlen(reply);
		r = realloc(reply, len + 2);
		if (!r) {
			free(reply);
			conn_answer(c, NULL, NULL, t0);
			return;
		}
		memcpy(r + len, "\n", 2);
		c->reply = r;
		c->reply_len = len + 1;
	}
	c->status = status;
	/* the time to read the reply starts now */
	if (sd_event_source_set_time_relative(c->deadline, CONTROL_DEADLINE_MS * 1000ULL) < 0 ||
	    sd_event_source_set_enabled(c->deadline, SD_EVENT_ONESHOT) < 0)
		log_debug("control socket: client pid %d: its reply keeps the request's deadline",
			  c->peer.pid);
	conn_write(c, t0);
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

static void conn_read(struct control_conn *c, uint64_t t0)
{
	struct ut_daemon *d = c->srv->d;
	const struct control_who who = {
		.access = c->access, .uid = c->peer.uid, .group = c->srv->group_name,
	};
	struct control_reply reply;
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
						   "included): refused", CONTROL_REQUEST_MAX), NULL, t0);
		return;
	case CONTROL_FRAME_LINE:
		break;
	}
	/* answer from the newest state: ring events first */
	daemon_events(d);
	if (control_answer(d, c->req, len, &who, &reply))
		reply = (struct control_reply){ 0 };
	conn_answer(c, reply.text, reply.status, t0);
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	struct control_conn *c = arg;

	(void)fd, (void)revents;
	loop_source_enter(s);
	if (c->reply || c->status)
		conn_write(c, now_ns());
	else
		conn_read(c, now_ns());
	return 0;
}

static int on_deadline(sd_event_source *s, uint64_t usec, void *arg)
{
	struct control_conn *c = arg;
	char what[160];
	char *why;

	(void)usec;
	loop_source_enter(s);
	if (c->status) {
		snprintf(what, sizeof(what), "dropped a client that read %zu bytes of its status "
			 "reply (%zu of %zu rings) in the %d ms it had", c->bytes,
			 c->status->rings_written, c->status->n, CONTROL_DEADLINE_MS);
	} else if (c->reply) {
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

int control_conn_open(struct control_server *srv, int fd, const struct ucred *peer,
		      enum control_access access)
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
	c->access = access;
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
