// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cold half of the fast path (agent_poll.h): a changed page generation
 * sends a submit or wait call here, which carries out the new NAPI decision
 * for that call's own ring, from that call's own thread.
 *
 * Why from there: SINGLE_ISSUER rings (every DEFER_TASKRUN ring) refuse
 * io_uring_register from any task but their submitter with EEXIST, and the
 * thread calling submit or wait on a ring is its submitter. So a decision
 * for ring A is never applied from a call on ring B; A's change waits for
 * A's next call. Meanwhile calls on other rings must not keep coming here
 * (A may be idle for hours): seen_gen then carries AGENT_GEN_PENDING and
 * agent_state.pending_fd marks A's fd, and a call on another ring costs one
 * byte load.
 */
#include <errno.h>
#include <pthread.h>
#include <unistd.h>

#include <liburing.h>

#include "agent_check.h"
#include "agent_env.h"
#include "agent_log.h"
#include "agent_napi.h"
#include "agent_poll.h"
#include "agent_rings.h"
#include "agent_state.h"

/* @fd's mark in agent_state.pending_fd (fds mod its size share one) */
static __u8 *pending_byte(int fd)
{
	return &agent_state.pending_fd[(unsigned int)fd % AGENT_PENDING_FDS];
}

/* agent_state.lock held: the calling thread is @r's ring's: carry out @s */
static void rec_apply_locked(unsigned int i, const struct ut_agent_slot *s)
{
	struct agent_ring_rec *r = &agent_state.recs[i];
	char what[96];
	int ret;

	if (!agent_rings_still_there(r)) {
		agent_debug("pid %d ring fd %d: the fd no longer holds the ring; forgotten",
			    (int)getpid(), r->fd);
		agent_rings_free_locked(i);
		return;
	}
	if (agent_napi_wanted(r->setup_flags, s, &agent_env()->policy, false)) {
		ret = agent_napi_apply(r->fd, s);
		if (agent_env()->debug) {
			agent_napi_describe(what, sizeof(what), s, ret);
			agent_log("pid %d ring fd %d: %s (napi_gen %u)", (int)getpid(), r->fd,
				  what, s->napi_gen);
		}
	}
	/*
	 * Also when the kernel refused: no retry on every call. The daemon
	 * sees the result through its io_uring_register tracepoint.
	 */
	r->applied_napi_gen = s->napi_gen;
}

/* agent_state.lock held: look at every ring's slot; apply what is @fd's */
static void rings_scan_locked(int fd)
{
	const struct ut_agent_page *pg = agent_fast.page;
	unsigned int i, npending = 0;
	struct ut_agent_slot s;
	const char *why;
	__u64 gen;

	if (!pg)
		return;
	/* pairs with the daemon's gen++ after its slot writes */
	gen = __atomic_load_n(&pg->gen, __ATOMIC_ACQUIRE);
	for (i = 0; i < AGENT_PENDING_FDS; i++)
		__atomic_store_n(&agent_state.pending_fd[i], 0, __ATOMIC_RELAXED);

	for (i = 0; i < agent_state.nr_recs; i++) {
		struct agent_ring_rec *r = &agent_state.recs[i];
		enum agent_slot_verdict v;

		if (r->state != AGENT_REC_LIVE)
			continue;
		/* a slot the daemon keeps rewriting: its gen++ will bring us back */
		if (!agent_slot_copy(&pg->slots[r->slot], &s))
			continue;
		v = agent_slot_check(&s, r->token, &why);
		if (v == AGENT_SLOT_FOREIGN) {
			agent_debug("pid %d ring fd %d: slot %u: %s; no longer managed",
				    (int)getpid(), r->fd, r->slot, why);
			agent_rings_free_locked(i);
			continue;
		}
		if (v != AGENT_SLOT_OK || r->app_managed || !(s.flags & UT_SLOT_NAPI) ||
		    s.napi_gen == r->applied_napi_gen)
			continue;
		if (fd < 0 || r->fd != fd) {
			npending++;
			__atomic_store_n(pending_byte(r->fd), 1, __ATOMIC_RELAXED);
			continue;
		}
		rec_apply_locked(i, &s);
	}
	__atomic_store_n(&agent_fast.seen_gen, npending ? gen | AGENT_GEN_PENDING : gen,
			 __ATOMIC_RELAXED);
}

void agent_poll_slow(__u64 gen, int fd, struct io_uring *ring)
{
	__u64 seen = __atomic_load_n(&agent_fast.seen_gen, __ATOMIC_RELAXED);
	int saved_errno;

	/*
	 * liburing's ring_fd is < 0 once the program closed the ring fd after
	 * io_uring_register_ring_fd (and for REGISTERED_FD_ONLY rings): there
	 * is then no fd to match or to register NAPI on (the daemon's slot
	 * names fds, not registered indexes), so such a ring is skipped.
	 */
	if (ring)
		fd = ring->ring_fd;
	/* nothing new since the last look, and no change waiting for this ring */
	if (seen == (gen | AGENT_GEN_PENDING) &&
	    (fd < 0 || !__atomic_load_n(pending_byte(fd), __ATOMIC_RELAXED)))
		return;
	saved_errno = errno;
	/* never block the program's hot path: busy means the next call retries */
	if (!pthread_mutex_trylock(&agent_state.lock)) {
		rings_scan_locked(fd);
		pthread_mutex_unlock(&agent_state.lock);
	}
	errno = saved_errno;
}
