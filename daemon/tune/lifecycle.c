// SPDX-License-Identifier: GPL-2.0-only
/* Taking rings and tuning them: journal first, then the backend; the tuner decides. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lifecycle.h"
#include "lifecycle_priv.h"
#include "log.h"

int lifecycle_init(struct lifecycle *lc, struct ut_registry *reg, const struct ut_config *cfg,
		   const struct lifecycle_env *env, char *err, size_t errlen)
{
	int ret;

	lc->reg = reg;
	lc->cfg = cfg;
	lc->env = *env;
	ret = journal_open(&lc->journal, cfg->state_dir, err, errlen);
	if (ret)
		return ret;
	ret = journal_committer_sync(&lc->own_commit, journal_commit_write, &lc->journal);
	if (ret) {
		snprintf(err, errlen, "out of memory");
		journal_close(&lc->journal);
	}
	return ret;
}

void lifecycle_fini(struct lifecycle *lc)
{
	/* before the journal goes: a commit in flight uses its directory */
	lc_commit_fini(lc);
	journal_close(&lc->journal);
	free(lc->take_queue);
	lc->take_queue = NULL;
	lc->n_take = lc->cap_take = 0;
	free(lc->found);
	lc->found = NULL;
	lc->n_found = lc->cap_found = 0;
	free(lc->gone);
	lc->gone = NULL;
	lc->n_gone = lc->cap_gone = 0;
}

uint64_t lc_now(const struct lifecycle *lc)
{
	return lc->env.now();
}

unsigned int lc_count_ids(const uint32_t *ids)
{
	unsigned int n = 0;

	while (n < UT_MAX_NAPI_IDS && ids[n])
		n++;
	return n;
}

const struct tune_backend *lc_backend(const struct lifecycle *lc, const struct ut_ring *ring)
{
	return ring_agent_driven(ring) ? &lc->agent : &lc->pidfd;
}

bool lc_same_ring(const struct ut_ring *ring, const struct journal_entry *e)
{
	const struct ut_holder *h = &ring->obs.holder;

	return h->pid == e->pid && h->fd == e->fd && (!e->ino || h->ino == e->ino) &&
	       (!e->start_boottime || h->start_boottime == e->start_boottime);
}

void lc_identity_of(const struct ut_ring *ring, struct journal_entry *id)
{
	const struct ut_holder *h = &ring->obs.holder;

	memset(id, 0, sizeof(*id));
	id->ctx = ring->ctx;
	id->pid = h->pid;
	id->fd = h->fd;
	id->ino = h->ino;
	id->start_boottime = h->start_boottime;
}

static void entry_of(const struct ut_ring *ring, struct journal_entry *e)
{
	lc_identity_of(ring, e);
	e->enabled = ring->obs.napi.enabled;
	e->busy_poll_us = ring->obs.napi.busy_poll_ns / 1000;
	e->prefer = ring->obs.napi.prefer;
	e->track_mode = ring->obs.napi.track_mode;
}

/* what status shows as the ring's NAPI state until the next sweep or event */
static void napi_from_setting(struct ut_ring *ring, const struct tuner_setting *s)
{
	struct ut_napi_state n = ring->obs.napi;

	n.enabled = s->enabled;
	n.busy_poll_ns = s->enabled ? (uint64_t)s->busy_poll_us * 1000 : 0;
	n.prefer = s->enabled && s->prefer;
	n.track_mode = !s->enabled ? UT_TRACK_INACTIVE :
		       s->static_ids ? UT_TRACK_STATIC : UT_TRACK_DYNAMIC;
	registry_napi_set(ring, &n);
}

int lc_apply(struct lifecycle *lc, struct ut_ring *ring, const struct tuner_setting *s,
	     char *err, size_t errlen)
{
	const struct tune_backend *b = lc_backend(lc, ring);
	int ret;

	if (!b->apply) {
		snprintf(err, errlen, "the ring's agent cannot be reached (no policy page)");
		return -ENODEV;
	}
	ret = b->apply(b->arg, ring, s, err, errlen);
	if (ret || !b->deferred)
		return ret;
	ring->tune.want = *s;
	/* the agent registers for every new decision, even one the ring already has */
	ring->tune.pending = true;
	ring->tune.register_unclaimed = false;
	ring->tune.published_ns = lc_now(lc);
	return 0;
}

void lc_refused(struct lifecycle *lc, struct ut_ring *ring, int ret, const char *err)
{
	ring->tune.refused = true;
	if (ret == -ESRCH || ret == -ESTALE) {
		/* nothing failed: the ring's process exited or closed it */
		lc->actions_vanished++;
		ring->tune.vanished = true;
		log_ring(LOG_DEBUG, ring, "went away before it could be changed: %s", err);
		snprintf(ring->tune.error, sizeof(ring->tune.error), "ring went away: %s", err);
		return;
	}
	lc->actions_failed++;
	snprintf(ring->tune.error, sizeof(ring->tune.error), "%s", err);
	/* in a burst the summary counts it and quotes the first */
	log_ring(lc->quiet ? LOG_DEBUG : LOG_WARNING, ring, "the kernel refused a NAPI change: "
		 "%s; leaving this ring alone", err);
}

void lc_took(struct lifecycle *lc, struct ut_ring *ring, const struct tuner_setting *s)
{
	struct ring_tune *t = &ring->tune;

	lc->actions_ok++;
	tuner_applied(&t->tuner, s, lc_now(lc));
	if (!t->reaction_ns)
		t->reaction_ns = t->tuner.last_change_ns - ring->obs.first_seen_ns;
	t->managed_by = UT_MANAGED_URINGTUNE;
	t->error[0] = '\0';
	/* through the agent: the register event says when it landed */
	if (!lc_backend(lc, ring)->deferred)
		napi_from_setting(ring, s);
}

/* the ring's entry in memory: a gone ring's at its address replaced; 0 or -errno */
static int stage_entry(struct lifecycle *lc, const struct ut_ring *ring, bool had_entry)
{
	struct journal_entry e;
	int ret = 0;

	if (had_entry)
		return 0;
	/* a new ring at a gone ring's address: the old entry undoes nothing */
	if (journal_find(&lc->journal, ring->ctx))
		ret = journal_stage_drop_many(&lc->journal, &ring->ctx, 1);
	if (ret)
		return ret;
	entry_of(ring, &e);
	return journal_stage_put_many(&lc->journal, &e, 1);
}

/*
 * An operator's `set`: the reply says whether the ring took it, so a ring
 * without an entry on disk waits here for its commit (and the commit in
 * flight before it). The only first change that waits on the loop.
 */
int lc_take(struct lifecycle *lc, struct ut_ring *ring, const struct tuner_setting *s)
{
	struct journal_entry *old = journal_find(&lc->journal, ring->ctx);
	bool had_entry = old && lc_same_ring(ring, old);
	bool journaled = lc_backend(lc, ring)->journaled;
	char err[160];
	int ret = 0;

	if (journaled) {
		ret = stage_entry(lc, ring, had_entry);
		if (!ret && !journal_durable(&lc->journal, ring->ctx))
			ret = lc_journal_sync(lc);
		if (ret) {
			/* never a change without a way back */
			snprintf(ring->tune.error, sizeof(ring->tune.error),
				 "cannot write the journal: %s", strerror(-ret));
			log_ring(LOG_ERR, ring, "not tuned: writing journal %s: %s",
				 lc->journal.path, strerror(-ret));
			lc->actions_failed++;
			return ret;
		}
	} else if (old && !had_entry) {
		lc_stage_drop(lc, &ring->ctx, 1);
		lc_journal_kick(lc);
	}
	ret = lc_apply(lc, ring, s, err, sizeof(err));
	if (ret) {
		if (!had_entry && journaled) {
			lc_stage_drop(lc, &ring->ctx, 1);
			lc_journal_kick(lc);
		}
		lc_refused(lc, ring, ret, err);
		return ret;
	}
	lc_took(lc, ring, s);
	return 0;
}

/* [select]; the rule that left the ring out is kept for the burst summary */
static bool selected(const struct lifecycle *lc, struct ut_ring *ring)
{
	const struct ut_holder *h = &ring->obs.holder;
	const char *why;

	ring->tune.excluded = NULL;
	if (lc->env.selects(lc->env.arg, h->pid, h->comm, &why))
		return true;
	ring->tune.excluded = why;
	log_ring(LOG_DEBUG, ring, "not tuned: %s", why);
	return false;
}

/* a ring uringtune may take, [select] aside (checked again once its entry is on disk) */
static bool takeable(const struct lifecycle *lc, const struct ut_ring *ring)
{
	const struct ring_tune *t = &ring->tune;
	const char *reason;

	if (lc->cfg->mode != UT_MODE_TUNE || !lc->ready)
		return false;
	if (t->managed_by != UT_MANAGED_NONE || t->pinned || t->hands_off || t->refused ||
	    ring->obs.napi.enabled || ring->obs.holder.pid == lc->self_pid ||
	    ring->obs.holder.fd < 0 || ring->obs.holder_lost)
		return false;
	return ring_tunable(ring->obs.setup_flags, lc->napi_supported, t->managed_by, &reason);
}

static bool eligible(const struct lifecycle *lc, struct ut_ring *ring)
{
	return takeable(lc, ring) && selected(lc, ring);
}

void lifecycle_ring_seen(struct lifecycle *lc, struct ut_ring *ring)
{
	uint64_t *q;

	if (ring->tune.queued || !eligible(lc, ring))
		return;
	if (lc->n_take == lc->cap_take) {
		size_t cap = lc->cap_take ? 2 * lc->cap_take : 64;

		q = reallocarray(lc->take_queue, cap, sizeof(*q));
		if (!q) {
			log_ring(LOG_ERR, ring, "out of memory queueing it");
			return;
		}
		lc->take_queue = q;
		lc->cap_take = cap;
	}
	lc->take_queue[lc->n_take++] = ring->ctx;
	ring->tune.queued = true;
}

/* found with NAPI on: we never change a ring before it is found, so its app did it */
static bool app_switched_on(const struct lifecycle *lc, const struct ut_ring *ring)
{
	if (!ring->obs.napi.enabled)
		return false;
	/* ... unless the daemon that tunes this host (not this one) did */
	return !lc->env.tuned_elsewhere || !lc->env.tuned_elsewhere(lc->env.arg, ring);
}

void lifecycle_ring_found(struct lifecycle *lc, struct ut_ring *ring, bool swept)
{
	ring->tune.managed_by = swept && app_switched_on(lc, ring) ? UT_MANAGED_APP :
				UT_MANAGED_NONE;
	lc_burst_found(lc, ring);
	lifecycle_ring_seen(lc, ring);
}

/* the queued rings still eligible, and the journal entries they need */
struct take_batch {
	struct ut_ring **rings;
	bool *fresh;			/* its entry is new: it waits for this commit */
	struct journal_entry *entries;
	uint64_t *stale;
	size_t n, n_new, n_stale;
};

static void batch_collect(struct lifecycle *lc, struct take_batch *b)
{
	for (size_t i = 0; i < lc->n_take; i++) {
		struct ut_ring *ring = registry_find(lc->reg, lc->take_queue[i]);
		struct journal_entry *old;

		/* queued once per ring: a ring queued twice is taken once */
		if (!ring || !ring->tune.queued)
			continue;
		ring->tune.queued = false;
		/* the ring may have changed hands since it was queued */
		if (!eligible(lc, ring))
			continue;
		/* still queued while it waits for the journal: not queued again meanwhile */
		ring->tune.queued = true;
		b->rings[b->n] = ring;
		old = journal_find(&lc->journal, ring->ctx);
		b->fresh[b->n++] = !old || !lc_same_ring(ring, old);
		if (old && lc_same_ring(ring, old))
			continue;
		/* a new ring at a gone ring's address: the old entry undoes nothing */
		if (old)
			b->stale[b->n_stale++] = ring->ctx;
		entry_of(ring, &b->entries[b->n_new++]);
	}
}

int lc_first_change(struct lifecycle *lc, struct ut_ring *ring)
{
	const struct tuner_policy *pol = &lc->cfg->napi;
	const struct ring_obs *o = &ring->obs;
	struct tuner_setting s;
	char err[160], why[96];
	int ret;

	/* what happened while the journal was written: taken over, reset, a stop */
	if (!takeable(lc, ring))
		return 0;
	/* no IDs given, no static list: a kernel before 6.13 has none */
	tuner_initial(pol, o->stats.napi_ids,
		      o->have_stats && !lc->napi_no_static ? lc_count_ids(o->stats.napi_ids) : 0,
		      lc_now(lc), &ring->tune.tuner, &s);
	/* eligible rings are tunable from outside: never through an agent */
	ret = lc->pidfd.apply(lc->pidfd.arg, ring, &s, err, sizeof(err));
	if (ret) {
		lc_refused(lc, ring, ret, err);
		return ret;
	}
	lc_took(lc, ring, &s);
	snprintf(why, sizeof(why), "taken: NAPI busy polling on, %u us%s, %s tracking",
		 s.busy_poll_us, s.prefer ? " (prefer)" : "", s.static_ids ? "static" : "dynamic");
	lc_record(ring, &s, lc_now(lc), why);
	log_ring(lc_detail(lc), ring, "%s", why + strlen("taken: "));
	return 1;
}

/* the batch could not be staged: nothing is changed */
static void batch_failed(struct lifecycle *lc, struct take_batch *b, int ret)
{
	log_err("%zu rings not tuned: journal %s: %s", b->n, lc->journal.path, strerror(-ret));
	for (size_t i = 0; i < b->n; i++) {
		b->rings[i]->tune.queued = false;
		snprintf(b->rings[i]->tune.error, sizeof(b->rings[i]->tune.error),
			 "cannot write the journal: %s", strerror(-ret));
	}
	lc->actions_failed += b->n;
}

/*
 * Take every queued ring: stage their journal entries, all in one commit,
 * and change each once that commit is on disk (lifecycle_commit.c); a ring
 * whose entry is on disk already is changed at once. Rings driven through
 * an agent never wait here (they are not eligible: SINGLE_ISSUER rings are
 * not tunable from outside).
 */
static void take_queued(struct lifecycle *lc)
{
	struct take_batch b = {};
	size_t n = lc->n_take;
	int ret;

	b.rings = calloc(n, sizeof(*b.rings));
	b.fresh = calloc(n, sizeof(*b.fresh));
	b.entries = calloc(n, sizeof(*b.entries));
	b.stale = calloc(n, sizeof(*b.stale));
	if (!b.rings || !b.fresh || !b.entries || !b.stale) {
		log_err("out of memory taking %zu rings", n);
		goto out;
	}
	batch_collect(lc, &b);
	ret = lc_wait_reserve(lc, b.n);
	if (!ret)
		ret = journal_stage_drop_many(&lc->journal, b.stale, b.n_stale);
	if (!ret)
		ret = journal_stage_put_many(&lc->journal, b.entries, b.n_new);
	if (ret) {
		batch_failed(lc, &b, ret);
		goto out;
	}
	for (size_t i = 0; i < b.n; i++)
		lc_wait_add(lc, b.rings[i], b.fresh[i] ? lc->journal.gen : 0);
	/* new rings: the disk is tried again even after a failed commit */
	lc->commit_failed = false;
	lc_journal_kick(lc);
out:
	lc->n_take = 0;
	free(b.rings);
	free(b.fresh);
	free(b.entries);
	free(b.stale);
}

void lifecycle_flush(struct lifecycle *lc)
{
	/* a burst: one summary line (lc_burst_report), each ring's at debug */
	lc->quiet = lc->n_found > LC_BURST || lc->n_take > LC_BURST;
	if (lc->n_take)
		take_queued(lc);
	/* rings still waiting for the journal: their burst is told once they are changed */
	if (!lc->n_waiting)
		lc_burst_report(lc);
	lc->quiet = false;
}

static void decide(struct lifecycle *lc, struct ut_ring *ring, uint64_t now)
{
	struct ring_tune *t = &ring->tune;
	struct tuner_setting s;
	struct tuner_input in;
	char why[200], err[160];
	int ret;

	/* its holder let go of it: no (pid, fd) to reach it by until it is found again */
	if (ring->obs.holder_lost)
		return;
	lc_input_of(lc, ring, now, &in);
	if (tuner_decide(&lc->cfg->napi, &t->tuner, &in, &s, why, sizeof(why)) != TUNER_APPLY)
		return;
	ret = lc_apply(lc, ring, &s, err, sizeof(err));
	if (ret) {
		lc_refused(lc, ring, ret, err);
		return;
	}
	lc->actions_ok++;
	tuner_applied(&t->tuner, &s, now);
	if (!lc_backend(lc, ring)->deferred)
		napi_from_setting(ring, &s);
	snprintf(t->last_decision, sizeof(t->last_decision), "%s", why);
	lc_record(ring, &s, now, why);
	log_ring(LOG_INFO, ring, "%s", why);
}

void lifecycle_tick(struct lifecycle *lc)
{
	uint64_t now = lc_now(lc);
	struct ut_ring *ring;
	size_t i;

	/* a commit that failed is tried again once a tick, not in a loop */
	lc->commit_failed = false;
	lc_journal_kick(lc);

	registry_for_each(lc->reg, i, ring) {
		struct ring_tune *t = &ring->tune;

		if (t->managed_by == UT_MANAGED_URINGTUNE) {
			/* an IOPOLL ring is uringtune's for hybrid polling only: no NAPI */
			if (lc->cfg->mode == UT_MODE_TUNE && ring->obs.have_stats &&
			    t->have_last_stats && !t->pinned && !t->refused &&
			    !(ring->obs.setup_flags & UT_SETUP_IOPOLL))
				decide(lc, ring, now);
		} else {
			/* an idle ring has no statistics yet: eligible all the same */
			lifecycle_ring_seen(lc, ring);
		}
		/* observe mode: what tune mode would do, on the same input */
		lc_advise(lc, ring, now);
		if (ring->obs.have_stats) {
			t->last_stats = ring->obs.stats;
			t->have_last_stats = true;
		}
	}
}
