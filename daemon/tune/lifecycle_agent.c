// SPDX-License-Identifier: GPL-2.0-only
/*
 * Register calls seen by BPF (ours, an agent's, or the application's), and
 * the rings an in-process agent set up: their tuning state.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lifecycle.h"
#include "lifecycle_priv.h"
#include "log.h"

static bool napi_is(const struct ut_napi_state *n, const struct tuner_setting *s)
{
	if (!s->enabled)
		return !n->enabled;
	return n->enabled && n->busy_poll_ns / 1000 == s->busy_poll_us &&
	       !n->prefer == !s->prefer &&
	       n->track_mode == (s->static_ids ? UT_TRACK_STATIC : UT_TRACK_DYNAMIC);
}

/* the agent's register call on a ring it steers confirms (or refuses) the decision */
static void agent_confirms(struct lifecycle *lc, struct ut_ring *ring, const struct ut_event *ev)
{
	struct ring_tune *t = &ring->tune;

	registry_napi_set(ring, &ev->napi);
	if (ev->ret) {
		t->pending = false;
		snprintf(t->error, sizeof(t->error), "the agent's register call was refused: %s",
			 strerror((int)-ev->ret));
		log_ring(LOG_WARNING, ring, "%s", t->error);
		lc->actions_failed++;
		return;
	}
	if (napi_is(&ev->napi, &t->want)) {
		t->pending = false;
		t->error[0] = '\0';
		lc->agent_applied++;
		log_ring(LOG_DEBUG, ring, "the agent applied the decision after %.1f ms",
			 (lc_now(lc) - t->published_ns) / 1e6);
	}
}

/*
 * The agent's calls come from the program's pid: true when this one is the
 * agent's own doing (on a ring it set up, or during a setup it is doing),
 * so the ring does not become "managed by app".
 */
static bool agent_own(struct lifecycle *lc, struct ut_ring *ring, const struct ut_event *ev,
		      bool agent_setup)
{
	/* its program said it registers NAPI itself (APP_NAPI): every call is the program's */
	if ((pid_t)ev->tgid != ring->obs.holder.pid || ring->tune.managed_by == UT_MANAGED_APP ||
	    ring->agent.app_napi)
		return false;
	if (!ring->agent.via) {
		/* the agent registering at setup, before its RING message */
		if (!agent_setup)
			return false;
		registry_napi_set(ring, &ev->napi);
		return true;
	}
	if (!ring->tune.pending) {
		/*
		 * The agent registers only to apply a decision, and every call of
		 * such a sequence (static tracking: the mode, then one call per
		 * ID) leaves the decided state. Anything else is the program's
		 * own call through a path the agent does not see (liburing 2.5+'s
		 * io_uring_register_napi makes the system call itself). One that
		 * left it may be the program's too: its APP_NAPI may come after
		 * the call (lifecycle_agent_app_napi()).
		 */
		if (ev->ret)
			return true;
		if (!napi_is(&ev->napi, &ring->tune.want))
			return false;
		ring->tune.register_unclaimed = true;
		return true;
	}
	agent_confirms(lc, ring, ev);
	return true;
}

/* the pid of another daemon that tunes this host, 0 if this one does or none */
static pid_t other_tuner(const struct lifecycle *lc)
{
	pid_t pid = lc->env.tuner ? lc->env.tuner(lc->env.arg) : 0;

	return pid > 0 && pid != lc->self_pid ? pid : 0;
}

bool lifecycle_on_register(struct lifecycle *lc, struct ut_ring *ring, const struct ut_event *ev,
			   bool agent_setup)
{
	pid_t tuner;

	if ((lc->agent.apply && agent_own(lc, ring, ev, agent_setup)) ||
	    !registry_on_napi_register(lc->reg, ev, lc->self_pid))
		return false;
	/* the daemon that tunes this host, seen by another (observing) one */
	tuner = other_tuner(lc);
	if (tuner && (pid_t)ev->tgid == tuner) {
		log_ring(LOG_DEBUG, ring, "NAPI changed by uringtuned pid %d, which tunes this "
			 "host: not the application's doing", (int)tuner);
		return false;
	}
	log_ring(LOG_INFO, ring, "the application %s NAPI busy polling itself (busy_poll %lluus, "
		 "prefer %s): it manages this ring",
		 ev->opcode == 27 ? "registered" : "unregistered",
		 (unsigned long long)ev->napi.busy_poll_ns / 1000, ev->napi.prefer ? "on" : "off");
	lifecycle_app_took_over(lc, ring);
	return true;
}

void lifecycle_agent_attached(struct lifecycle *lc, struct ut_ring *ring,
			      const struct agent_setup_result *r)
{
	struct ring_tune *t = &ring->tune;

	if (r->hybrid_added && t->managed_by == UT_MANAGED_NONE)
		t->managed_by = UT_MANAGED_URINGTUNE;
	/*
	 * Only a ring changed through its agent can be uringtune's without a
	 * journal entry (the page is its record): a register call at setup on
	 * any other ring is its program's own business.
	 */
	if (!r->napi_tried || !ring_agent_driven(ring))
		return;
	if (r->napi_ret == 0 && napi_is(&ring->obs.napi, &r->napi_setting)) {
		/* the agent's registration was uringtune's, not the program's */
		t->managed_by = UT_MANAGED_URINGTUNE;
		t->want = r->napi_setting;
		tuner_applied(&t->tuner, &r->napi_setting, lc_now(lc));
		lc_record(ring, &r->napi_setting, lc_now(lc), "taken at setup, through its agent");
		if (!t->reaction_ns)
			t->reaction_ns = t->tuner.last_change_ns - ring->obs.first_seen_ns;
		lc->actions_ok++;
	} else if (r->napi_ret) {
		t->refused = true;
		snprintf(t->error, sizeof(t->error),
			 "the agent's NAPI registration at setup was refused: %s",
			 strerror(-r->napi_ret));
		lc->actions_failed++;
	}
}

void lifecycle_agent_app_napi(struct lifecycle *lc, struct ut_ring *ring)
{
	if (ring->tune.managed_by != UT_MANAGED_URINGTUNE || !ring->tune.register_unclaimed)
		return;
	log_ring(LOG_INFO, ring, "the application registered NAPI itself (the state uringtune "
		 "had decided): it manages this ring");
	lifecycle_app_took_over(lc, ring);
}

void lifecycle_agent_settle(struct lifecycle *lc, struct ut_ring *ring)
{
	static const struct tuner_setting off = { .enabled = false };
	struct tuner_setting s;
	char err[128];

	if (!ring_agent_driven(ring))
		return;
	if (lc->cfg->mode == UT_MODE_TUNE && ring->obs.napi.enabled) {
		lc_readopt(lc, ring, &s);
		ring->tune.want = s;
		log_ring(LOG_INFO, ring, "agent: re-adopted (%u us)", s.busy_poll_us);
	} else if (lc->cfg->mode == UT_MODE_TUNE) {
		/* switched off when the last run stopped: on again */
		tuner_initial(&lc->cfg->napi, NULL, 0, lc_now(lc), &ring->tune.tuner, &s);
		ring->tune.managed_by = UT_MANAGED_URINGTUNE;
		if (lc_apply(lc, ring, &s, err, sizeof(err)) == 0)
			log_ring(LOG_INFO, ring, "agent: NAPI %u us again, at its next submit or "
				 "wait", s.busy_poll_us);
	} else if (ring->obs.napi.enabled) {
		/* observe mode: what a previous tune-mode run switched on goes off */
		ring->tune.managed_by = UT_MANAGED_NONE;
		lc_apply(lc, ring, &off, err, sizeof(err));
		log_ring(LOG_INFO, ring, "agent: observe mode: NAPI off at its next submit or wait");
	}
}
