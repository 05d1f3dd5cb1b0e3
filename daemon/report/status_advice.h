/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The status reply's advice and decision history of a ring (advice.h,
 * decision_log.h), and tunable/reason as status and metrics show them.
 *
 *	"tuning":{..., "advice":{"enabled":true,"busy_poll_us":50,"prefer":false,
 *		   "tracking":"dynamic","why":"...","since":"2026-12-02T04:06:07.944Z"} | null,
 *		   "decisions":[{"time":"...Z","busy_poll_us":50,"enabled":true,
 *		   "prefer":false,"why":"..."}, ...]}	(oldest first, at most 16)
 */
#ifndef UT_STATUS_ADVICE_H
#define UT_STATUS_ADVICE_H

#include <stdbool.h>
#include <stddef.h>

#include "daemon.h"
#include "status_writer.h"

/* "advice": what tune mode would set, or null */
void status_advice_write(struct status_writer *w, const struct ut_daemon *d,
			 const struct ut_ring *ring);
/* "decisions": the ring's last changes, made or advised, oldest first */
void status_decisions_write(struct status_writer *w, const struct ut_ring *ring);
/*
 * Can uringtune tune the ring: ring_tunable_agent(), and not left out by
 * [select] (the rule is in the reason). *reason points to a static string
 * or to @buf.
 */
bool status_ring_tunable(const struct ut_daemon *d, const struct ut_ring *ring,
			 const char **reason, char *buf, size_t len);
/* "2026-12-02T04:06:07.944Z" for ns since the epoch */
void status_iso_time(char *buf, size_t len, int64_t wall_ns);

#endif /* UT_STATUS_ADVICE_H */
