/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The client side of the agent socket (common/agent_abi.h), for the agent
 * (agent/agent_client.c, built into liburingtune-agent.so) and for
 * `uringtune exec`'s PING (cli/exec.c): SOCK_SEQPACKET, one connection per
 * message, every step bounded by UT_AGENT_REPLY_TIMEOUT_MS, never SIGPIPE.
 * libc only, no stdio, no allocation: it runs inside other programs.
 */
#ifndef UT_AGENT_WIRE_H
#define UT_AGENT_WIRE_H

#include <stddef.h>

#include "agent_abi.h"

/* a connected socket to @path (close-on-exec), or -errno (-ENAMETOOLONG, -ENOENT, ...) */
int agent_wire_connect(const char *path);
/* the same, each step bounded by @timeout_ms instead (test tools that measure the wait) */
int agent_wire_connect_ms(const char *path, unsigned int timeout_ms);

/* one message; 0 or -errno */
int agent_wire_send(int fd, const void *msg, size_t len);

/*
 * One reply. 0 when it is a REPLY of this protocol version, whole, with
 * every fd it carried received (why NUL-terminated; its status is the
 * caller's to judge): the first fd in *@fd_out (-1 if none; close-on-exec),
 * how many came in *@nfds, the others closed. Else -errno, no fd open:
 *   -ETIMEDOUT   no answer in time
 *   -ECONNRESET  the daemon closed without answering
 *   -EBADMSG     not a reply (size, type, truncated data or fds)
 *   -EPROTO      a reply of another protocol version (reply->version says which)
 */
int agent_wire_recv_reply(int fd, struct ut_agent_reply *reply, int *fd_out,
			  unsigned int *nfds);

#endif /* UT_AGENT_WIRE_H */
