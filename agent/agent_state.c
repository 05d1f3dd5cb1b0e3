// SPDX-License-Identifier: GPL-2.0-only
/*
 * The process's agent state (agent_state.h: what the lock guards, what the
 * fast-path flag means), and what fork does to it.
 */
#include <pthread.h>
#include <string.h>

#include "agent_state.h"

struct agent_state agent_state = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

struct agent_fast agent_fast = {
	.page = NULL,
	.seen_gen = AGENT_GEN_NONE,
};

static void fork_prepare(void)
{
	pthread_mutex_lock(&agent_state.lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&agent_state.lock);
}

/*
 * The child is not the submitter of its parent's SINGLE_ISSUER rings, and
 * the slots name the parent's pid: forget every record. The page stays
 * mapped (nothing in it will match the child's pid).
 */
static void fork_child(void)
{
	memset(agent_state.recs, 0, sizeof(agent_state.recs));
	agent_state.nr_recs = 0;
	memset(agent_state.pending_fd, 0, sizeof(agent_state.pending_fd));
	agent_fast.seen_gen = AGENT_GEN_NONE;
	pthread_mutex_unlock(&agent_state.lock);
}

void agent_state_init_fork(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}
