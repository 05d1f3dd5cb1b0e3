/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a sleep costs a waiter: the latency from the completion that ends a
 * sleeping wait to the waiter running it (napi_trace times each one, see
 * ut_ring_stats.wake_ns). A paid busy-poll window avoids exactly that. Pure:
 * the caller feeds the counters' growth and asks for the figure to use.
 *
 * Each ring keeps a running mean weighted by wake-ups (the last ~256 count
 * most), and so does the host over all rings. A ring's own figure is used
 * once it has WAKEUP_MIN_SAMPLES wake-ups, else the host's, else a prior.
 * [napi] wakeup_cost_us, when set, overrides them all.
 */
#ifndef UT_WAKEUP_H
#define UT_WAKEUP_H

#include <stdint.h>

#define WAKEUP_MIN_SAMPLES	16
#define WAKEUP_HALF_SAMPLES	256	/* weight of the running mean: ~the last 256 */
#define WAKEUP_PRIOR_US		25	/* before anything is measured */

struct wakeup_est {
	double mean_ns;		/* running mean of timed wake-ups */
	uint64_t samples;	/* wake-ups seen, ever */
};

enum wakeup_source {
	WAKEUP_SRC_NONE,	/* not resolved yet */
	WAKEUP_SRC_CONFIG,	/* [napi] wakeup_cost_us */
	WAKEUP_SRC_RING,	/* this ring's waiters, measured */
	WAKEUP_SRC_HOST,	/* every ring's waiters, measured */
	WAKEUP_SRC_PRIOR,	/* nothing measured yet: WAKEUP_PRIOR_US */
};

/* wakes more wake-ups, wake_ns in all, since the last call */
void wakeup_add(struct wakeup_est *e, uint64_t wakes, uint64_t wake_ns);

/* the cost to use, ns; *src says where it comes from */
uint64_t wakeup_resolve(const struct wakeup_est *ring, const struct wakeup_est *host,
			unsigned int override_us, enum wakeup_source *src);

/* "configured", "ring", "host", "prior" ("none") */
const char *wakeup_source_name(enum wakeup_source src);

#endif /* UT_WAKEUP_H */
