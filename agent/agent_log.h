/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent's log: one line on stderr per message. A leaf: it knows nothing
 * else of the agent (whether to log at all is the caller's business, see
 * agent_debug() in agent_env.h).
 */
#ifndef UT_AGENT_LOG_H
#define UT_AGENT_LOG_H

/*
 * "uringtune-agent: <message>\n" on stderr with one write(2): no stdio, so no
 * lock a fork or a signal could leave held. errno is preserved.
 */
void agent_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "EEXIST" for 17: the kernel's answer as a programmer reads it */
const char *agent_errname(int err);

#endif /* UT_AGENT_LOG_H */
