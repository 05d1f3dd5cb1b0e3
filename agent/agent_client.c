// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent socket, client side. Only ring setup (and a program's own NAPI
 * call) talks to the daemon, never a request path; anything unexpected is
 * "no daemon", and the ring is set up as the program asked. The exchange
 * itself is common/agent_wire.c, shared with `uringtune exec`.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "agent_client.h"
#include "agent_env.h"
#include "agent_wire.h"

static int client_connect(void)
{
	const struct agent_env *env = agent_env();

	if (!env->socket_ok)
		return -ENAMETOOLONG;
	return agent_wire_connect(env->socket_path);
}

int agent_client_hello(const struct ut_agent_hello *hello, struct ut_agent_reply *reply,
		       int *page_fd)
{
	int saved_errno = errno;
	unsigned int nfds;
	int fd, ret;

	*page_fd = -1;
	memset(reply, 0, sizeof(*reply));
	fd = client_connect();
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	ret = agent_wire_send(fd, hello, sizeof(*hello));
	if (!ret)
		ret = agent_wire_recv_reply(fd, reply, page_fd, &nfds);
	close(fd);
	if (ret)
		goto out;
	/* a decision comes with exactly one fd, the page; anything else is no answer */
	if (reply->status || nfds != 1) {
		ret = reply->status < 0 ? reply->status : -EPROTO;
		if (*page_fd >= 0)
			close(*page_fd);
		*page_fd = -1;
	}
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
		agent_wire_send(fd, msg, len);
		close(fd);
	}
	errno = saved_errno;
}
