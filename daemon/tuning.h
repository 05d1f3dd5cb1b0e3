/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tune mode: which rings uringtune takes, the journal written before every
 * first change, the tuner's decisions carried out by the actuator, and the
 * way back (stop, reset, crash recovery). The decisions themselves are
 * tuner.c's; this file is their I/O.
 */
#ifndef UT_TUNING_H
#define UT_TUNING_H

#include <stddef.h>
#include <sys/types.h>

#include "daemon.h"

/* open the journal; err says why not */
int tuning_init(struct ut_daemon *d, char *err, size_t errlen);
void tuning_fini(struct ut_daemon *d);

/*
 * Before anything else changes a ring: every journal entry left by a
 * previous run is restored (observe mode, or ring no longer ours) or
 * re-adopted (tune mode), or dropped if its ring is gone. Needs a swept
 * registry. Enables tuning_ring_seen().
 */
void tuning_settle_journal(struct ut_daemon *d);

/* a ring still as a previous run left it (NAPI on): uringtune's again, from its state */
void tuning_readopt(struct ut_ring *ring, uint64_t now, struct tuner_setting *cur);

/*
 * A ring appeared (event or sweep): queue it if it is eligible. The queue
 * is taken by tuning_flush(), which the event loop calls after each batch
 * of events: one journal write (one fsync) for a burst of new rings.
 */
void tuning_ring_seen(struct ut_daemon *d, struct ut_ring *ring);
void tuning_flush(struct ut_daemon *d);

/* the ring is gone (closed, process exited): its journal entry goes too */
void tuning_ring_gone(struct ut_daemon *d, const struct ut_ring *ring);

/* the ring's application registered NAPI itself: forget it, undo nothing */
void tuning_app_took_over(struct ut_daemon *d, struct ut_ring *ring);

/* does [select] pick this process? If not, *why names the rule */
bool tuning_selects(const struct ut_daemon *d, pid_t pid, const char *comm, const char **why);

/* every tick, after the statistics were refreshed */
void tuning_tick(struct ut_daemon *d);

/* put every journaled ring back as it was; returns how many could not be */
int tuning_restore_all(struct ut_daemon *d);

/* `uringtune set`: pin a ring to a setting; `uringtune reset`: restore (pid -1: all) */
int tuning_set(struct ut_daemon *d, pid_t pid, int fd, const struct tuner_setting *s,
	       char *err, size_t errlen);
int tuning_reset(struct ut_daemon *d, pid_t pid, int fd, char *err, size_t errlen);
/* is that ring changed through its agent (so later, at its next call)? */
bool tuning_via_agent(struct ut_daemon *d, pid_t pid, int fd);

#endif /* UT_TUNING_H */
