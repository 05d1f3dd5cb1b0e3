// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent's environment, read once on first use. The only line the agent
 * ever prints unasked is the one about a malformed URINGTUNE_AGENT_POLICY;
 * everything else needs URINGTUNE_AGENT_DEBUG=1.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "agent_check.h"
#include "agent_env.h"
#include "agent_log.h"
#include "agent_state.h"

static struct agent_env env;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

static void env_init(void)
{
	const char *s;
	char err[160];
	size_t len;

	s = getenv(UT_AGENT_ENV_DEBUG);
	env.debug = s && !strcmp(s, "1");

	s = getenv(UT_AGENT_ENV_POLICY);
	if (agent_policy_parse(s, &env.policy, err, sizeof(err)))
		agent_log(UT_AGENT_ENV_POLICY ": %s; ignored", err);

	s = getenv(UT_AGENT_ENV_SOCKET);
	if (!s || !*s)
		s = UT_AGENT_SOCKET;
	len = strlen(s);
	/* a path that does not fit is no daemon: the ring is set up unchanged */
	env.socket_ok = len < sizeof(env.socket_path);
	if (env.socket_ok)
		memcpy(env.socket_path, s, len + 1);
	else if (env.debug)
		agent_log(UT_AGENT_ENV_SOCKET ": longer than %zu bytes; no daemon",
			  sizeof(env.socket_path) - 1);

	/* the agent's first use, before any ring record or page: fork handles them all */
	agent_state_init_fork();
}

const struct agent_env *agent_env(void)
{
	pthread_once(&env_once, env_init);
	return &env;
}
