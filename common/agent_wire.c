// SPDX-License-Identifier: GPL-2.0-only
/* The agent socket's client side: connect, send, one reply with its fds. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent_wire.h"

/* a reply carries one fd; room for a few more, to close them rather than leak them */
#define MAX_FDS		8
/* signals during one step before it is given up */
#define MAX_EINTR	8

int agent_wire_connect(const char *path)
{
	return agent_wire_connect_ms(path, UT_AGENT_REPLY_TIMEOUT_MS);
}

int agent_wire_connect_ms(const char *path, unsigned int timeout_ms)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const struct timeval tv = {
		.tv_sec = timeout_ms / 1000,
		.tv_usec = (timeout_ms % 1000) * 1000,
	};
	size_t len = strlen(path);
	int fd, ret, tries = 0;

	if (len >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, len + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/*
	 * A unix connect completes or fails at once, but waits for room when
	 * the daemon's backlog is full: SO_SNDTIMEO bounds that wait, as it
	 * bounds the send.
	 */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv))) {
		ret = -errno;
		goto err;
	}
	while ((ret = connect(fd, (struct sockaddr *)&sa, sizeof(sa))) < 0 && errno == EINTR &&
	       ++tries < MAX_EINTR)
		;
	if (ret < 0) {
		ret = errno == EAGAIN ? -ETIMEDOUT : -errno;
		goto err;
	}
	return fd;
err:
	close(fd);
	return ret;
}

int agent_wire_send(int fd, const void *msg, size_t len)
{
	int tries = 0;
	ssize_t n;

	/* MSG_NOSIGNAL: a daemon gone mid-exchange must not SIGPIPE the program */
	while ((n = send(fd, msg, len, MSG_NOSIGNAL)) < 0 && errno == EINTR && ++tries < MAX_EINTR)
		;
	if (n < 0)
		return errno == EAGAIN ? -ETIMEDOUT : -errno;
	return (size_t)n == len ? 0 : -EIO;
}

int agent_wire_recv_reply(int fd, struct ut_agent_reply *reply, int *fd_out,
			  unsigned int *nfds)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(MAX_FDS * sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = reply, .iov_len = sizeof(*reply) };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	int fds[MAX_FDS], tries = 0, ret;
	unsigned int n_fds = 0, i;
	struct cmsghdr *c;
	ssize_t n;

	*fd_out = -1;
	*nfds = 0;
	memset(&ctl, 0, sizeof(ctl));
	memset(reply, 0, sizeof(*reply));
	while ((n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR &&
	       ++tries < MAX_EINTR)
		;
	if (n < 0)
		return errno == EAGAIN ? -ETIMEDOUT : -errno;

	/* every fd first, whatever else is wrong, so that none leaks */
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		size_t k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0))
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t j = 0; j < k && n_fds < MAX_FDS; j++)
			memcpy(&fds[n_fds++], CMSG_DATA(c) + j * sizeof(int), sizeof(int));
	}
	if (n == 0) {
		ret = -ECONNRESET;
		goto bad;
	}
	ret = -EBADMSG;
	/* MSG_CTRUNC: the kernel dropped fds that did not fit; trust none of it */
	if ((size_t)n != sizeof(*reply) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    reply->type != UT_AGENT_REPLY)
		goto bad;
	if (reply->version != UT_AGENT_PROTO_VERSION) {
		ret = -EPROTO;
		goto bad;
	}
	reply->why[sizeof(reply->why) - 1] = '\0';
	for (i = 1; i < n_fds; i++)
		close(fds[i]);
	*fd_out = n_fds ? fds[0] : -1;
	*nfds = n_fds;
	return 0;
bad:
	for (i = 0; i < n_fds; i++)
		close(fds[i]);
	return ret;
}
