/* SPDX-License-Identifier: GPL-2.0-only */
/* What the lifecycle's files share among themselves; not for other modules. */
#ifndef UT_LIFECYCLE_PRIV_H
#define UT_LIFECYCLE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* not lifecycle.h: a module of its own, below lifecycle.c, with no way back up */
struct journal_entry;
struct lifecycle;
struct tune_backend;
struct tuner_input;
struct tuner_setting;
struct ut_ring;

/*
 * Up to this many rings at once (found, taken, restored) get a line each at
 * info; more are a burst: one summary line, each ring's at debug.
 */
#define LC_BURST		10

/* the level of a line about one ring: info, or debug within a burst */
int lc_detail(const struct lifecycle *lc);
/* a ring was found (lifecycle_burst.c) */
void lc_burst_found(struct lifecycle *lc, const struct ut_ring *ring);
/* the end of a batch of events or a sweep: one line for a burst of found rings */
void lc_burst_report(struct lifecycle *lc);

/* the injected clock */
uint64_t lc_now(const struct lifecycle *lc);

/* the backend that reaches this ring */
const struct tune_backend *lc_backend(const struct lifecycle *lc, const struct ut_ring *ring);
/* give the ring s through its backend (a deferred one: the decision is on its way) */
int lc_apply(struct lifecycle *lc, struct ut_ring *ring, const struct tuner_setting *s,
	     char *err, size_t errlen);
/* journal (first change only), then the backend; on failure the ring is refused */
int lc_take(struct lifecycle *lc, struct ut_ring *ring, const struct tuner_setting *s);
/* the kernel took s: the ring is uringtune's */
void lc_took(struct lifecycle *lc, struct ut_ring *ring, const struct tuner_setting *s);
/* a refusal is a state the ring keeps, shown in status, logged once */
void lc_refused(struct lifecycle *lc, struct ut_ring *ring, int ret, const char *err);
/* carry on from the kernel's state, as a previous run left it: *cur is that setting */
void lc_readopt(struct lifecycle *lc, struct ut_ring *ring, struct tuner_setting *cur);
/* the journal entry is of this ring (not of a gone ring at the same address) */
bool lc_same_ring(const struct ut_ring *ring, const struct journal_entry *e);
/* put one journaled ring back and forget it; 0, or -errno if it must stay */
int lc_restore_entry(struct lifecycle *lc, const struct journal_entry *e);
/*
 * Put back every journaled ring @pick chooses (NULL: all), then forget them
 * in one journal write; *done (may be NULL) counts those put back. Returns
 * how many could not be (they stay journaled).
 */
int lc_restore_matching(struct lifecycle *lc,
			bool (*pick)(struct lifecycle *lc, const struct journal_entry *e, void *arg),
			void *arg, size_t *done);
unsigned int lc_count_ids(const uint32_t *ids);
/*
 * The tuner's input for this tick (lifecycle_input.c): the ring's statistics
 * since the previous tick. Tune mode's decisions and observe mode's advice
 * both take it from here.
 */
void lc_input_of(const struct lifecycle *lc, const struct ut_ring *ring, uint64_t now,
		 struct tuner_input *in);
/*
 * A ring that does not busy-poll (observe mode's advice): in's windows are
 * those it would have had at timeout_us, from its waits (tuner_input_from_sleeps()).
 */
void lc_input_from_sleeps(const struct ut_ring *ring, unsigned int timeout_us,
			  struct tuner_input *in);
/* a change made (tune mode) or advised (observe mode) into the ring's history */
void lc_record(struct ut_ring *ring, const struct tuner_setting *s, uint64_t now,
	       const char *why);
/* observe mode, each tick before the statistics are kept: what tune mode would do */
void lc_advise(struct lifecycle *lc, struct ut_ring *ring, uint64_t now);
/* the identity journal entries are compared with (lc_same_ring's): ctx, pid, fd, ino, start */
void lc_identity_of(const struct ut_ring *ring, struct journal_entry *id);

/*
 * A ring whose journal entry is on disk: its first change, if it is still
 * to be taken (lifecycle.c). 1 changed, 0 no longer to be taken, -errno
 * refused (its entry undoes nothing).
 */
int lc_first_change(struct lifecycle *lc, struct ut_ring *ring);

/* the journal's commits (lifecycle_commit.c) */
/* room for @n more waiting rings, so that adding them cannot fail; 0 or -ENOMEM */
int lc_wait_reserve(struct lifecycle *lc, size_t n);
/* the ring's first change waits until generation @gen is on disk (0: it is) */
void lc_wait_add(struct lifecycle *lc, const struct ut_ring *ring, uint64_t gen);
/*
 * Rings waiting that @cancel picks (ring: NULL if gone) are let go: not
 * changed, their entries dropped.
 */
void lc_wait_cancel(struct lifecycle *lc,
		    bool (*cancel)(struct lifecycle *lc, const struct ut_ring *ring));
/* drop those rings' entries at the next commit; logs what cannot be */
void lc_stage_drop(struct lifecycle *lc, const uint64_t *ctxs, size_t n);
/*
 * Reap a finished commit, change the rings it was for, start the next one:
 * never waits. The rings of a commit that failed are not tuned (as a write
 * failure always was); what it dropped is written at the next.
 */
void lc_journal_kick(struct lifecycle *lc);
/* everything staged on disk now, waiting for it: 0 or -errno */
int lc_journal_sync(struct lifecycle *lc);
/* a commit in flight is waited for and dropped; no ring is changed */
void lc_commit_fini(struct lifecycle *lc);

#endif /* UT_LIFECYCLE_PRIV_H */
