// SPDX-License-Identifier: GPL-2.0-only
/* The way back: settling a previous run's journal, restoring, an app taking over. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lifecycle.h"
#include "lifecycle_priv.h"
#include "log.h"

void lc_readopt(struct lifecycle *lc, struct ut_ring *ring, struct tuner_setting *cur)
{
	const struct ut_napi_state *n = &ring->obs.napi;

	/* still as uringtune left it: carry on from the kernel's state */
	memset(cur, 0, sizeof(*cur));
	cur->enabled = true;
	cur->busy_poll_us = n->busy_poll_ns / 1000;
	cur->prefer = n->prefer;
	cur->static_ids = n->track_mode == UT_TRACK_STATIC;
	tuner_applied(&ring->tune.tuner, cur, lc_now(lc));
	ring->tune.managed_by = UT_MANAGED_URINGTUNE;
}

/* the ring is back as it was before uringtune: nobody's */
static void released(struct ut_ring *ring, const struct journal_entry *e, uint64_t now)
{
	const struct tuner_setting back = {
		.enabled = e->enabled, .busy_poll_us = e->busy_poll_us, .prefer = e->prefer,
		.static_ids = e->track_mode == UT_TRACK_STATIC,
	};
	struct ut_napi_state n = ring->obs.napi;

	/* reset, a reload's [select], a stop, a start in observe mode */
	lc_record(ring, &back, now, "restored: back as it was before uringtune changed it");

	ring->tune.managed_by = UT_MANAGED_NONE;
	ring->tune.pinned = false;
	ring->tune.forced = false;
	memset(&ring->tune.tuner, 0, sizeof(ring->tune.tuner));
	n.enabled = e->enabled;
	n.busy_poll_ns = e->enabled ? (uint64_t)e->busy_poll_us * 1000 : 0;
	n.prefer = e->prefer;
	n.track_mode = e->track_mode;
	registry_napi_set(ring, &n);
}

/* put one journaled ring back; 0 (done, or the ring is gone), or -errno */
static int restore_ring(struct lifecycle *lc, const struct journal_entry *e)
{
	struct ut_ring *ring = registry_find(lc->reg, e->ctx);
	struct journal_entry copy = *e;
	char err[160];
	int ret;

	ret = lc->pidfd.restore(lc->pidfd.arg, &copy, err, sizeof(err));
	if (ret && ret != -ESRCH && ret != -ESTALE) {
		log_err("ring pid=%d fd=%d: restoring its NAPI settings failed: %s "
			"(kept in the journal for the next start)", copy.pid, copy.fd, err);
		return ret;
	}
	if (ret)
		log_debug("ring pid=%d fd=%d is gone, nothing to restore: %s", copy.pid, copy.fd,
			  err);
	else
		log_msg(lc_detail(lc), "ring pid=%d fd=%d: NAPI settings restored (%s)", copy.pid,
			copy.fd, copy.enabled ? "enabled" : "disabled");
	if (ring)
		released(ring, &copy, lc_now(lc));
	return 0;
}

int lc_restore_entry(struct lifecycle *lc, const struct journal_entry *e)
{
	uint64_t ctx = e->ctx;
	int ret = restore_ring(lc, e);

	if (ret)
		return ret;
	/* put back already: the drop waits for no one, the next commit carries it */
	lc_stage_drop(lc, &ctx, 1);
	lc_journal_kick(lc);
	return 0;
}

int lc_restore_matching(struct lifecycle *lc,
			bool (*pick)(struct lifecycle *lc, const struct journal_entry *e, void *arg),
			void *arg, size_t *done_out)
{
	size_t n = lc->journal.n, done = 0;
	uint64_t *ctxs;
	int failed = 0;

	if (done_out)
		*done_out = 0;
	if (!n)
		return 0;
	ctxs = calloc(n, sizeof(*ctxs));
	if (!ctxs)
		return (int)n;
	/* every ring first, then one journal write: a stop stays quick */
	for (size_t i = 0; i < n; i++) {
		const struct journal_entry *e = &lc->journal.entries[i];

		if (pick && !pick(lc, e, arg))
			continue;
		/* its ring waits for the commit: unchanged, let go with it (lifecycle_commit.c) */
		if (!journal_durable_at(&lc->journal, i))
			continue;
		if (restore_ring(lc, e))
			failed++;
		else
			ctxs[done++] = e->ctx;
	}
	/* restored but still journaled if it fails: the next start finds them as they were */
	lc_stage_drop(lc, ctxs, done);
	lc_journal_kick(lc);
	free(ctxs);
	if (done_out)
		*done_out = done;
	return failed;
}

int lifecycle_restore_all(struct lifecycle *lc)
{
	size_t done;
	int failed;

	lc->quiet = lc->journal.n > LC_BURST;
	failed = lc_restore_matching(lc, NULL, NULL, &done);
	if (lc->quiet)
		log_msg(failed ? LOG_ERR : LOG_INFO, "restored %zu rings uringtune changed%s", done,
			failed ? ", some could not be (kept in the journal; see the lines above)" :
			"");
	lc->quiet = false;
	return failed;
}

/* what settling a previous run's journal did, for the summary of a burst */
struct settle_count {
	size_t gone, readopted, restored, failed;
};

/* a previous run's entry: 1 to drop it (ring gone, or restored), 0 to keep it */
static int settle_entry(struct lifecycle *lc, const struct journal_entry *e,
			struct settle_count *c)
{
	struct ut_ring *ring = registry_find(lc->reg, e->ctx);
	struct tuner_setting cur;

	if (!ring || !lc_same_ring(ring, e)) {
		log_msg(lc_detail(lc), "journal: ring pid=%d fd=%d is gone since the last run",
			e->pid, e->fd);
		c->gone++;
		return 1;
	}
	if (lc->cfg->mode == UT_MODE_TUNE && ring->obs.napi.enabled) {
		lc_readopt(lc, ring, &cur);
		log_msg(lc_detail(lc), "journal: ring pid=%d comm=%s fd=%d re-adopted (%u us)",
			e->pid, ring->obs.holder.comm, e->fd, cur.busy_poll_us);
		c->readopted++;
		return 0;
	}
	if (restore_ring(lc, e)) {
		c->failed++;
		return 0;
	}
	c->restored++;
	return 1;
}

void lifecycle_settle_journal(struct lifecycle *lc)
{
	size_t n = lc->journal.n, n_drop = 0;
	uint64_t *drop = calloc(n ? n : 1, sizeof(*drop));
	struct settle_count c = {};

	lc->quiet = n > LC_BURST;
	/* every entry first, then one journal write (a restore is kept until it is done) */
	for (size_t i = 0; drop && i < n; i++) {
		struct journal_entry e = lc->journal.entries[i];

		if (settle_entry(lc, &e, &c))
			drop[n_drop++] = e.ctx;
	}
	if (!drop)
		log_err("journal: out of memory settling %zu entries (kept for the next start)", n);
	if (lc->quiet)
		log_msg(c.failed ? LOG_ERR : LOG_INFO, "journal: %zu rings from the last run: %zu "
			"re-adopted, %zu restored, %zu gone, %zu could not be restored (kept)", n,
			c.readopted, c.restored, c.gone, c.failed);
	lc->quiet = false;
	/* before the loop runs, so written here; if not, a next start settles them again */
	lc_stage_drop(lc, drop, n_drop);
	if (n_drop && lc_journal_sync(lc))
		log_err("journal %s: dropping %zu settled entries failed", lc->journal.path,
			n_drop);
	free(drop);
	lc->ready = true;
}

void lifecycle_ring_gone(struct lifecycle *lc, const struct ut_ring *ring)
{
	struct journal_entry *q;

	/* its changes died with it; the journal is searched once per batch */
	if (lc->n_gone == lc->cap_gone) {
		size_t cap = lc->cap_gone ? 2 * lc->cap_gone : 64;

		q = reallocarray(lc->gone, cap, sizeof(*q));
		if (!q) {
			/* left in the journal: a restore finds the ring gone and drops it */
			log_ring(LOG_ERR, ring, "out of memory dropping its journal entry");
			return;
		}
		lc->gone = q;
		lc->cap_gone = cap;
	}
	lc_identity_of(ring, &lc->gone[lc->n_gone++]);
}

static int by_ctx(const void *a, const void *b)
{
	const struct journal_entry *x = a, *y = b;

	return x->ctx < y->ctx ? -1 : x->ctx > y->ctx;
}

/* is the journal entry @e of the gone ring @id? (as lc_same_ring) */
static bool entry_of_gone(const struct journal_entry *e, const struct journal_entry *id)
{
	return e->pid == id->pid && e->fd == id->fd && (!e->ino || e->ino == id->ino) &&
	       (!e->start_boottime || e->start_boottime == id->start_boottime);
}

/*
 * Is @e the entry of one of the gone rings (@gone, @n, sorted by address)?
 * Several rings may have lived at its address since the last drop (freed
 * ring memory is reused at once): each of them is asked, not the first met.
 */
static bool entry_is_gone(const struct journal_entry *e, const struct journal_entry *gone,
			  size_t n)
{
	size_t lo = 0, hi = n;

	/* the first gone ring at or above the entry's address */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (gone[mid].ctx < e->ctx)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && gone[lo].ctx == e->ctx; lo++)
		if (entry_of_gone(e, &gone[lo]))
			return true;
	return false;
}

void lifecycle_drop_gone(struct lifecycle *lc)
{
	struct journal *j = &lc->journal;
	uint64_t *drop;
	size_t n = 0;

	if (!lc->n_gone)
		return;
	drop = calloc(j->n ? j->n : 1, sizeof(*drop));
	if (!drop) {
		log_err("journal: out of memory dropping %zu gone rings (a stop drops them)",
			lc->n_gone);
		goto out;
	}
	/* sorted once: 10 000 rings gone against 10 000 entries stays quick */
	qsort(lc->gone, lc->n_gone, sizeof(*lc->gone), by_ctx);
	for (size_t i = 0; i < j->n; i++)
		/* not a new ring's entry at a gone ring's address */
		if (entry_is_gone(&j->entries[i], lc->gone, lc->n_gone))
			drop[n++] = j->entries[i].ctx;
	/* their changes died with them: no one waits for this drop */
	lc_stage_drop(lc, drop, n);
	lc_journal_kick(lc);
	free(drop);
out:
	lc->n_gone = 0;
}

void lifecycle_app_took_over(struct lifecycle *lc, struct ut_ring *ring)
{
	struct ring_tune *t = &ring->tune;
	bool changed;

	t->managed_by = UT_MANAGED_APP;
	t->pinned = false;
	t->forced = false;
	t->pending = false;
	memset(&t->tuner, 0, sizeof(t->tuner));
	if (!journal_find(&lc->journal, ring->ctx))
		return;
	changed = journal_durable(&lc->journal, ring->ctx);
	/* the application's choice stands: nothing is restored over it */
	lc_stage_drop(lc, &ring->ctx, 1);
	lc_journal_kick(lc);
	/* still waiting for the journal: uringtune changed nothing yet */
	if (changed)
		log_ring(LOG_INFO, ring, "its application took over NAPI; uringtune forgets its own "
		 "change");
}

/* every agent ring uringtune switched NAPI on for gets it off, at its next call */
static void agent_rings_off(struct lifecycle *lc)
{
	static const struct tuner_setting off = { .enabled = false };
	struct ut_ring *ring;
	char err[128];
	size_t i, n = 0;

	registry_for_each(lc->reg, i, ring) {
		const struct ring_tune *t = &ring->tune;

		/* a decision still on its way would switch NAPI on after we are gone */
		if (!ring_agent_driven(ring) || t->managed_by != UT_MANAGED_URINGTUNE ||
		    !(ring->obs.napi.enabled || (t->pending && t->want.enabled)))
			continue;
		if (lc_apply(lc, ring, &off, err, sizeof(err)) == 0)
			n++;
	}
	if (n)
		log_info("%zu ring%s set up through the agent: NAPI off at the ring's next submit "
			 "or wait", n, n == 1 ? "" : "s");
}

static bool every_ring(struct lifecycle *lc, const struct ut_ring *ring)
{
	(void)lc, (void)ring;
	return true;
}

int lifecycle_stop(struct lifecycle *lc)
{
	int failed;

	/* no ring is taken any more: those waiting for the journal are let go unchanged */
	lc->ready = false;
	lc_wait_cancel(lc, every_ring);
	/* the agents apply it at their rings' next call, after we are gone */
	agent_rings_off(lc);
	failed = lc->journal.n ? lifecycle_restore_all(lc) : 0;
	/* the last commit, waited for: a start finds what is left (or nothing) */
	if (journal_dirty(&lc->journal) && lc_journal_sync(lc))
		log_err("journal %s: the last write failed: the next start restores the rings it "
			"still names, or finds them gone", lc->journal.path);
	return failed;
}
