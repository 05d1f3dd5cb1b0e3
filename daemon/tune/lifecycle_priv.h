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
struct tuner_setting;
struct ut_ring;

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
unsigned int lc_count_ids(const uint32_t *ids);

#endif /* UT_LIFECYCLE_PRIV_H */
