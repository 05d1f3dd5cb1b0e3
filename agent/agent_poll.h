/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fast path, run on every interposed submit and wait call before the
 * real one: is there a new decision for this ring? Inline here; its cold
 * half is agent_poll.c. What it reads is agent_fast (agent_state.h: what
 * seen_gen means, and why relaxed loads are enough).
 */
#ifndef UT_AGENT_POLL_H
#define UT_AGENT_POLL_H

#include <linux/types.h>

#include "agent_state.h"

struct io_uring;

/*
 * A changed page generation: carry out this call's ring's new decision, from
 * this call's thread, and remember what is left for other rings. Never
 * blocks (the lock is only tried); errno is preserved.
 */
AGENT_INTERNAL void agent_poll_slow(__u64 gen, int fd, struct io_uring *ring)
	__attribute__((noinline, cold));

/*
 * @fd is the ring's fd (-1: unknown, e.g. a registered ring index), or @ring
 * the liburing ring (its ring_fd is read only on the cold path).
 *
 * When nothing changed this is the one atomic load, of the page's
 * generation (the only memory the daemon writes), beside two loads from the
 * agent's own cache line (the page pointer, what the agent saw last), and a
 * compare. All relaxed: a relaxed atomic load is a plain mov on x86 and a
 * plain ldr on arm64, so no barrier on the hot path; a changed generation
 * only sends the call to agent_poll_slow(), which reloads it with acquire
 * under agent_state.lock before it reads any slot.
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

#endif /* UT_AGENT_POLL_H */
