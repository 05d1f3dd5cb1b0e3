/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the agent's files share: its environment, its log, the real functions
 * behind the interposed ones, the lock over its state, and the fast path run
 * on every interposed submit and wait call.
 *
 * Everything here is hidden (the Makefile builds with -fvisibility=hidden;
 * AGENT_INTERNAL repeats it on declarations so the fast path's globals are
 * reached PC-relative, not through the GOT). Only agent/interpose.c exports
 * symbols.
 */
#ifndef UT_AGENT_H
#define UT_AGENT_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/un.h>
#include <linux/types.h>

#include <liburing.h>

#include "agent_abi.h"
#include "agent_check.h"
#include "agent_log.h"
#include "agent_real.h"
#include "agent_state.h"

/* ---- environment (agent_env.c), read once; the log is agent_log.h ---- */

struct agent_env {
	struct agent_policy policy;	/* URINGTUNE_AGENT_POLICY (all UNSET if malformed) */
	bool debug;			/* URINGTUNE_AGENT_DEBUG=1 */
	bool socket_ok;			/* the path fits sun_path */
	char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

/* parsed on first use (pthread_once); also registers the fork handlers */
AGENT_INTERNAL const struct agent_env *agent_env(void);

#define agent_debug(...) do {				\
	if (agent_env()->debug)				\
		agent_log(__VA_ARGS__);			\
} while (0)

#endif /* UT_AGENT_H */
