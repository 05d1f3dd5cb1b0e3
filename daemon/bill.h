/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Busy polling's bill, per ring and for the host: the CPU spun in windows
 * that paid off and in windows that did not, the wake-ups avoided, the
 * latency saved, and their ratio. Pure: counters and times in, sums out;
 * unit-tested (tests/unit/test_bill.c).
 *
 * What each figure is (napi_trace.bpf.c counts):
 *   wakeups_avoided  the windows that paid off (busy_paid): measured
 *   spin paid        their length: the mean of a 1-in-16 sample of them
 *                    (busy_ns / timed) times their count: sampled
 *   spin unpaid      each window that did not pay counted at its timeout
 *                    (unpaid_spin_ns): estimated
 *   saved            wakeups_avoided x what one sleep costs the ring's
 *                    waiter (ring.h obs.wakeup_ns, or [napi]
 *                    wakeup_cost_us): estimated
 *   efficiency       saved / (spin paid + spin unpaid); none before a window
 *
 * The sums are integrated tick by tick: each tick's new paid windows are
 * priced at that tick's sampled mean and wake-up cost, so a total only
 * grows (a Prometheus counter) even when the mean or the cost moves.
 *
 * "Recent" is the last closed period, the tuner's decision period seen from
 * outside (the tuner's own does not run in observe mode): a period closes at
 * a refresh of the statistics (each tick, each status request) once it has
 * lasted a tick (tick_ms) and at least min_windows windows ([napi]) have
 * passed since it began, or once it has lasted BILL_PERIOD_MAX_S seconds, so
 * a ring that stopped busy-polling shows an empty recent bill rather than
 * an old one.
 */
#ifndef UT_BILL_H
#define UT_BILL_H

#include <stdbool.h>
#include <stdint.h>

#include "uringtune.h"

/* a period closes after this long even with fewer than min_windows windows */
#define BILL_PERIOD_MAX_S	60

/* the counters of struct ut_ring_stats the bill reads */
struct bill_counts {
	uint64_t windows;	/* busy_windows */
	uint64_t paid;		/* busy_paid */
	uint64_t unpaid_ns;	/* unpaid_spin_ns */
	uint64_t timed;		/* paid windows timed: the sum of busy_hist */
	uint64_t timed_ns;	/* ... and their lengths: busy_ns */
};

/* a bill: since a ring was first seen, or over a period */
struct bill_sum {
	uint64_t windows;		/* busy-poll windows */
	uint64_t wakeups_avoided;	/* ... that paid off */
	uint64_t paid_ns;		/* spun in those */
	uint64_t unpaid_ns;		/* spun in the rest */
	uint64_t saved_ns;		/* latency the avoided wake-ups saved */
};

struct bill_period {
	bool begun;
	uint64_t start_ns;		/* the current period's start */
	struct bill_sum start;		/* the totals then */
	struct bill_sum last;		/* the last closed period's bill */
	uint64_t last_ns;		/* its length; 0: none closed yet */
};

/* when a period closes */
struct bill_rule {
	uint64_t min_windows;		/* [napi] min_windows */
	uint64_t min_ns;		/* a tick */
};

/* one ring's bill; zero-initialised */
struct bill_ring {
	struct bill_counts seen;	/* the counters at the previous step */
	struct bill_sum total;
	struct bill_period period;
};

/* the host's: the rings' totals, including the rings gone */
struct bill_host {
	struct bill_sum gone;		/* totals of the rings no longer known */
	struct bill_sum total;		/* gone + the live rings', at the last tick */
	struct bill_period period;
};

void bill_counts_of(const struct ut_ring_stats *s, struct bill_counts *c);

/*
 * One tick of a ring: @c its counters now, @wakeup_ns what a sleep costs its
 * waiter, @timeout_ns its busy-poll timeout (the price of a paid window
 * when none was ever timed), @r when a period closes. Counters that went
 * back (a reused map slot) count from zero again.
 */
void bill_ring_step(struct bill_ring *b, const struct bill_counts *c, uint64_t wakeup_ns,
		    uint64_t timeout_ns, uint64_t now_ns, const struct bill_rule *r);

/* close the period if it is long enough: after @total is updated */
void bill_period_step(struct bill_period *p, const struct bill_sum *total, uint64_t now_ns,
		      const struct bill_rule *r);

/* a ring goes away: its totals stay in the host's */
void bill_host_forget(struct bill_host *h, const struct bill_ring *b);
/* a tick of the host: begin, add each live ring, end */
void bill_host_begin(struct bill_host *h);
void bill_host_add(struct bill_host *h, const struct bill_ring *b);
void bill_host_end(struct bill_host *h, uint64_t now_ns, const struct bill_rule *r);

void bill_sum_add(struct bill_sum *a, const struct bill_sum *b);
/* spun in all windows, paid and not */
uint64_t bill_spin_ns(const struct bill_sum *s);
/* saved / spun; false (JSON null) before any window, or with nothing spun */
bool bill_efficiency(const struct bill_sum *s, double *eff);
/* paid / windows; false before any window */
bool bill_hit_rate(const struct bill_sum *s, double *rate);

#endif /* UT_BILL_H */
