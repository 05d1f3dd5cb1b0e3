// SPDX-License-Identifier: GPL-2.0-only
/* A ring's advice and last decisions in the status reply (status_advice.h). */
#include <stdio.h>
#include <time.h>

#include "advice.h"
#include "status_advice.h"
#include "tunable.h"

void status_iso_time(char *buf, size_t len, int64_t wall_ns)
{
	time_t s = (time_t)(wall_ns / 1000000000);
	struct tm tm;
	char day[32];

	if (wall_ns < 0 || !gmtime_r(&s, &tm) ||
	    !strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm)) {
		snprintf(buf, len, "?");
		return;
	}
	snprintf(buf, len, "%s.%03dZ", day, (int)(wall_ns / 1000000 % 1000));
}

static const char *tracking_of(bool enabled, bool static_ids)
{
	return !enabled ? "inactive" : static_ids ? "static" : "dynamic";
}

void status_advice_write(struct status_writer *w, const struct ut_daemon *d,
			 const struct ut_ring *ring)
{
	const struct ring_advice *a = lifecycle_advice(&d->lc, ring);
	const struct decision *last = decision_log_last(ring->tune.decisions);
	const struct tuner_setting *s;
	char since[40];

	if (!a) {
		sw_null(w, "advice");
		return;
	}
	s = &a->shadow.cur;
	status_iso_time(since, sizeof(since), a->since_wall_ns);
	sw_object(w, "advice");
	sw_bool(w, "enabled", s->enabled);
	sw_u64(w, "busy_poll_us", s->enabled ? s->busy_poll_us : 0);
	sw_bool(w, "prefer", s->enabled && s->prefer);
	sw_str(w, "tracking", tracking_of(s->enabled, s->static_ids));
	/* the advice's own entry (none if memory ran out keeping it) */
	sw_str(w, "why", last && last->mono_ns == a->since_ns ? last->why : "");
	sw_str(w, "since", since);
	sw_object_end(w);
}

void status_decisions_write(struct status_writer *w, const struct ut_ring *ring)
{
	const struct decision_log *log = ring->tune.decisions;
	char when[40];

	sw_array(w, "decisions");
	for (size_t i = 0; i < decision_log_count(log); i++) {
		const struct decision *e = decision_log_get(log, i);

		status_iso_time(when, sizeof(when), e->wall_ns);
		sw_object(w, NULL);
		sw_str(w, "time", when);
		sw_u64(w, "busy_poll_us", e->busy_poll_us);
		sw_bool(w, "enabled", e->enabled);
		sw_bool(w, "prefer", e->prefer);
		sw_str(w, "why", e->why);
		sw_object_end(w);
	}
	sw_array_end(w);
}

bool status_ring_tunable(const struct ut_daemon *d, const struct ut_ring *ring,
			 const char **reason, char *buf, size_t len)
{
	const struct ring_tune *t = &ring->tune;

	if (!ring_tunable_agent(ring->obs.setup_flags, d->napi_supported, t->managed_by,
				ring_agent_driven(ring), reason))
		return false;
	/* a ring uringtune tunes (set --force included) is tunable whatever [select] says */
	if (!t->excluded || t->managed_by == UT_MANAGED_URINGTUNE || t->forced)
		return true;
	snprintf(buf, len, "[select] leaves it out: %s", t->excluded);
	*reason = buf;
	return false;
}
