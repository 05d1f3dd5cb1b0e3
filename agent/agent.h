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

/* ---- the fast path (agent_rings.c holds the cold part; its state is agent_state.h) ---- */

AGENT_INTERNAL void agent_poll_slow(__u64 gen, int fd, struct io_uring *ring)
	__attribute__((noinline, cold));

/*
 * Run on every interposed submit and wait call, before the real one: is there
 * a new decision for this ring? @fd is the ring's fd (-1: unknown, e.g. a
 * registered ring index), or @ring the liburing ring (its ring_fd is read
 * only on the cold path).
 *
 * When nothing changed this is the one atomic load, of the page's
 * generation (the only memory the daemon writes), beside two loads from the
 * agent's own cache line (the page pointer, what the agent saw last), and a
 * compare. All relaxed, which is enough: the pointer is published with the
 * mapping already in place (no data of this process behind it to order; a
 * replaced page stays readable, see agent_pagemap.c), and a changed generation
 * only sends the call to agent_poll_slow(), which reloads it with acquire
 * under agent_state.lock before it reads any slot (pairing with the daemon's
 * release of gen after its slot writes). A relaxed atomic load is a plain
 * mov on x86 and a plain ldr on arm64: no barrier on the hot path.
 */
static inline __attribute__((always_inline)) void agent_poll(int fd, struct io_uring *ring)
{
	const struct ut_agent_page *pg = __atomic_load_n(&agent_fast.page, __ATOMIC_RELAXED);
	__u64 gen;

	if (!pg)
		return;
	gen = __atomic_load_n(&pg->gen, __ATOMIC_RELAXED);
	if (__builtin_expect(gen == __atomic_load_n(&agent_fast.seen_gen, __ATOMIC_RELAXED), 1))
		return;
	agent_poll_slow(gen, fd, ring);
}

#endif /* UT_AGENT_H */
