// SPDX-License-Identifier: GPL-2.0-only
/* Observe mode's advice, computed by the tuner on a shadow state (advice.h); the history. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "advice.h"
#include "lifecycle.h"
#include "lifecycle_priv.h"
#include "log.h"

static int64_t wall_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void lc_record(struct ut_ring *ring, const struct tuner_setting *s, uint64_t now,
	       const char *why)
{
	struct decision d = {
		.mono_ns = now, .enabled = s->enabled, .prefer = s->enabled && s->prefer,
		.busy_poll_us = s->enabled ? s->busy_poll_us : 0,
		.static_ids = s->enabled && s->static_ids,
	};

	d.wall_ns = wall_now_ns();
	if (decision_log_add(&ring->tune.decisions, &d, why))
		log_ring(LOG_DEBUG, ring, "out of memory keeping its last decision");
}

/* a ring tune mode would take, [select] and traffic aside (lifecycle.c's takeable()) */
static bool advisable(const struct lifecycle *lc, const struct ut_ring *ring)
{
	const struct ring_tune *t = &ring->tune;
	const char *reason;

	if (lc->cfg->mode != UT_MODE_OBSERVE)
		return false;
	if (t->managed_by != UT_MANAGED_NONE || t->pinned || t->hands_off ||
	    ring->obs.napi.enabled || ring->obs.holder.pid == lc->self_pid ||
	    ring->obs.holder.fd < 0)
		return false;
	return ring_tunable_agent(ring->obs.setup_flags, lc->napi_supported, t->managed_by,
				  ring_agent_driven(ring), &reason);
}

/* [select], asked once per holder and configuration: it reads /proc */
static bool advice_selected(struct lifecycle *lc, struct ut_ring *ring, struct ring_advice *a)
{
	const struct ut_holder *h = &ring->obs.holder;
	const char *why;

	if (a->select_pid == h->pid && a->select_gen == lc->select_gen)
		return !ring->tune.excluded;
	a->select_pid = h->pid;
	a->select_gen = lc->select_gen;
	ring->tune.excluded = NULL;
	if (lc->env.selects(lc->env.arg, h->pid, h->comm, &why))
		return true;
	ring->tune.excluded = why;
	/* selected again later: the shadow starts afresh, as tune mode would take it */
	a->started = false;
	log_ring(LOG_DEBUG, ring, "no advice: %s", why);
	return false;
}

static void advice_set(struct ut_ring *ring, struct ring_advice *a, const struct tuner_setting *s,
		       uint64_t now, const char *why)
{
	lc_record(ring, s, now, why);
	a->since_ns = now;
	a->since_wall_ns = wall_now_ns();
}

/* the shadow starts as tune mode takes a ring: tuner_initial() when it was first seen */
static void advice_start(struct lifecycle *lc, struct ut_ring *ring, struct ring_advice *a,
			 const struct tuner_input *in, uint64_t now)
{
	const uint64_t seen = ring->obs.first_seen_ns;
	const uint64_t t0 = seen && seen <= now ? seen : now;
	struct tuner_setting s;
	char why[160];

	memset(&a->shadow, 0, sizeof(a->shadow));
	tuner_initial(&lc->cfg->napi, in->napi_ids, lc->napi_no_static ? 0 : in->n_ids, t0,
		      &a->shadow, &s);
	tuner_applied(&a->shadow, &s, t0);
	a->started = true;
	snprintf(why, sizeof(why), "initial: NAPI on, %u us%s, %s tracking, as tune mode takes "
		 "a ring", s.busy_poll_us, s.prefer ? " (prefer)" : "",
		 s.static_ids ? "static" : "dynamic");
	advice_set(ring, a, &s, now, why);
}

void lc_advise(struct lifecycle *lc, struct ut_ring *ring, uint64_t now)
{
	struct ring_advice *a = ring->tune.advice;
	struct tuner_setting s;
	struct tuner_input in;
	char why[200];

	if (a && lc->cfg->mode != UT_MODE_OBSERVE) {
		/* tune mode decides for real: the shadow is let go, the history kept */
		free(a);
		ring->tune.advice = NULL;
		return;
	}
	if (!advisable(lc, ring) || !ring->obs.have_stats || !ring->tune.have_last_stats ||
	    ring->obs.holder_lost)
		return;
	if (!a) {
		/* nothing to busy-poll in a ring that has not waited (checked cheaply: most are idle) */
		if (ring->obs.stats.waits == ring->tune.last_stats.waits &&
		    ring->obs.stats.busy_windows == ring->tune.last_stats.busy_windows)
			return;
		a = calloc(1, sizeof(*a));
		if (!a) {
			log_ring(LOG_DEBUG, ring, "out of memory for its advice");
			return;
		}
		ring->tune.advice = a;
	}
	if (!advice_selected(lc, ring, a))
		return;
	lc_input_of(lc, ring, now, &in);
	if (!a->started)
		advice_start(lc, ring, a, &in, now);
	/*
	 * The ring does not busy-poll (advisable() says so): what its waits show
	 * is what the shadow's timeout would have done, if NAPI has a queue to poll.
	 */
	if (a->shadow.cur.enabled && !in.busy_windows && in.n_ids)
		lc_input_from_sleeps(ring, a->shadow.cur.busy_poll_us, &in);
	if (tuner_decide(&lc->cfg->napi, &a->shadow, &in, &s, why, sizeof(why)) != TUNER_APPLY)
		return;
	/* nothing is applied: the shadow takes it at once */
	tuner_applied(&a->shadow, &s, now);
	advice_set(ring, a, &s, now, why);
	log_ring(LOG_DEBUG, ring, "advice: %s", why);
}

const struct ring_advice *lifecycle_advice(const struct lifecycle *lc, const struct ut_ring *ring)
{
	const struct ring_advice *a = ring->tune.advice;

	if (!a || !a->started || ring->tune.excluded || !advisable(lc, ring))
		return NULL;
	return a;
}
