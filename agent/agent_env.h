/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent's environment variables (common/agent_abi.h names them), read
 * once on the agent's first use, and agent_debug(), the log line that only
 * URINGTUNE_AGENT_DEBUG=1 prints.
 */
#ifndef UT_AGENT_ENV_H
#define UT_AGENT_ENV_H

#include <stdbool.h>
#include <sys/un.h>

#include "agent_check.h"
#include "agent_log.h"

struct agent_env {
	struct agent_policy policy;	/* URINGTUNE_AGENT_POLICY (all UNSET if malformed) */
	bool debug;			/* URINGTUNE_AGENT_DEBUG=1 */
	bool socket_ok;			/* the path fits sun_path */
	char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

/*
 * Parsed on first use (pthread_once). That first use of the agent also
 * registers the fork handlers over its state (agent_state_init_fork()).
 */
const struct agent_env *agent_env(void);

#define agent_debug(...) do {				\
	if (agent_env()->debug)				\
		agent_log(__VA_ARGS__);			\
} while (0)

#endif /* UT_AGENT_ENV_H */
