/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Busy polling's bill, per ring and for the host: the CPU spun in windows
 * that paid off and in windows that did not, the wake-ups avoided, the
 * latency saved, and their ratio. Pure: counters and times in, sums out;
 * unit-tested (tests/unit/test_bill.c).
 *
 * What each figure is (napi_trace.bpf.c counts; windows are timed on a
 * 1-in-16 sample, from the waiting thread's first busy-poll iteration):
 *   wakeups_avoided  the windows that paid off (busy_paid): measured
 *   spin paid        their length: the mean of the timed ones (busy_ns /
 *                    timed) times their count: sampled, an estimate
 *   spin unpaid      the windows that did not pay: the mean of the timed
 *                    ones (unpaid_timed_ns / unpaid_timed) times their
 *                    count: sampled, an estimate
 *   unknown          windows of a kind (paid, unpaid) of which none was
 *                    timed yet: their length is not known, they are not
 *                    billed (never priced at the timeout, an upper bound
 *                    that made a thread spin 294% of a CPU)
 *   capped           spin taken off the estimates by the physical bound:
 *                    the rings a thread waited on cannot have spun more
 *                    than that thread ran over the step (its schedstat),
 *                    nor longer than the step lasted
 *   saved            wakeups_avoided x what one sleep costs the ring's
 *                    waiter (ring.h obs.wakeup_ns, or [napi]
 *                    wakeup_cost_us): estimated
 *   efficiency       saved / (spin paid + spin unpaid); none before a window
 *
 * The sums are integrated step by step (a refresh of the statistics: each
 * tick, each status request): each step's new windows are priced at that
 * step's sampled means (else the means so far) and wake-up cost, so a total
 * only grows (a Prometheus counter) even when a mean or the cost moves. A
 * step is priced (bill_ring_price), bounded with the other rings its thread
 * waited on (bill_cap_thread), then committed (bill_ring_commit);
 * bill_ring_step does the first and the last, unbounded.
 *
 * "Recent" is the last closed period, the tuner's decision period seen from
 * outside (the tuner's own does not run in observe mode): a period closes at
 * a refresh of the statistics once it has lasted a tick (tick_ms) and at
 * least min_windows windows ([napi]) have passed since it began, or once it
 * has lasted BILL_PERIOD_MAX_S seconds, so a ring that stopped busy-polling
 * shows an empty recent bill rather than an old one.
 */
#ifndef UT_BILL_H
#define UT_BILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uringtune.h"

/* a period closes after this long even with fewer than min_windows windows */
#define BILL_PERIOD_MAX_S	60
/* bill_cap_thread's @cpu_ns when the thread's CPU time is not known: no cap */
#define BILL_CPU_UNKNOWN	UINT64_MAX
/* a step's span when it has none: the ring's first, since its counters began */
#define BILL_SPAN_UNKNOWN	UINT64_MAX

/* the counters of struct ut_ring_stats the bill reads */
struct bill_counts {
	uint64_t windows;		/* busy_windows */
	uint64_t paid;			/* busy_paid */
	uint64_t timed;			/* paid windows timed: the sum of busy_hist */
	uint64_t timed_ns;		/* ... and their lengths: busy_ns */
	uint64_t unpaid_timed;		/* windows that did not pay, timed */
	uint64_t unpaid_timed_ns;	/* ... and their lengths */
};

/* a bill: since a ring was first seen, or over a period */
struct bill_sum {
	uint64_t windows;		/* busy-poll windows */
	uint64_t wakeups_avoided;	/* ... that paid off */
	uint64_t paid_ns;		/* spun in those */
	uint64_t unpaid_ns;		/* spun in the rest */
	uint64_t unknown;		/* windows not billed: their length is not known */
	uint64_t capped_ns;		/* spin the CPU bound took off paid_ns + unpaid_ns */
	uint64_t saved_ns;		/* latency the avoided wake-ups saved */
};

/* what bounded a step's spin */
enum bill_bound {
	BILL_BOUND_NONE,		/* nothing yet: no step with windows */
	BILL_BOUND_CPU,			/* its waiting thread's CPU time */
	/* not bounded: the thread's CPU time over the step is not known */
	BILL_BOUND_UNASKED,		/* ... it was not asked (bill_ring_step) */
	BILL_BOUND_NO_THREAD,		/* ... no waiting thread is known */
	BILL_BOUND_THREAD_CHANGED,	/* ... another thread waited at the step before */
	BILL_BOUND_UNREAD,		/* ... reading it failed */
};

/* one step of a ring, priced, not yet added */
struct bill_step {
	struct bill_counts seen;	/* the counters priced: the next step's base */
	struct bill_sum add;		/* what the step adds to the ring's totals */
	/* ns since the ring's previous step; BILL_SPAN_UNKNOWN: its first */
	uint64_t span_ns;
	enum bill_bound bound;		/* bill_cap_thread or its caller says */
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
	bool stepped;			/* ... which there was */
	uint64_t step_ns;		/* ... then */
	struct bill_sum total;
	struct bill_period period;
	uint8_t bound;			/* enum bill_bound of its last step with windows */
};

/* the host's: the rings' totals, including the rings gone */
struct bill_host {
	struct bill_sum gone;		/* totals of the rings no longer known */
	struct bill_sum total;		/* gone + the live rings', at the last tick */
	struct bill_period period;
};

void bill_counts_of(const struct ut_ring_stats *s, struct bill_counts *c);

/*
 * Price a step of a ring into @st: @c its counters now, @wakeup_ns what a
 * sleep costs its waiter. Paid windows at the mean of the paid windows timed
 * in the step, else of all timed so far; the same for unpaid windows; a
 * kind with no window timed yet is unknown, not billed. Counters that went
 * back (a reused map slot) count from zero again. @st->bound is
 * BILL_BOUND_UNASKED until bill_cap_thread or the caller says otherwise.
 */
void bill_ring_price(const struct bill_ring *b, const struct bill_counts *c, uint64_t wakeup_ns,
		     uint64_t now_ns, struct bill_step *st);

/*
 * The physical bound: the @n steps of the rings one thread waited on spun
 * at most @cpu_ns (its CPU time since its previous reading) and at most the
 * longest of their spans (one CPU). Their paid and unpaid spin are scaled
 * down together to fit, what was taken off counted in capped_ns; their
 * bound set to BILL_BOUND_CPU. @cpu_ns BILL_CPU_UNKNOWN: nothing done (the
 * caller says why in each bound). Called more than once on a step, each
 * bound holds after the last.
 */
void bill_cap_thread(struct bill_step *const *steps, size_t n, uint64_t cpu_ns);

/* add a priced (and bounded) step to the ring's totals; the period steps (@r) */
void bill_ring_commit(struct bill_ring *b, const struct bill_step *st, uint64_t now_ns,
		      const struct bill_rule *r);

/* price and commit, no bound (BILL_BOUND_UNASKED): where no CPU time is at hand */
void bill_ring_step(struct bill_ring *b, const struct bill_counts *c, uint64_t wakeup_ns,
		    uint64_t now_ns, const struct bill_rule *r);

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
/* spun in the windows billed, paid and not (after the bound) */
uint64_t bill_spin_ns(const struct bill_sum *s);
/* saved / spun; false (JSON null) before any window, or with nothing spun */
bool bill_efficiency(const struct bill_sum *s, double *eff);
/* paid / windows; false before any window */
bool bill_hit_rate(const struct bill_sum *s, double *rate);
/*
 * For status: "known" (BILL_BOUND_CPU), "unknown", NULL before any step
 * with windows; why it is unknown ("not_asked", "no_thread",
 * "thread_changed", "unread"), NULL when it is not
 */
const char *bill_bound_state(enum bill_bound b);
const char *bill_bound_why(enum bill_bound b);

#endif /* UT_BILL_H */
