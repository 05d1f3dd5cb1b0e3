// SPDX-License-Identifier: GPL-2.0-only
/* The agent socket's guards: identity, quotas, rate-limited warnings. No I/O. */
#include <stddef.h>

#include "agent_guard.h"

#define NSEC_PER_SEC	1000000000ULL

bool agent_id_same(const struct agent_id *a, const struct agent_id *b)
{
	return a->pid > 0 && a->pid == b->pid && a->start_ticks == b->start_ticks &&
	       a->uid == b->uid;
}

bool agent_id_holds(const struct agent_id *id, pid_t pid, uint64_t start_boottime_ns, long hz)
{
	/* a start time unknown to BPF (0) proves nothing: not the peer's then */
	if (id->pid <= 0 || pid != id->pid || !start_boottime_ns || hz <= 0 ||
	    (uint64_t)hz > NSEC_PER_SEC)
		return false;
	return start_boottime_ns / (NSEC_PER_SEC / (uint64_t)hz) == id->start_ticks;
}

enum agent_quota agent_quota_hello(const struct agent_limits *l, unsigned int slots,
				   unsigned int pending)
{
	if (slots >= l->slots_per_uid)
		return AGENT_QUOTA_SLOTS;
	if (pending >= l->pending_per_uid)
		return AGENT_QUOTA_PENDING;
	return AGENT_QUOTA_OK;
}

bool agent_conn_admit(const struct agent_limits *l, unsigned int total, unsigned int of_uid)
{
	return total < l->conns && of_uid < l->conns_per_uid;
}

uint64_t agent_conn_deadline(uint64_t since_us)
{
	return since_us + AGENT_CONN_BUDGET_US;
}

uint64_t agent_conn_time_left(uint64_t deadline_us, uint64_t now_us)
{
	if (now_us >= deadline_us)
		return 0;
	return deadline_us - now_us < AGENT_CONN_BUDGET_US ? deadline_us - now_us :
	       AGENT_CONN_BUDGET_US;
}

static bool window_over(const struct agent_rl_entry *e, uint64_t now)
{
	return now - e->since_ns >= AGENT_RL_WINDOW_NS;
}

/* the entry of @uid, a new one for it, or the shared one */
static struct agent_rl_entry *entry_of(struct agent_ratelimit *rl, uid_t uid, uint64_t now)
{
	struct agent_rl_entry *e, *spare = NULL;
	unsigned int i;

	for (i = 0; i < AGENT_RL_UIDS; i++) {
		e = &rl->e[i];
		if (e->used && e->uid == uid)
			return e;
		/* free, or over with nothing left to say: reusable */
		if (!spare && (!e->used || (window_over(e, now) && !e->suppressed)))
			spare = e;
	}
	if (spare) {
		*spare = (struct agent_rl_entry){ .uid = uid };
		return spare;
	}
	e = &rl->e[AGENT_RL_UIDS];
	if (!e->used)
		*e = (struct agent_rl_entry){ .uid = AGENT_RL_OTHERS };
	return e;
}

bool agent_ratelimit(struct agent_ratelimit *rl, uid_t uid, uint64_t now,
		     uint32_t *suppressed, uid_t *as_uid)
{
	struct agent_rl_entry *e = entry_of(rl, uid, now);

	*as_uid = e->uid;
	*suppressed = 0;
	if (e->used && !window_over(e, now)) {
		if (e->suppressed < UINT32_MAX)
			e->suppressed++;
		return false;
	}
	*suppressed = e->suppressed;
	e->used = true;
	e->since_ns = now;
	e->suppressed = 0;
	return true;
}

void agent_ratelimit_flush(struct agent_ratelimit *rl, uint64_t now,
			   void (*say)(void *arg, uid_t uid, uint32_t count), void *arg)
{
	for (unsigned int i = 0; i <= AGENT_RL_UIDS; i++) {
		struct agent_rl_entry *e = &rl->e[i];

		if (!e->used || !window_over(e, now))
			continue;
		if (e->suppressed)
			say(arg, e->uid, e->suppressed);
		e->used = false;
		e->suppressed = 0;
	}
}
