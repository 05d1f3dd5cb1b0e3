// SPDX-License-Identifier: GPL-2.0-only
/* The operator's commands on one ring: `uringtune set` and `uringtune reset`. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lifecycle.h"
#include "lifecycle_priv.h"
#include "log.h"

bool lifecycle_via_agent(const struct lifecycle *lc, pid_t pid, int fd)
{
	struct ut_ring *ring = registry_find_holder(lc->reg, pid, fd);

	return ring && ring_agent_driven(ring);
}

/* --static: the IDs seen on the ring so far */
static int static_ids(const struct ut_ring *ring, struct tuner_setting *s, char *err,
		      size_t errlen)
{
	s->n_ids = lc_count_ids(ring->obs.stats.napi_ids);
	memcpy(s->ids, ring->obs.stats.napi_ids, sizeof(s->ids));
	if (!ring->obs.have_stats || !s->n_ids) {
		snprintf(err, errlen, "--static: no NAPI ID seen on ring pid %d fd %d yet "
			 "(it needs traffic first)", ring->obs.holder.pid, ring->obs.holder.fd);
		return -EAGAIN;
	}
	return 0;
}

int lifecycle_set(struct lifecycle *lc, pid_t pid, int fd, const struct tuner_setting *want,
		  char *err, size_t errlen)
{
	struct ut_ring *ring = registry_find_holder(lc->reg, pid, fd);
	struct tuner_setting s = *want;
	struct ring_tune *t;
	const char *reason;
	int ret;

	if (!ring) {
		snprintf(err, errlen, "no io_uring ring at pid %d fd %d", pid, fd);
		return -ENOENT;
	}
	t = &ring->tune;
	if (!ring_tunable_agent(ring->obs.setup_flags, lc->napi_supported, t->managed_by,
				ring_agent_driven(ring), &reason)) {
		snprintf(err, errlen, "ring pid %d fd %d cannot be tuned: %s", pid, fd, reason);
		return -EPERM;
	}
	if (s.static_ids && (ret = static_ids(ring, &s, err, errlen)))
		return ret;
	t->refused = false;
	ret = lc_take(lc, ring, &s);
	if (ret) {
		snprintf(err, errlen, "%s", t->error);
		return ret;
	}
	t->pinned = true;
	t->hands_off = false;
	snprintf(t->last_decision, sizeof(t->last_decision),
		 "pinned by uringtune set: %u us%s%s", s.busy_poll_us,
		 s.prefer ? ", prefer" : "", s.static_ids ? ", static" : "");
	log_ring(LOG_INFO, ring, "%s", t->last_decision);
	return 0;
}

/*
 * A ring set up through its agent goes back to what it had before uringtune:
 * NAPI off (the agent set it up with NAPI off; the program did not ask).
 */
static int reset_agent_ring(struct lifecycle *lc, struct ut_ring *ring, char *err, size_t errlen)
{
	static const struct tuner_setting off = { .enabled = false };
	int ret;

	if (ring->tune.managed_by != UT_MANAGED_URINGTUNE)
		return 0;
	ret = lc_apply(lc, ring, &off, err, errlen);
	if (ret)
		return ret;
	ring->tune.managed_by = UT_MANAGED_NONE;
	memset(&ring->tune.tuner, 0, sizeof(ring->tune.tuner));
	log_ring(LOG_INFO, ring, "NAPI off through its agent, at the ring's next submit or wait");
	return 0;
}

static int reset_all(struct lifecycle *lc, char *err, size_t errlen)
{
	int failed = lifecycle_restore_all(lc);
	struct ut_ring *ring;
	size_t i;

	registry_for_each(lc->reg, i, ring) {
		if (ring_agent_driven(ring) && reset_agent_ring(lc, ring, err, errlen))
			failed++;
		ring->tune.hands_off = true;
	}
	if (failed) {
		snprintf(err, errlen, "%d rings could not be restored (see the daemon's log)",
			 failed);
		return -EIO;
	}
	return 0;
}

int lifecycle_reset(struct lifecycle *lc, pid_t pid, int fd, char *err, size_t errlen)
{
	struct journal_entry *e;
	struct ut_ring *ring;

	if (pid < 0)
		return reset_all(lc, err, errlen);
	ring = registry_find_holder(lc->reg, pid, fd);
	if (!ring) {
		snprintf(err, errlen, "no io_uring ring at pid %d fd %d", pid, fd);
		return -ENOENT;
	}
	ring->tune.hands_off = true;
	ring->tune.pinned = false;
	if (ring_agent_driven(ring))
		return reset_agent_ring(lc, ring, err, errlen);
	e = journal_find(&lc->journal, ring->ctx);
	if (e && lc_restore_entry(lc, e)) {
		snprintf(err, errlen, "restoring ring pid %d fd %d failed (see the daemon's log)",
			 pid, fd);
		return -EIO;
	}
	return 0;
}
