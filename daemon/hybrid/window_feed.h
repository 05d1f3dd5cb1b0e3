/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An IOPOLL ring's closed measurement window into its program's verdict
 * record: the window (with the thread's CPU), the ring the first time, and
 * a classic ring's prediction. Called by the inventory (on_iopoll_window),
 * in observe mode as in tune mode.
 */
#ifndef UT_WINDOW_FEED_H
#define UT_WINDOW_FEED_H

struct ut_ring;

/* inventory.on_iopoll_window; arg is the struct verdicts */
void window_feed(void *arg, struct ut_ring *ring);

#endif /* UT_WINDOW_FEED_H */
