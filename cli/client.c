// SPDX-License-Identifier: GPL-2.0-only
/* Control socket client: request/reply over AF_UNIX SOCK_STREAM. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "client.h"

#define REPLY_INITIAL	(64UL << 10)

volatile sig_atomic_t client_interrupted;

static int set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = CLIENT_TIMEOUT_S };

	/* SO_SNDTIMEO also bounds connect() on a unix socket whose backlog is full */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		return -errno;
	return 0;
}

static int send_all(int fd, const char *buf, size_t len)
{
	while (len) {
		/* MSG_NOSIGNAL: a daemon that went away is an error, not SIGPIPE */
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR && !client_interrupted)
				continue;
			return errno == EWOULDBLOCK ? -EAGAIN : -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int recv_all(int fd, char **reply, size_t *len)
{
	size_t cap = REPLY_INITIAL, used = 0;
	char *buf, *tmp;
	ssize_t n;
	int err;

	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;

	for (;;) {
		/* keep one byte spare for the terminating NUL */
		if (cap - used < 2) {
			if (cap >= CLIENT_REPLY_MAX) {
				err = -EMSGSIZE;
				goto fail;
			}
			tmp = realloc(buf, cap * 2);
			if (!tmp) {
				err = -ENOMEM;
				goto fail;
			}
			buf = tmp;
			cap *= 2;
		}
		n = recv(fd, buf + used, cap - used - 1, 0);
		if (n < 0) {
			if (errno == EINTR && !client_interrupted)
				continue;
			err = errno == EWOULDBLOCK ? -EAGAIN : -errno;
			goto fail;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}

	buf[used] = '\0';
	*reply = buf;
	*len = used;
	return 0;
fail:
	free(buf);
	return err;
}

int client_request(const char *path, const char *request, char **reply,
		   size_t *len, enum client_stage *stage)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	size_t plen = strlen(path);
	int fd, err;

	*stage = CLIENT_CONNECT;
	/* no silent truncation: connecting to a shorter path would be wrong */
	if (plen == 0 || plen >= sizeof(addr.sun_path))
		return plen ? -ENAMETOOLONG : -ENOENT;
	memcpy(addr.sun_path, path, plen);

	*stage = CLIENT_SOCKET;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	err = set_timeouts(fd);
	if (err)
		goto out;

	*stage = CLIENT_CONNECT;
	/*
	 * A connect() interrupted by a signal goes on in the background and
	 * cannot be restarted: only --watch installs handlers, and it is
	 * stopping then, so EINTR is just returned.
	 */
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		err = errno == EINPROGRESS ? -EAGAIN : -errno;
		goto out;
	}

	*stage = CLIENT_SEND;
	err = send_all(fd, request, strlen(request));
	/* EOF tells the daemon the request is complete */
	if (!err && shutdown(fd, SHUT_WR) < 0)
		err = -errno;
	/*
	 * EPIPE: the daemon closed before reading, as it does when it refuses
	 * a client at once (too many open): its one-line answer may be here.
	 */
	if (err == -EPIPE && recv_all(fd, reply, len) == 0) {
		if (*len) {
			*stage = CLIENT_RECV;
			err = 0;
			goto out;
		}
		free(*reply);
		*reply = NULL;
	}
	if (err)
		goto out;

	*stage = CLIENT_RECV;
	err = recv_all(fd, reply, len);
out:
	close(fd);
	return err;
}

static bool is_json_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int client_parse_reply(const char *buf, size_t len, struct json_object **obj,
		       const char **err)
{
	struct json_tokener *tok;
	struct json_object *o;
	enum json_tokener_error jerr;
	size_t off;

	*obj = NULL;
	if (len > (size_t)INT32_MAX - 1) {
		/* json_tokener_parse_ex() takes an int length */
		*err = "reply too large";
		return -EINVAL;
	}
	for (off = 0; off < len && is_json_ws(buf[off]); off++)
		;
	if (off == len) {
		*err = "empty reply";
		return -EINVAL;
	}

	tok = json_tokener_new();
	if (!tok) {
		*err = "out of memory";
		return -EINVAL;
	}
	o = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	off = json_tokener_get_parse_end(tok);
	if (!o && jerr == json_tokener_continue) {
		/* all input eaten, value unfinished: a NUL ends it (or says why not) */
		o = json_tokener_parse_ex(tok, "", 1);
		jerr = json_tokener_get_error(tok);
		off = len;
	}
	if (!o) {
		*err = json_tokener_error_desc(jerr);
		goto fail;
	}
	/* a second value or garbage after the object is not one reply */
	while (off < len && is_json_ws(buf[off]))
		off++;
	if (off != len) {
		*err = "trailing data after the JSON object";
		goto fail;
	}
	if (!json_object_is_type(o, json_type_object)) {
		*err = "not a JSON object";
		goto fail;
	}

	json_tokener_free(tok);
	*obj = o;
	return 0;
fail:
	json_object_put(o);
	json_tokener_free(tok);
	return -EINVAL;
}

int client_check_frame(const char *buf, size_t len, const char **err)
{
	if (!len) {
		*err = "empty reply";
		return -EINVAL;
	}
	if (buf[len - 1] != '\n') {
		*err = "reply cut short (no newline at its end)";
		return -EINVAL;
	}
	if (memchr(buf, '\n', len - 1)) {
		*err = "more than one line";
		return -EINVAL;
	}
	if (memchr(buf, '\0', len)) {
		*err = "a NUL byte in the reply";
		return -EINVAL;
	}
	if (len < 3 || buf[0] != '{' || buf[len - 2] != '}') {
		*err = "not a JSON object";
		return -EINVAL;
	}
	return 0;
}

bool client_reply_is_error(const char *buf, size_t len)
{
	size_t i = 0;

	while (i < len && is_json_ws(buf[i]))
		i++;
	if (i == len || buf[i++] != '{')
		return false;
	while (i < len && is_json_ws(buf[i]))
		i++;
	return len - i >= 7 && !memcmp(buf + i, "\"error\"", 7);
}
