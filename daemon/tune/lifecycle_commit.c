// SPDX-License-Identifier: GPL-2.0-only
/*
 * "Journal before change" without the event loop waiting for the disk: the
 * lifecycle's side of the journal's group commit (journal_commit.h).
 *
 * A ring to take is staged (its entry in memory at generation G) and waits
 * in lc->waiting. One commit is in flight at a time; when it is done (the
 * committer's fd, lc_journal_kick()), its generation is durable and every
 * ring that waited for it or less is looked at again: the ring at that
 * address must still be the one staged (lc_same_ring: a ring that went away,
 * or whose fd moved, is not changed on stale data) and still be one to take
 * (an application that took it over, a reset, a stop, a [select] reload
 * meanwhile: not taken). Then it is changed; if not, its entry is dropped.
 * What was staged while the commit was in flight, drops included, goes into
 * the next one: many rings, one fsync pair.
 *
 * A failed commit: its rings are not tuned and get "cannot write the
 * journal: ..." as a failed write always gave them (tried again when next
 * found eligible, at a tick), the entries it carried first are forgotten,
 * and nothing is committed again before the next tick or new rings.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lifecycle.h"
#include "lifecycle_priv.h"
#include "log.h"

/* a ring whose first change waits for the journal */
struct lc_wait {
	struct journal_entry id;	/* the ring when it was staged (lc_same_ring) */
	uint64_t gen;			/* its entry is on disk once this generation is */
	uint64_t since_ns;		/* staged at, for the longest wait */
};

static struct journal_committer *committer(struct lifecycle *lc)
{
	return lc->commit ? lc->commit : &lc->own_commit;
}

int lc_wait_reserve(struct lifecycle *lc, size_t n)
{
	struct lc_wait *w;
	size_t cap = lc->cap_waiting ? lc->cap_waiting : 64;

	if (lc->n_waiting + n <= lc->cap_waiting)
		return 0;
	while (cap < lc->n_waiting + n)
		cap *= 2;
	w = reallocarray(lc->waiting, cap, sizeof(*w));
	if (!w)
		return -ENOMEM;
	lc->waiting = w;
	lc->cap_waiting = cap;
	return 0;
}

void lc_wait_add(struct lifecycle *lc, const struct ut_ring *ring, uint64_t gen)
{
	struct lc_wait *w = &lc->waiting[lc->n_waiting++];

	lc_identity_of(ring, &w->id);
	w->gen = gen;
	w->since_ns = lc_now(lc);
}

void lc_stage_drop(struct lifecycle *lc, const uint64_t *ctxs, size_t n)
{
	/* left in the journal: a stop or the next start finds those rings as they are */
	if (n && journal_stage_drop_many(&lc->journal, ctxs, n))
		log_err("journal %s: out of memory dropping %zu entries (a stop or the next "
			"start drops them)", lc->journal.path, n);
}

/* the journal's entry at @id's address is still the one staged for that ring */
static bool entry_is(struct lifecycle *lc, const struct journal_entry *id)
{
	const struct journal_entry *e = journal_find(&lc->journal, id->ctx);

	return e && e->pid == id->pid && e->fd == id->fd && e->ino == id->ino &&
	       e->start_boottime == id->start_boottime;
}

/* the ring waited for, if it is still there (else NULL) */
static struct ut_ring *ring_of(struct lifecycle *lc, const struct lc_wait *w)
{
	struct ut_ring *ring = registry_find(lc->reg, w->id.ctx);

	return ring && lc_same_ring(ring, &w->id) ? ring : NULL;
}

/* what became of the rings settled at once, for a burst's line */
struct settled {
	size_t tuned, refused, skipped;
	uint64_t *drop;
	size_t n_drop;
};

/* its commit is on disk: change it, or let it go */
static void settle_one(struct lifecycle *lc, const struct lc_wait *w, struct settled *s)
{
	struct ut_ring *ring = ring_of(lc, w);
	uint64_t waited = lc_now(lc) - w->since_ns;
	int ret = 0;

	if (ring) {
		ring->tune.queued = false;
		ret = lc_first_change(lc, ring);
	}
	if (ret > 0) {
		s->tuned++;
		if (waited > lc->commit_stats.wait_max_ns)
			lc->commit_stats.wait_max_ns = waited;
		if (w->gen)
			lc->commit_stats.rings++;
		return;
	}
	if (ret < 0)
		s->refused++;
	else
		s->skipped++;
	/* nothing was changed on its strength, unless the ring is uringtune's by now (set) */
	if (entry_is(lc, &w->id) && (!ring || ring->tune.managed_by != UT_MANAGED_URINGTUNE))
		s->drop[s->n_drop++] = w->id.ctx;
}

/* every waiting ring whose generation is on disk */
static void settle_ready(struct lifecycle *lc)
{
	uint64_t durable = lc->journal.durable_gen;
	struct settled s = {};
	size_t n = 0, k = 0;

	for (size_t i = 0; i < lc->n_waiting; i++)
		n += lc->waiting[i].gen <= durable;
	if (!n)
		return;
	s.drop = calloc(n, sizeof(*s.drop));
	if (!s.drop) {
		log_err("out of memory changing %zu rings (tried again at the next commit)", n);
		return;
	}
	lc->quiet = lc->n_found > LC_BURST || n > LC_BURST || lc->burst_waits;
	for (size_t i = 0; i < lc->n_waiting; i++) {
		if (lc->waiting[i].gen > durable)
			lc->waiting[k++] = lc->waiting[i];
		else
			settle_one(lc, &lc->waiting[i], &s);
	}
	lc->n_waiting = k;
	if (!k)
		lc->burst_waits = false;
	lc_stage_drop(lc, s.drop, s.n_drop);
	free(s.drop);
	/* rings queued without being found just now (a reload's [select]): their own line */
	if (lc->quiet && lc->n_found <= LC_BURST)
		log_info("took %zu rings: %zu tuned, %zu refused by the kernel%s", n, s.tuned,
			 s.refused, s.skipped ? ", the others gone or changed meanwhile" : "");
	lc_burst_report(lc);
}

/* the commit failed: none of its rings is changed */
static void commit_failed(struct lifecycle *lc, const struct journal_commit *c)
{
	size_t n = 0, k = 0;

	for (size_t i = 0; i < lc->n_waiting; i++) {
		struct lc_wait *w = &lc->waiting[i];
		struct ut_ring *ring;

		if (w->gen > c->gen) {
			lc->waiting[k++] = *w;
			continue;
		}
		n++;
		ring = ring_of(lc, w);
		if (!ring)
			continue;
		/* never a change without a way back; queued again when next seen */
		ring->tune.queued = false;
		snprintf(ring->tune.error, sizeof(ring->tune.error),
			 "cannot write the journal: %s", strerror(-c->ret));
	}
	lc->n_waiting = k;
	lc->actions_failed += n;
	lc->commit_stats.failed++;
	lc->commit_failed = true;
	journal_forget_failed(&lc->journal, c->gen);
	if (n)
		log_err("%zu ring%s not tuned: %s", n, n == 1 ? "" : "s", c->err);
	/* drops only, tried again every tick: said once, not every second */
	else
		log_msg(lc->commit_stats.failed_in_row ? LOG_DEBUG : LOG_WARNING, "%s (tried again "
			"every tick)", c->err);
	lc->commit_stats.failed_in_row++;
}

/* a commit came back from the committer */
static void reaped(struct lifecycle *lc, struct journal_commit *c)
{
	struct lifecycle_commit_stats *st = &lc->commit_stats;

	lc->inflight = NULL;
	st->write_last_ns = c->write_ns;
	if (c->write_ns > st->write_max_ns)
		st->write_max_ns = c->write_ns;
	if (c->ret) {
		commit_failed(lc, c);
	} else {
		journal_committed(&lc->journal, c->gen);
		st->commits++;
		lc->commit_failed = false;
		if (st->failed_in_row)
			log_info("journal %s: written again, after %" PRIu64 " failed writes",
				 lc->journal.path, st->failed_in_row);
		st->failed_in_row = 0;
	}
	journal_commit_free(c);
}

/* a snapshot of what is staged, to the committer */
static void submit(struct lifecycle *lc)
{
	struct journal_commit *c = journal_commit_new(&lc->journal);

	if (!c) {
		log_err("journal %s: out of memory for a commit of %zu entries (tried again at "
			"the next tick)", lc->journal.path, lc->journal.n);
		lc->commit_failed = true;
		return;
	}
	lc->inflight = c;
	journal_committer_submit(committer(lc), c);
}

void lc_journal_kick(struct lifecycle *lc)
{
	struct journal_committer *jc = committer(lc);
	struct journal_commit *c;

	if (!jc->ops)
		return;
	for (;;) {
		if (lc->inflight) {
			c = journal_committer_reap(jc, false);
			if (!c)
				break;
			reaped(lc, c);
		}
		settle_ready(lc);
		if (lc->inflight || lc->commit_failed || !journal_dirty(&lc->journal))
			break;
		submit(lc);
	}
}

void lifecycle_journal_done(struct lifecycle *lc)
{
	lc_journal_kick(lc);
}

/* the commit in flight, once written (waits) */
static void drain(struct lifecycle *lc)
{
	struct journal_commit *c;

	while (lc->inflight) {
		c = journal_committer_reap(committer(lc), true);
		if (!c) {
			/* cannot be: the committer has it; forget it rather than loop */
			log_err("journal: a commit in flight was lost");
			lc->inflight = NULL;
			break;
		}
		reaped(lc, c);
	}
}

int lc_journal_sync(struct lifecycle *lc)
{
	struct journal_commit *c;
	int ret = 0;

	if (!committer(lc)->ops)
		return -ENODEV;
	drain(lc);
	settle_ready(lc);
	if (!journal_dirty(&lc->journal))
		return 0;
	submit(lc);
	if (!lc->inflight)
		return -ENOMEM;
	c = journal_committer_reap(committer(lc), true);
	if (!c)
		return -EIO;
	ret = c->ret;
	reaped(lc, c);
	/* the rings this commit also carried, and what they drop */
	lc_journal_kick(lc);
	return ret;
}

void lc_wait_cancel(struct lifecycle *lc,
		    bool (*cancel)(struct lifecycle *lc, const struct ut_ring *ring))
{
	uint64_t *drop = calloc(lc->n_waiting ? lc->n_waiting : 1, sizeof(*drop));
	size_t k = 0, n_drop = 0;

	for (size_t i = 0; i < lc->n_waiting; i++) {
		const struct lc_wait *w = &lc->waiting[i];
		struct ut_ring *ring = ring_of(lc, w);

		if (!cancel(lc, ring)) {
			lc->waiting[k++] = *w;
			continue;
		}
		if (ring)
			ring->tune.queued = false;
		if (drop && entry_is(lc, &w->id))
			drop[n_drop++] = w->id.ctx;
	}
	lc->n_waiting = k;
	lc_stage_drop(lc, drop, n_drop);
	free(drop);
}

void lifecycle_commit_stats(const struct lifecycle *lc, struct lifecycle_commit_stats *out)
{
	*out = lc->commit_stats;
	out->waiting = lc->n_waiting;
}

void lc_commit_fini(struct lifecycle *lc)
{
	struct journal_commit *c;

	if (lc->inflight) {
		c = journal_committer_reap(committer(lc), true);
		journal_commit_free(c);
		lc->inflight = NULL;
	}
	journal_committer_fini(&lc->own_commit);
	lc->commit = NULL;
	free(lc->waiting);
	lc->waiting = NULL;
	lc->n_waiting = lc->cap_waiting = 0;
}
