/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The process's agent state, all of it in one place, and the one lock over
 * it. The modules that work on a part name it beside its fields: the ring
 * table (agent_rings.c, agent_poll.c), the policy page mapping
 * (agent_pagemap.c) and the fast path's cache line (agent_poll.h).
 *
 * Not here because nothing guards them, by design: the environment
 * (agent_env.c, written once under pthread_once, read-only after), the real
 * functions' pointers (agent_real.h, relaxed atomics: a function's address
 * never changes) and the setup depth (interpose.c, thread-local).
 *
 * A fixed ring table of AGENT_MAX_RINGS records, no allocation ever (fork
 * and signal handlers stay simple): when it is full, a new ring is not
 * managed by the agent at all (no HELLO; set up exactly as the program
 * asked).
 */
#ifndef UT_AGENT_STATE_H
#define UT_AGENT_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "agent_abi.h"

/*
 * On the declarations of the agent's globals: hidden like their definitions
 * (the Makefile builds with -fvisibility=hidden, which extern declarations
 * do not get), so the fast path reaches them PC-relative, not through the
 * GOT. Only agent/interpose.c exports symbols.
 */
#define AGENT_INTERNAL	__attribute__((visibility("hidden")))

struct io_uring;

#define AGENT_MAX_RINGS		256
/* fds (mod the size) of rings with a change to apply at their own next call */
#define AGENT_PENDING_FDS	256

enum agent_rec_state {
	AGENT_REC_FREE = 0,
	AGENT_REC_SETUP,	/* reserved by a setup in progress: not looked at */
	AGENT_REC_LIVE,
};

struct agent_ring_rec {
	__u8 state;			/* enum agent_rec_state */
	bool app_managed;		/* the program registers NAPI itself: hands off */
	struct io_uring *ring;		/* liburing's; NULL: syscall(2), io_uring_setup() */
	int fd;
	__u64 ino;			/* the ring file's inode: proves the fd still holds it */
	__u32 slot;			/* in the page of @epoch */
	__u64 token;			/* the slot's while it is this ring's (the daemon's reply) */
	__u32 applied_napi_gen;		/* the slot's napi_gen last applied (or refused) */
	__u32 setup_flags;		/* as the kernel got them */
	unsigned int epoch;		/* agent_page_adopt()'s */
};

struct agent_state {
	/*
	 * Guards every other field of this struct, and every write of
	 * agent_fast (below). Read without it, relaxed, and only where said:
	 * nr_recs, pending_fd and agent_fast.
	 *
	 * The agent's only lock. Never held across a socket exchange or
	 * io_uring_setup; the fast path only ever trylocks it (busy: the next
	 * call retries). Around fork() the forking thread holds it (so no
	 * other thread is inside the state), and the child forgets the ring
	 * table before it lets go (agent_state.c).
	 */
	pthread_mutex_t lock;

	/* the ring table (agent_rings.c; agent_poll.c applies decisions to it) */
	struct agent_ring_rec recs[AGENT_MAX_RINGS];
	/* records at or above this are free; read unlocked (relaxed) as "any at all?" */
	unsigned int nr_recs;
	/* 1: a ring of that fd has a change waiting; agent_poll_slow() reads it unlocked */
	__u8 pending_fd[AGENT_PENDING_FDS];

	/* the mapped policy page (agent_pagemap.c); its address is agent_fast.page */
	size_t page_len;
	__u32 page_nslots;
	dev_t page_dev;
	ino_t page_ino;
	/* bumped at every page switch: a ring record is valid for its own epoch only */
	unsigned int page_epoch;
	/* the previous page's range, overlaid with zero pages */
	void *retired;
	size_t retired_len;
};

extern struct agent_state agent_state AGENT_INTERNAL;

/*
 * What the fast path reads on every interposed submit and wait call
 * (agent_poll() in agent_poll.h), in one cache line of its own. Written only
 * under agent_state.lock (a page mapped, a change dealt with, a ring set up,
 * fork); read without any lock.
 *
 * page: the daemon's policy page, NULL while there is none.
 *
 * seen_gen, the fast-path flag: the page generation the agent has dealt
 * with; every ring's decision up to it is applied, and a call that finds
 * the page's gen equal to it returns at once. With AGENT_GEN_PENDING or'ed
 * in: looked at, but some ring still has a change only its own calls can
 * apply (agent_state.pending_fd says which fds); a call on another ring
 * then costs one byte load more. AGENT_GEN_NONE: look on the next call.
 *
 * Memory ordering: the stores (under the lock) and the loads without it are
 * relaxed atomics (a plain mov on x86, ldr/str on arm64), and that is
 * enough. The page
 * pointer is published with the mapping already in place: no data of this
 * process behind it to order, and a replaced page stays readable
 * (agent_pagemap.c). seen_gen orders no data either: it only decides
 * whether a call looks at the slots, and all looking is done under the
 * lock by agent_poll_slow(), which reloads the page's gen with acquire
 * before it reads any slot (pairing with the daemon's release of gen after
 * its slot writes). A stale seen_gen costs one needless trip to the slow
 * path, or leaves the look to a later call.
 */
struct agent_fast {
	const struct ut_agent_page *page;
	__u64 seen_gen;
} __attribute__((aligned(64)));

extern struct agent_fast agent_fast AGENT_INTERNAL;

#define AGENT_GEN_PENDING	(1ULL << 63)
#define AGENT_GEN_NONE		(~0ULL)

/*
 * The fork handlers over the state: pthread_atfork, once, at the agent's
 * first use (agent_env()).
 */
void agent_state_init_fork(void);

#endif /* UT_AGENT_STATE_H */
