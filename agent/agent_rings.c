// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent's ring records, and the cold half of the fast path: a changed
 * page generation sends a submit or wait call here, which carries out the
 * new NAPI decision for that call's own ring, from that call's own thread.
 *
 * Why from there: SINGLE_ISSUER rings (every DEFER_TASKRUN ring) refuse
 * io_uring_register from any task but their submitter with EEXIST, and the
 * thread calling submit or wait on a ring is its submitter. So a decision
 * for ring A is never applied from a call on ring B; A's change waits for
 * A's next call. Meanwhile calls on other rings must not keep coming here
 * (A may be idle for hours): seen_gen then carries AGENT_GEN_PENDING and
 * agent_state.pending_fd marks A's fd, and a call on another ring costs one byte load.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"
#include "agent_rings.h"
#include "agent_state.h"

enum {
	REC_FREE = 0,
	REC_SETUP,	/* reserved by a setup in progress: not looked at */
	REC_LIVE,
};

static void rec_free_locked(unsigned int i)
{
	agent_state.recs[i].state = REC_FREE;
	while (agent_state.nr_recs && agent_state.recs[agent_state.nr_recs - 1].state == REC_FREE)
		agent_state.nr_recs--;
	__atomic_store_n(&agent_state.nr_recs, agent_state.nr_recs, __ATOMIC_RELAXED);
}

int agent_rings_reserve(void)
{
	int idx = -ENOSPC;
	unsigned int i;

	pthread_mutex_lock(&agent_state.lock);
	for (i = 0; i < AGENT_MAX_RINGS; i++) {
		if (agent_state.recs[i].state != REC_FREE)
			continue;
		memset(&agent_state.recs[i], 0, sizeof(agent_state.recs[i]));
		agent_state.recs[i].state = REC_SETUP;
		if (i >= agent_state.nr_recs)
			__atomic_store_n(&agent_state.nr_recs, i + 1, __ATOMIC_RELAXED);
		idx = i;
		break;
	}
	pthread_mutex_unlock(&agent_state.lock);
	return idx;
}

void agent_rings_release(int idx)
{
	pthread_mutex_lock(&agent_state.lock);
	if (agent_state.recs[idx].state == REC_SETUP)
		rec_free_locked(idx);
	pthread_mutex_unlock(&agent_state.lock);
}

bool agent_rings_commit(int idx, const struct agent_ring_rec *r)
{
	bool ok = false;
	unsigned int i;

	pthread_mutex_lock(&agent_state.lock);
	/* a fork child forgot it, or a new page made its slot number void */
	if (agent_state.recs[idx].state != REC_SETUP)
		goto out;
	if (r->epoch != agent_state.page_epoch) {
		rec_free_locked(idx);
		goto out;
	}
	for (i = 0; i < agent_state.nr_recs; i++)
		if (agent_state.recs[i].state == REC_LIVE && agent_state.recs[i].fd == r->fd)
			rec_free_locked(i);
	agent_state.recs[idx] = *r;
	agent_state.recs[idx].state = REC_LIVE;
	/*
	 * A scan while this ring was being set up skipped it and may have
	 * moved seen_gen past a change to its slot: look again.
	 */
	__atomic_store_n(&agent_fast.seen_gen, AGENT_GEN_NONE, __ATOMIC_RELAXED);
	ok = true;
out:
	pthread_mutex_unlock(&agent_state.lock);
	return ok;
}

void agent_rings_drop(struct io_uring *ring, int fd)
{
	unsigned int i;

	if (!__atomic_load_n(&agent_state.nr_recs, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&agent_state.lock);
	for (i = 0; i < agent_state.nr_recs; i++) {
		const struct agent_ring_rec *r = &agent_state.recs[i];

		if (r->state != REC_LIVE)
			continue;
		if ((ring && r->ring == ring) || (fd >= 0 && r->fd == fd))
			rec_free_locked(i);
	}
	pthread_mutex_unlock(&agent_state.lock);
}

/* does @r's fd still hold the ring it was set up as? (closed and reused: no) */
static bool rec_still_there(const struct agent_ring_rec *r)
{
	struct stat st;

	return !fstat(r->fd, &st) && (__u64)st.st_ino == r->ino;
}

bool agent_rings_app_napi(int fd, struct ut_agent_ring *msg)
{
	bool found = false;
	unsigned int i;

	if (fd < 0 || !__atomic_load_n(&agent_state.nr_recs, __ATOMIC_RELAXED))
		return false;
	pthread_mutex_lock(&agent_state.lock);
	for (i = 0; i < agent_state.nr_recs; i++) {
		struct agent_ring_rec *r = &agent_state.recs[i];

		if (r->state != REC_LIVE || r->fd != fd)
			continue;
		if (!rec_still_there(r)) {
			rec_free_locked(i);
			break;
		}
		if (r->app_managed)
			break;
		r->app_managed = true;
		memset(msg, 0, sizeof(*msg));
		msg->type = UT_AGENT_APP_NAPI;
		msg->version = UT_AGENT_PROTO_VERSION;
		msg->slot = r->slot;
		msg->fd = r->fd;
		msg->ino = r->ino;
		msg->setup_flags = r->setup_flags;
		found = true;
		break;
	}
	pthread_mutex_unlock(&agent_state.lock);
	return found;
}

void agent_rings_forget_locked(void)
{
	unsigned int i;

	for (i = 0; i < agent_state.nr_recs; i++)
		if (agent_state.recs[i].state == REC_LIVE)
			rec_free_locked(i);
}

int agent_napi_apply(int fd, const struct ut_agent_slot *s)
{
	struct agent_napi_op ops[AGENT_NAPI_MAX_OPS];
	unsigned int n, i;

	n = agent_napi_ops(s, ops);
	for (i = 0; i < n; i++) {
		/* nr_args must be 1; REGISTER copies the previous settings back into arg */
		if (agent_sys(__NR_io_uring_register, fd, ops[i].opcode, (long)&ops[i].arg, 1,
			      0, 0) < 0)
			return -errno;
	}
	return 0;
}

void agent_napi_describe(char *buf, size_t len, const struct ut_agent_slot *s, int ret)
{
	char how[48];

	if (!s->napi_enabled) {
		if (ret)
			snprintf(buf, len, "NAPI off refused: %s", agent_errname(ret));
		else
			snprintf(buf, len, "NAPI switched off");
		return;
	}
	if (ret) {
		snprintf(buf, len, "NAPI %u us refused: %s", s->busy_poll_us, agent_errname(ret));
		return;
	}
	if (s->static_ids)
		snprintf(how, sizeof(how), "static, %u id%s", s->n_ids, s->n_ids == 1 ? "" : "s");
	else
		snprintf(how, sizeof(how), "dynamic");
	snprintf(buf, len, "NAPI %u us registered (%s%s)", s->busy_poll_us, how,
		 s->prefer_busy_poll ? ", prefer busy poll" : "");
}

/* agent_state.lock held: the calling thread is @r's ring's: carry out @s */
static void rec_apply_locked(unsigned int i, const struct ut_agent_slot *s)
{
	struct agent_ring_rec *r = &agent_state.recs[i];
	char what[96];
	int ret;

	if (!rec_still_there(r)) {
		agent_debug("pid %d ring fd %d: the fd no longer holds the ring; forgotten",
			    (int)getpid(), r->fd);
		rec_free_locked(i);
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
	__s32 pid;
	__u64 gen;

	if (!pg)
		return;
	/* pairs with the daemon's gen++ after its slot writes */
	gen = __atomic_load_n(&pg->gen, __ATOMIC_ACQUIRE);
	pid = getpid();
	for (i = 0; i < AGENT_PENDING_FDS; i++)
		__atomic_store_n(&agent_state.pending_fd[i], 0, __ATOMIC_RELAXED);

	for (i = 0; i < agent_state.nr_recs; i++) {
		struct agent_ring_rec *r = &agent_state.recs[i];
		enum agent_slot_verdict v;

		if (r->state != REC_LIVE)
			continue;
		/* a slot the daemon keeps rewriting: its gen++ will bring us back */
		if (!agent_slot_copy(&pg->slots[r->slot], &s))
			continue;
		v = agent_slot_check(&s, pid, r->fd, r->ino, &why);
		if (v == AGENT_SLOT_FOREIGN) {
			agent_debug("pid %d ring fd %d: slot %u: %s; no longer managed",
				    (int)pid, r->fd, r->slot, why);
			rec_free_locked(i);
			continue;
		}
		if (v != AGENT_SLOT_OK || r->app_managed || !(s.flags & UT_SLOT_NAPI) ||
		    s.napi_gen == r->applied_napi_gen)
			continue;
		if (fd < 0 || r->fd != fd) {
			npending++;
			__atomic_store_n(&agent_state.pending_fd[(unsigned int)r->fd % AGENT_PENDING_FDS], 1,
					 __ATOMIC_RELAXED);
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
	    (fd < 0 || !__atomic_load_n(&agent_state.pending_fd[(unsigned int)fd % AGENT_PENDING_FDS],
					__ATOMIC_RELAXED)))
		return;
	saved_errno = errno;
	/* never block the program's hot path: busy means the next call retries */
	if (!pthread_mutex_trylock(&agent_state.lock)) {
		rings_scan_locked(fd);
		pthread_mutex_unlock(&agent_state.lock);
	}
	errno = saved_errno;
}
