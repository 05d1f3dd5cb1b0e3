// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ring table's records (agent_state.h): reserved before a setup, made
 * live after it, dropped at io_uring_queue_exit, a fork or a new page. Each
 * operation takes agent_state.lock itself, except the _locked ones, whose
 * callers hold it. Applying later decisions to live records is
 * agent_poll.c's.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

#include "agent_rings.h"
#include "agent_state.h"

void agent_rings_free_locked(unsigned int i)
{
	agent_state.recs[i].state = AGENT_REC_FREE;
	while (agent_state.nr_recs &&
	       agent_state.recs[agent_state.nr_recs - 1].state == AGENT_REC_FREE)
		agent_state.nr_recs--;
	__atomic_store_n(&agent_state.nr_recs, agent_state.nr_recs, __ATOMIC_RELAXED);
}

int agent_rings_reserve(void)
{
	int idx = -ENOSPC;
	unsigned int i;

	pthread_mutex_lock(&agent_state.lock);
	for (i = 0; i < AGENT_MAX_RINGS; i++) {
		if (agent_state.recs[i].state != AGENT_REC_FREE)
			continue;
		memset(&agent_state.recs[i], 0, sizeof(agent_state.recs[i]));
		agent_state.recs[i].state = AGENT_REC_SETUP;
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
	if (agent_state.recs[idx].state == AGENT_REC_SETUP)
		agent_rings_free_locked(idx);
	pthread_mutex_unlock(&agent_state.lock);
}

bool agent_rings_commit(int idx, const struct agent_ring_rec *r)
{
	bool ok = false;
	unsigned int i;

	pthread_mutex_lock(&agent_state.lock);
	/* a fork child forgot it, or a new page made its slot number void */
	if (agent_state.recs[idx].state != AGENT_REC_SETUP)
		goto out;
	if (r->epoch != agent_state.page_epoch) {
		agent_rings_free_locked(idx);
		goto out;
	}
	for (i = 0; i < agent_state.nr_recs; i++) {
		const struct agent_ring_rec *other = &agent_state.recs[i];

		if (other->state == AGENT_REC_LIVE && other->fd == r->fd)
			agent_rings_free_locked(i);
	}
	agent_state.recs[idx] = *r;
	agent_state.recs[idx].state = AGENT_REC_LIVE;
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

		if (r->state != AGENT_REC_LIVE)
			continue;
		if ((ring && r->ring == ring) || (fd >= 0 && r->fd == fd))
			agent_rings_free_locked(i);
	}
	pthread_mutex_unlock(&agent_state.lock);
}

bool agent_rings_still_there(const struct agent_ring_rec *r)
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

		if (r->state != AGENT_REC_LIVE || r->fd != fd)
			continue;
		if (!agent_rings_still_there(r)) {
			agent_rings_free_locked(i);
			break;
		}
		if (r->app_managed)
			break;
		r->app_managed = true;
		memset(msg, 0, sizeof(*msg));
		msg->type = UT_AGENT_APP_NAPI;
		msg->version = UT_AGENT_PROTO_VERSION;
		msg->slot = r->slot;
		msg->token = r->token;
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
		if (agent_state.recs[i].state == AGENT_REC_LIVE)
			agent_rings_free_locked(i);
}
