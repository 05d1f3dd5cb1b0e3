// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent socket, client side. Only ring setup (and a program's own NAPI
 * call) talks to the daemon, never a request path; anything unexpected is
 * "no daemon", and the ring is set up as the program asked.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent.h"
#include "agent_client.h"

/* a reply carries one fd; room for a few more, to close them rather than leak them */
#define MAX_FDS		8
/* signals during one exchange before it is given up */
#define MAX_EINTR	8

static int client_connect(void)
{
	const struct agent_env *env = agent_env();
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = {
		.tv_sec = UT_AGENT_REPLY_TIMEOUT_MS / 1000,
		.tv_usec = (UT_AGENT_REPLY_TIMEOUT_MS % 1000) * 1000,
	};
	int fd, ret;

	if (!env->socket_ok)
		return -ENAMETOOLONG;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/*
	 * A unix connect either completes or fails at once, but it waits
	 * for room when the daemon's backlog is full: SO_SNDTIMEO bounds
	 * that wait, as it bounds the send.
	 */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv))) {
		ret = -errno;
		goto err;
	}
	memcpy(sa.sun_path, env->socket_path, sizeof(sa.sun_path));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		ret = -errno;
		goto err;
	}
	return fd;
err:
	close(fd);
	return ret;
}

static int client_send(int fd, const void *msg, size_t len)
{
	ssize_t n;
	int tries = 0;

	/* MSG_NOSIGNAL: a daemon gone mid-exchange must not SIGPIPE the program */
	do
		n = send(fd, msg, len, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR && ++tries < MAX_EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

/* close every fd that came with a message: the caller keeps none of them */
static void close_fds(const int *fds, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		close(fds[i]);
}

static int client_recv_reply(int fd, struct ut_agent_reply *reply, int *page_fd)
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
	int fds[MAX_FDS];
	unsigned int nfds = 0;
	struct cmsghdr *c;
	ssize_t n;
	int tries = 0, ret;

	memset(&ctl, 0, sizeof(ctl));
	do
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR && ++tries < MAX_EINTR);
	if (n < 0)
		return errno == EAGAIN ? -ETIMEDOUT : -errno;

	/* collect every fd first, whatever else is wrong, so none leaks */
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		size_t i, k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0))
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < k && nfds < MAX_FDS; i++)
			memcpy(&fds[nfds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
	}

	ret = -EPROTO;
	if (n == 0) {
		ret = -ECONNRESET;
		goto bad;
	}
	/* MSG_CTRUNC: the kernel dropped fds that did not fit; do not trust the rest */
	if ((size_t)n != sizeof(*reply) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
		goto bad;
	if (reply->type != UT_AGENT_REPLY || reply->version != UT_AGENT_PROTO_VERSION)
		goto bad;
	if (reply->status) {
		ret = reply->status < 0 ? reply->status : -EPROTO;
		goto bad;
	}
	if (nfds != 1)
		goto bad;
	reply->why[sizeof(reply->why) - 1] = '\0';
	*page_fd = fds[0];
	return 0;
bad:
	close_fds(fds, nfds);
	return ret;
}

int agent_client_hello(const struct ut_agent_hello *hello, struct ut_agent_reply *reply,
		       int *page_fd)
{
	int saved_errno = errno;
	int fd, ret;

	*page_fd = -1;
	memset(reply, 0, sizeof(*reply));
	fd = client_connect();
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	ret = client_send(fd, hello, sizeof(*hello));
	if (!ret)
		ret = client_recv_reply(fd, reply, page_fd);
	close(fd);
out:
	errno = saved_errno;
	return ret;
}

void agent_client_send(const void *msg, size_t len)
{
	int saved_errno = errno;
	int fd;

	fd = client_connect();
	if (fd >= 0) {
		client_send(fd, msg, len);
		close(fd);
	}
	errno = saved_errno;
}
