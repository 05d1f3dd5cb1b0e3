/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent's end of the agent socket (common/agent_abi.h): one connection
 * per message, each bounded by UT_AGENT_REPLY_TIMEOUT_MS.
 */
#ifndef UT_AGENT_CLIENT_H
#define UT_AGENT_CLIENT_H

#include <stddef.h>

#include "agent_abi.h"

/*
 * Send @hello, receive the daemon's answer. 0: a well-formed REPLY with
 * status 0 in @reply (why NUL-terminated) and the one fd it carried (the
 * policy page, close-on-exec) in *@page_fd. Else -errno (no daemon, timeout,
 * a short or odd reply), or the daemon's own negative status; no fd is left
 * open. errno is preserved.
 */
int agent_client_hello(const struct ut_agent_hello *hello, struct ut_agent_reply *reply,
		       int *page_fd);

/* A message that has no answer (RING, APP_NAPI); errors are ignored. */
void agent_client_send(const void *msg, size_t len);

#endif /* UT_AGENT_CLIENT_H */
