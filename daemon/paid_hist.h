/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The host's histogram of paid-off busy-poll windows: every ring's sampled
 * histogram (ut_ring_stats busy_hist and busy_ns, a 1-in-16 sample per CPU
 * of the windows that paid off) summed over the rings, the rings gone
 * included, so that the export can always give the fleet the distribution
 * without a histogram per ring (cardinality: [export] ring_histograms).
 *
 * Summed from each ring's growth since the previous refresh, never from the
 * rings' current counts: a ring that goes away takes nothing back, so every
 * bucket only grows (a Prometheus counter). A ring whose counters went back
 * (a reused map slot) counts from zero again, as the bill does. Pure:
 * unit-tested (tests/unit/test_paid_hist.c).
 */
#ifndef UT_PAID_HIST_H
#define UT_PAID_HIST_H

#include <stdint.h>

#include "hist.h"
#include "uringtune.h"

struct paid_hist {
	uint64_t hist[UT_HIST_SLOTS];	/* windows timed, per log2(ns) slot */
	uint64_t ns;			/* ... and their lengths, summed */
};

/*
 * A ring's statistics now (@s: busy_hist, busy_ns) into @host: what grew
 * since @seen (the ring's at its previous step, zeroed for a new ring),
 * which then becomes them.
 */
void paid_hist_step(struct paid_hist *host, struct paid_hist *seen,
		    const struct ut_ring_stats *s);

#endif /* UT_PAID_HIST_H */
