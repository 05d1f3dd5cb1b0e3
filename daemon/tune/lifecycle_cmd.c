// SPDX-License-Identifier: GPL-2.0-only
/*
 * The operator's commands on one ring, `uringtune set` and `uringtune
 * reset`, and what a reload's [select] releases.
 */
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

/*
 * [select] for `set`: a ring it leaves out is refused, naming the rule, unless
 * @force, which is logged with the rule it overrode. 0 or -EPERM.
 */
static int set_selected(struct lifecycle *lc, const struct ut_ring *ring, bool force,
			char *err, size_t errlen)
{
	const struct ut_holder *h = &ring->obs.holder;
	const char *why;

	if (lc->env.selects(lc->env.arg, h->pid, h->comm, &why))
		return 0;
	if (!force) {
		snprintf(err, errlen, "ring pid %d fd %d (process %s) is not selected: %s; use --force "
			 "to tune it anyway", h->pid, h->fd, h->comm, why);
		return -EPERM;
	}
	log_ring(LOG_NOTICE, ring, "uringtune set --force: pinned although %s", why);
	return 0;
}

int lifecycle_set(struct lifecycle *lc, pid_t pid, int fd, const struct tuner_setting *want,
		  bool force, char *err, size_t errlen)
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
	if ((ret = set_selected(lc, ring, force, err, errlen)))
		return ret;
	t->refused = false;
	t->vanished = false;
	ret = lc_take(lc, ring, &s);
	if (ret) {
		snprintf(err, errlen, "%s", t->error);
		return ret;
	}
	t->pinned = true;
	t->forced = force;
	t->hands_off = false;
	snprintf(t->last_decision, sizeof(t->last_decision),
		 "pinned by uringtune set: %u us%s%s", s.busy_poll_us,
		 s.prefer ? ", prefer" : "", s.static_ids ? ", static" : "");
	log_ring(LOG_INFO, ring, "%s", t->last_decision);
	lc_record(ring, &s, lc_now(lc), t->last_decision);
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
	lc_record(ring, &off, lc_now(lc), "NAPI off through its agent (uringtune reset, or "
		  "[select] after a reload)");
	log_ring(lc_detail(lc), ring, "NAPI off through its agent, at the ring's next submit or "
		 "wait");
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
	ring->tune.forced = false;
	if (ring_agent_driven(ring))
		return reset_agent_ring(lc, ring, err, errlen);
	e = journal_find(&lc->journal, ring->ctx);
	/* waiting for its commit: never changed, and let go when it is done (hands_off) */
	if (e && !journal_durable(&lc->journal, ring->ctx))
		return 0;
	if (e && lc_restore_entry(lc, e)) {
		snprintf(err, errlen, "restoring ring pid %d fd %d failed (see the daemon's log)",
			 pid, fd);
		return -EIO;
	}
	return 0;
}

/* what a reload's [select] did to the rings uringtune had tuned */
struct reselect {
	size_t released, failed, kept;
};

/* one of uringtune's rings that [select] no longer picks, unless pinned with --force */
static bool released_by_select(struct lifecycle *lc, struct ut_ring *ring, struct reselect *r)
{
	const struct ut_holder *h = &ring->obs.holder;
	const char *why;

	if (ring->tune.managed_by != UT_MANAGED_URINGTUNE ||
	    lc->env.selects(lc->env.arg, h->pid, h->comm, &why))
		return false;
	if (ring->tune.pinned && ring->tune.forced) {
		r->kept++;
		log_ring(LOG_DEBUG, ring, "reload: pinned with --force, kept although %s", why);
		return false;
	}
	log_ring(LOG_DEBUG, ring, "reload: %s, restoring it", why);
	return true;
}

static bool pick_released(struct lifecycle *lc, const struct journal_entry *e, void *arg)
{
	struct ut_ring *ring = registry_find(lc->reg, e->ctx);

	return ring && lc_same_ring(ring, e) && !ring_agent_driven(ring) &&
	       released_by_select(lc, ring, arg);
}

/* a ring waiting for the journal that [select] no longer picks: never changed */
static bool deselected(struct lifecycle *lc, const struct ut_ring *ring)
{
	const char *why;

	return ring && !lc->env.selects(lc->env.arg, ring->obs.holder.pid, ring->obs.holder.comm,
					&why);
}

void lifecycle_reselect(struct lifecycle *lc)
{
	struct reselect r = {};
	struct ut_ring *ring;
	char err[160];
	size_t i, n;

	/* observe mode's advice asks [select] again */
	lc->select_gen++;
	lc_wait_cancel(lc, deselected);
	lc->quiet = true;
	/* journaled rings: restored as at a stop, one journal write */
	r.failed = lc_restore_matching(lc, pick_released, &r, &r.released);
	/* rings set up through their agent: NAPI off at their next call */
	registry_for_each(lc->reg, i, ring) {
		const struct ring_tune *t = &ring->tune;

		/* hybrid IOPOLL is for the ring's life: only NAPI can go back */
		if (!ring_agent_driven(ring) ||
		    !(ring->obs.napi.enabled || (t->pending && t->want.enabled)) ||
		    !released_by_select(lc, ring, &r))
			continue;
		if (reset_agent_ring(lc, ring, err, sizeof(err))) {
			log_ring(LOG_ERR, ring, "reload: switching NAPI off through its agent "
				 "failed: %s", err);
			r.failed++;
		} else {
			r.released++;
		}
	}
	lc->quiet = false;
	n = r.released + r.failed + r.kept;
	if (n)
		log_msg(r.failed ? LOG_ERR : LOG_INFO, "reload: [select] no longer selects %zu "
			"ring%s uringtune tuned: %zu restored, %zu could not be (kept in the "
			"journal), %zu pinned with set --force kept", n, n == 1 ? "" : "s",
			r.released, r.failed, r.kept);
}
