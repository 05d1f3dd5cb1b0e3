// SPDX-License-Identifier: GPL-2.0-only
/* Tune mode: journal first, then the actuator; the tuner decides. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "actuator.h"
#include "agent_server.h"
#include "clock.h"
#include "log.h"
#include "select.h"
#include "tuning.h"
#include "uring_abi.h"

static void target_of(const struct ut_ring *ring, struct ring_target *t)
{
	t->pid = ring->holder.pid;
	t->start_boottime = ring->holder.start_boottime;
	t->fd = ring->holder.fd;
	t->ino = ring->holder.ino;
}

static void entry_of(const struct ut_ring *ring, struct journal_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->ctx = ring->ctx;
	e->pid = ring->holder.pid;
	e->start_boottime = ring->holder.start_boottime;
	e->fd = ring->holder.fd;
	e->ino = ring->holder.ino;
	e->enabled = ring->napi.enabled;
	e->busy_poll_us = ring->napi.busy_poll_ns / 1000;
	e->prefer = ring->napi.prefer;
	e->track_mode = ring->napi.track_mode;
}

/* what status shows as the ring's NAPI state until the next sweep or event */
static void napi_from_setting(struct ut_ring *ring, const struct tuner_setting *s)
{
	ring->napi.enabled = s->enabled;
	ring->napi.busy_poll_ns = s->enabled ? (uint64_t)s->busy_poll_us * 1000 : 0;
	ring->napi.prefer = s->enabled && s->prefer;
	ring->napi.track_mode = !s->enabled ? UT_TRACK_INACTIVE :
				s->static_ids ? UT_TRACK_STATIC : UT_TRACK_DYNAMIC;
}

bool tuning_selects(const struct ut_daemon *d, pid_t pid, const char *comm, const char **why)
{
	return select_process(&d->cfg.select, "/proc", pid, comm, why);
}

static bool selected(const struct ut_daemon *d, const struct ut_ring *ring)
{
	const char *why;

	if (tuning_selects(d, ring->holder.pid, ring->holder.comm, &why))
		return true;
	log_debug("ring pid=%d comm=%s fd=%d not tuned: %s", ring->holder.pid,
		  ring->holder.comm, ring->holder.fd, why);
	return false;
}

static bool eligible(const struct ut_daemon *d, const struct ut_ring *ring)
{
	const char *reason;

	if (d->cfg.mode != UT_MODE_TUNE || !d->tuning_ready)
		return false;
	if (ring->managed_by != UT_MANAGED_NONE || ring->pinned || ring->hands_off ||
	    ring->refused || ring->napi.enabled || ring->holder.pid == d->self_pid ||
	    ring->holder.fd < 0)
		return false;
	if (!ring_tunable(ring->setup_flags, d->napi_supported, ring->managed_by, &reason))
		return false;
	return selected(d, ring);
}

/*
 * A kernel refusal is a state the ring keeps, shown in status, logged once;
 * a ring that vanished is no error at all.
 */
static void refused(struct ut_daemon *d, struct ut_ring *ring, int ret, const char *err)
{
	d->actions_failed++;
	ring->refused = true;
	if (ret == -ESRCH || ret == -ESTALE) {
		log_debug("ring pid=%d fd=%d went away before it could be changed: %s",
			  ring->holder.pid, ring->holder.fd, err);
		snprintf(ring->tune_error, sizeof(ring->tune_error), "ring went away: %s", err);
		return;
	}
	snprintf(ring->tune_error, sizeof(ring->tune_error), "%s", err);
	log_warn("ring pid=%d comm=%s fd=%d: the kernel refused a NAPI change: %s; "
		 "leaving this ring alone", ring->holder.pid, ring->holder.comm,
		 ring->holder.fd, err);
}

static bool same_ring(const struct ut_ring *ring, const struct journal_entry *e)
{
	return ring->holder.pid == e->pid && ring->holder.fd == e->fd &&
	       (!e->ino || ring->holder.ino == e->ino) &&
	       (!e->start_boottime || ring->holder.start_boottime == e->start_boottime);
}

static void took(struct ut_daemon *d, struct ut_ring *ring, const struct tuner_setting *s)
{
	d->actions_ok++;
	tuner_applied(&ring->tuner, s, now_ns());
	if (!ring->reaction_ns)
		ring->reaction_ns = ring->tuner.last_change_ns - ring->first_seen_ns;
	ring->managed_by = UT_MANAGED_URINGTUNE;
	ring->tune_error[0] = '\0';
	/* through the agent: the register event says when it landed */
	if (!agent_server_drives(ring))
		napi_from_setting(ring, s);
}

/*
 * Give a ring a setting: from outside (actuator), or through its slot in the
 * agent's page for a ring that refuses outside calls (SINGLE_ISSUER, EEXIST).
 */
static int apply(struct ut_daemon *d, struct ut_ring *ring, const struct tuner_setting *s,
		 char *err, size_t errlen)
{
	struct ring_target t;

	if (agent_server_drives(ring))
		return agent_server_publish(d, ring, s, err, errlen);
	target_of(ring, &t);
	return actuator_apply(&t, s, err, errlen);
}

/* journal (first change only), then the kernel */
static int take(struct ut_daemon *d, struct ut_ring *ring, const struct tuner_setting *s)
{
	struct journal_entry e, *old = journal_find(&d->journal, ring->ctx);
	bool had_entry = old && same_ring(ring, old);
	/* a ring reached through its agent has the agent's page as its record */
	bool journaled = !agent_server_drives(ring);
	char err[160];
	int ret;

	/* a new ring at a gone ring's address: the old entry undoes nothing */
	if (old && !had_entry && journal_drop(&d->journal, ring->ctx))
		return -EIO;

	if (!had_entry && journaled) {
		entry_of(ring, &e);
		ret = journal_put(&d->journal, &e);
		if (ret) {
			/* never a change without a way back */
			snprintf(ring->tune_error, sizeof(ring->tune_error),
				 "cannot write the journal: %s", strerror(-ret));
			log_err("ring pid=%d fd=%d not tuned: writing journal %s: %s",
				ring->holder.pid, ring->holder.fd, d->journal.path, strerror(-ret));
			d->actions_failed++;
			return ret;
		}
	}
	ret = apply(d, ring, s, err, sizeof(err));
	if (ret) {
		if (!had_entry && journaled)
			journal_drop(&d->journal, ring->ctx);
		refused(d, ring, ret, err);
		return ret;
	}
	took(d, ring, s);
	return 0;
}

static unsigned int count_ids(const uint32_t *ids)
{
	unsigned int n = 0;

	while (n < UT_MAX_NAPI_IDS && ids[n])
		n++;
	return n;
}

void tuning_ring_seen(struct ut_daemon *d, struct ut_ring *ring)
{
	uint64_t *q;

	if (ring->queued || !eligible(d, ring))
		return;
	if (d->n_take == d->cap_take) {
		size_t cap = d->cap_take ? 2 * d->cap_take : 64;

		q = reallocarray(d->take_queue, cap, sizeof(*q));
		if (!q) {
			log_err("out of memory queueing ring pid=%d fd=%d", ring->holder.pid,
				ring->holder.fd);
			return;
		}
		d->take_queue = q;
		d->cap_take = cap;
	}
	d->take_queue[d->n_take++] = ring->ctx;
	ring->queued = true;
}


/*
 * Take every queued ring: journal them all in one write, then change them
 * one by one, then forget the journal entries of those the kernel refused.
 */
void tuning_flush(struct ut_daemon *d)
{
	size_t n = 0, n_new = 0, n_stale = 0, n_failed = 0, i;
	struct journal_entry *entries = NULL;
	uint64_t *stale = NULL, *failed = NULL;
	struct ut_ring **rings = NULL;
	struct tuner_setting s;
	struct ring_target t;
	char err[160];
	int ret;

	if (!d->n_take)
		return;
	rings = calloc(d->n_take, sizeof(*rings));
	entries = calloc(d->n_take, sizeof(*entries));
	stale = calloc(d->n_take, sizeof(*stale));
	failed = calloc(d->n_take, sizeof(*failed));
	if (!rings || !entries || !stale || !failed) {
		log_err("out of memory taking %zu rings", d->n_take);
		goto out;
	}
	for (i = 0; i < d->n_take; i++) {
		struct ut_ring *ring = registry_find(&d->reg, d->take_queue[i]);
		struct journal_entry *old;

		/* queued once per ring: a ring queued twice is taken once */
		if (!ring || !ring->queued)
			continue;
		ring->queued = false;
		/* the ring may have changed hands since it was queued */
		if (!eligible(d, ring))
			continue;
		rings[n++] = ring;
		old = journal_find(&d->journal, ring->ctx);
		if (old && same_ring(ring, old))
			continue;
		/* a new ring at a gone ring's address: the old entry undoes nothing */
		if (old)
			stale[n_stale++] = ring->ctx;
		entry_of(ring, &entries[n_new++]);
	}
	ret = journal_drop_many(&d->journal, stale, n_stale);
	if (!ret)
		ret = journal_put_many(&d->journal, entries, n_new);
	if (ret) {
		/* never a change without a way back */
		log_err("%zu rings not tuned: writing journal %s: %s", n, d->journal.path,
			strerror(-ret));
		for (i = 0; i < n; i++)
			snprintf(rings[i]->tune_error, sizeof(rings[i]->tune_error),
				 "cannot write the journal: %s", strerror(-ret));
		d->actions_failed += n;
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct ut_ring *ring = rings[i];

		tuner_initial(&d->cfg.napi, ring->stats.napi_ids,
			      ring->have_stats ? count_ids(ring->stats.napi_ids) : 0, now_ns(),
			      &ring->tuner, &s);
		target_of(ring, &t);
		ret = actuator_apply(&t, &s, err, sizeof(err));
		if (ret) {
			refused(d, ring, ret, err);
			failed[n_failed++] = ring->ctx;
			continue;
		}
		took(d, ring, &s);
		log_info("ring pid=%d comm=%s fd=%d: NAPI busy polling on, %u us%s, %s tracking",
			 ring->holder.pid, ring->holder.comm, ring->holder.fd, s.busy_poll_us,
			 s.prefer ? " (prefer)" : "", s.static_ids ? "static" : "dynamic");
	}
	/* nothing was changed on those: their entries undo nothing */
	if (journal_drop_many(&d->journal, failed, n_failed))
		log_err("dropping %zu journal entries of refused rings failed", n_failed);
out:
	d->n_take = 0;
	free(rings);
	free(entries);
	free(stale);
	free(failed);
}

void tuning_ring_gone(struct ut_daemon *d, const struct ut_ring *ring)
{
	struct journal_entry *e = journal_find(&d->journal, ring->ctx);

	/* its changes died with it */
	if (e && same_ring(ring, e))
		journal_drop(&d->journal, ring->ctx);
}

void tuning_app_took_over(struct ut_daemon *d, struct ut_ring *ring)
{
	ring->pinned = false;
	memset(&ring->tuner, 0, sizeof(ring->tuner));
	if (!journal_find(&d->journal, ring->ctx))
		return;
	/* the application's choice stands: nothing is restored over it */
	if (journal_drop(&d->journal, ring->ctx))
		log_err("ring pid=%d fd=%d: dropping its journal entry failed",
			ring->holder.pid, ring->holder.fd);
	log_info("ring pid=%d comm=%s fd=%d: its application took over NAPI; uringtune "
		 "forgets its own change", ring->holder.pid, ring->holder.comm, ring->holder.fd);
}

/* statistics since the previous tick */
static void input_of(const struct ut_ring *ring, uint64_t now, struct tuner_input *in)
{
	const struct ut_ring_stats *a = &ring->stats, *b = &ring->last_stats;
	memset(in, 0, sizeof(*in));
	in->now_ns = now;
	in->waits = a->waits - b->waits;
	in->waits_nosleep = a->waits_nosleep - b->waits_nosleep;
	in->busy_windows = a->busy_windows - b->busy_windows;
	in->busy_paid = a->busy_paid - b->busy_paid;
	for (int i = 0; i < UT_HIST_SLOTS; i++)
		in->hist[i] = a->busy_hist[i] - b->busy_hist[i];
	in->napi_ids = a->napi_ids;
	in->n_ids = count_ids(a->napi_ids);
	in->ids_changed_ns = a->napi_ids_changed_ns;
}

static void decide(struct ut_daemon *d, struct ut_ring *ring, uint64_t now)
{
	struct tuner_setting s;
	struct tuner_input in;
	char why[200], err[160];
	int ret;

	input_of(ring, now, &in);
	if (tuner_decide(&d->cfg.napi, &ring->tuner, &in, &s, why, sizeof(why)) != TUNER_APPLY)
		return;
	ret = apply(d, ring, &s, err, sizeof(err));
	if (ret) {
		refused(d, ring, ret, err);
		return;
	}
	d->actions_ok++;
	tuner_applied(&ring->tuner, &s, now);
	if (!agent_server_drives(ring))
		napi_from_setting(ring, &s);
	snprintf(ring->last_decision, sizeof(ring->last_decision), "%s", why);
	log_info("ring pid=%d comm=%s fd=%d: %s", ring->holder.pid, ring->holder.comm,
		 ring->holder.fd, why);
}

void tuning_tick(struct ut_daemon *d)
{
	uint64_t now = now_ns();
	struct ut_ring *ring;
	size_t i;

	registry_for_each(&d->reg, i, ring) {
		if (ring->managed_by == UT_MANAGED_URINGTUNE) {
			/* an IOPOLL ring is uringtune's for hybrid polling only: no NAPI */
			if (d->cfg.mode == UT_MODE_TUNE && ring->have_stats &&
			    ring->have_last_stats && !ring->pinned && !ring->refused &&
			    !(ring->setup_flags & UT_SETUP_IOPOLL))
				decide(d, ring, now);
		} else {
			/* an idle ring has no statistics yet: eligible all the same */
			tuning_ring_seen(d, ring);
		}
		if (ring->have_stats) {
			ring->last_stats = ring->stats;
			ring->have_last_stats = true;
		}
	}
}

/* put one journaled ring back; 0 (done, or the ring is gone), or -errno */
static int restore_ring(struct ut_daemon *d, const struct journal_entry *e)
{
	struct ut_ring *ring = registry_find(&d->reg, e->ctx);
	struct journal_entry copy = *e;
	struct ring_target t;
	char err[160];
	int ret;

	actuator_target_of(&copy, &t);
	ret = actuator_restore(&t, &copy, err, sizeof(err));
	if (ret && ret != -ESRCH && ret != -ESTALE) {
		log_err("ring pid=%d fd=%d: restoring its NAPI settings failed: %s "
			"(kept in the journal for the next start)", copy.pid, copy.fd, err);
		return ret;
	}
	if (ret)
		log_debug("ring pid=%d fd=%d is gone, nothing to restore: %s", copy.pid, copy.fd,
			  err);
	else
		log_info("ring pid=%d fd=%d: NAPI settings restored (%s)", copy.pid, copy.fd,
			 copy.enabled ? "enabled" : "disabled");
	if (ring) {
		ring->managed_by = UT_MANAGED_NONE;
		ring->pinned = false;
		memset(&ring->tuner, 0, sizeof(ring->tuner));
		ring->napi.enabled = copy.enabled;
		ring->napi.busy_poll_ns = copy.enabled ? (uint64_t)copy.busy_poll_us * 1000 : 0;
		ring->napi.prefer = copy.prefer;
		ring->napi.track_mode = copy.track_mode;
	}
	return 0;
}

/* put one journaled ring back and forget it; 0, or -errno if it must stay */
static int restore_entry(struct ut_daemon *d, const struct journal_entry *e)
{
	uint64_t ctx = e->ctx;
	int ret = restore_ring(d, e);

	return ret ? ret : journal_drop(&d->journal, ctx);
}

int tuning_restore_all(struct ut_daemon *d)
{
	size_t n = d->journal.n, done = 0;
	uint64_t *ctxs;
	int failed = 0;

	if (!n)
		return 0;
	ctxs = calloc(n, sizeof(*ctxs));
	if (!ctxs)
		return (int)n;
	/* every ring first, then one journal write: a stop stays quick */
	for (size_t i = 0; i < n; i++) {
		if (restore_ring(d, &d->journal.entries[i]))
			failed++;
		else
			ctxs[done++] = d->journal.entries[i].ctx;
	}
	if (journal_drop_many(&d->journal, ctxs, done)) {
		/* restored but still journaled: the next start finds them as they were */
		log_err("journal %s: dropping %zu restored rings failed", d->journal.path, done);
	}
	free(ctxs);
	return failed;
}


void tuning_readopt(struct ut_ring *ring, uint64_t now, struct tuner_setting *cur)
{
	/* still as uringtune left it: carry on from the kernel's state */
	memset(cur, 0, sizeof(*cur));
	cur->enabled = true;
	cur->busy_poll_us = ring->napi.busy_poll_ns / 1000;
	cur->prefer = ring->napi.prefer;
	cur->static_ids = ring->napi.track_mode == UT_TRACK_STATIC;
	tuner_applied(&ring->tuner, cur, now);
	ring->managed_by = UT_MANAGED_URINGTUNE;
}

void tuning_settle_journal(struct ut_daemon *d)
{
	uint64_t now = now_ns();
	size_t i;

	for (i = d->journal.n; i-- > 0;) {
		struct journal_entry e = d->journal.entries[i];
		struct ut_ring *ring = registry_find(&d->reg, e.ctx);

		if (!ring || !same_ring(ring, &e)) {
			log_info("journal: ring pid=%d fd=%d is gone since the last run", e.pid, e.fd);
			journal_drop(&d->journal, e.ctx);
			continue;
		}
		if (d->cfg.mode == UT_MODE_TUNE && ring->napi.enabled) {
			struct tuner_setting cur;

			tuning_readopt(ring, now, &cur);
			log_info("journal: ring pid=%d comm=%s fd=%d re-adopted (%u us)", e.pid,
				 ring->holder.comm, e.fd, cur.busy_poll_us);
			continue;
		}
		restore_entry(d, &e);
	}
	d->tuning_ready = true;
}

int tuning_init(struct ut_daemon *d, char *err, size_t errlen)
{
	return journal_open(&d->journal, d->cfg.state_dir, err, errlen);
}

void tuning_fini(struct ut_daemon *d)
{
	journal_close(&d->journal);
	free(d->take_queue);
	d->take_queue = NULL;
	d->n_take = d->cap_take = 0;
}

bool tuning_via_agent(struct ut_daemon *d, pid_t pid, int fd)
{
	struct ut_ring *ring = registry_find_holder(&d->reg, pid, fd);

	return ring && agent_server_drives(ring);
}

int tuning_set(struct ut_daemon *d, pid_t pid, int fd, const struct tuner_setting *want,
	       char *err, size_t errlen)
{
	struct ut_ring *ring = registry_find_holder(&d->reg, pid, fd);
	struct tuner_setting set = *want, *s = &set;
	const char *reason;
	int ret;

	if (!ring) {
		snprintf(err, errlen, "no io_uring ring at pid %d fd %d", pid, fd);
		return -ENOENT;
	}
	if (!ring_tunable_agent(ring->setup_flags, d->napi_supported, ring->managed_by,
				agent_server_drives(ring), &reason)) {
		snprintf(err, errlen, "ring pid %d fd %d cannot be tuned: %s", pid, fd, reason);
		return -EPERM;
	}
	if (s->static_ids) {
		s->n_ids = count_ids(ring->stats.napi_ids);
		memcpy(s->ids, ring->stats.napi_ids, sizeof(s->ids));
		if (!ring->have_stats || !s->n_ids) {
			snprintf(err, errlen, "--static: no NAPI ID seen on ring pid %d fd %d yet "
				 "(it needs traffic first)", pid, fd);
			return -EAGAIN;
		}
	}
	ring->refused = false;
	ret = take(d, ring, s);
	if (ret) {
		snprintf(err, errlen, "%s", ring->tune_error);
		return ret;
	}
	ring->pinned = true;
	ring->hands_off = false;
	snprintf(ring->last_decision, sizeof(ring->last_decision),
		 "pinned by uringtune set: %u us%s%s", s->busy_poll_us,
		 s->prefer ? ", prefer" : "", s->static_ids ? ", static" : "");
	log_info("ring pid=%d comm=%s fd=%d: %s", pid, ring->holder.comm, fd,
		 ring->last_decision);
	return 0;
}

/*
 * A ring set up through its agent goes back to what it had before uringtune:
 * NAPI off (the agent set it up with NAPI off; the program did not ask).
 */
static int reset_agent_ring(struct ut_daemon *d, struct ut_ring *ring, char *err, size_t errlen)
{
	static const struct tuner_setting off = { .enabled = false };
	int ret;

	if (ring->managed_by != UT_MANAGED_URINGTUNE)
		return 0;
	ret = agent_server_publish(d, ring, &off, err, errlen);
	if (ret)
		return ret;
	ring->managed_by = UT_MANAGED_NONE;
	memset(&ring->tuner, 0, sizeof(ring->tuner));
	log_info("ring pid=%d comm=%s fd=%d: NAPI off through its agent, at the ring's next "
		 "submit or wait", ring->holder.pid, ring->holder.comm, ring->holder.fd);
	return 0;
}

int tuning_reset(struct ut_daemon *d, pid_t pid, int fd, char *err, size_t errlen)
{
	struct journal_entry *e;
	struct ut_ring *ring;
	size_t i;
	int failed;

	if (pid < 0) {
		failed = tuning_restore_all(d);
		registry_for_each(&d->reg, i, ring) {
			if (agent_server_drives(ring) && reset_agent_ring(d, ring, err, errlen))
				failed++;
			ring->hands_off = true;
		}
		if (failed) {
			snprintf(err, errlen, "%d rings could not be restored (see the daemon's log)",
				 failed);
			return -EIO;
		}
		return 0;
	}
	ring = registry_find_holder(&d->reg, pid, fd);
	if (!ring) {
		snprintf(err, errlen, "no io_uring ring at pid %d fd %d", pid, fd);
		return -ENOENT;
	}
	ring->hands_off = true;
	ring->pinned = false;
	if (agent_server_drives(ring))
		return reset_agent_ring(d, ring, err, errlen);
	e = journal_find(&d->journal, ring->ctx);
	if (e && restore_entry(d, e)) {
		snprintf(err, errlen, "restoring ring pid %d fd %d failed (see the daemon's log)",
			 pid, fd);
		return -EIO;
	}
	return 0;
}
