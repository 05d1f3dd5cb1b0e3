// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bill (daemon/bill.c): counters in, spin, saved and efficiency out;
 * windows of a kind never timed are unknown, never priced; a thread's rings
 * never billed more than the thread ran (random cases, seeded).
 */
#include <stdint.h>
#include <string.h>

#include "bill.h"
#include "unit.h"

#define NSEC		1000000000ULL
#define T0		(1000 * NSEC)
#define US		1000ULL

/* the defaults: 1000 windows, a tick of a second */
static const struct bill_rule rule = { .min_windows = 1000, .min_ns = NSEC };

/*
 * A ring's counters after @windows windows, @paid paid; @timed of those
 * timed at @mean_ns, @utimed unpaid ones at @umean_ns.
 */
static struct bill_counts counts(uint64_t windows, uint64_t paid, uint64_t timed, uint64_t mean_ns,
				 uint64_t utimed, uint64_t umean_ns)
{
	struct bill_counts c = {
		.windows = windows,
		.paid = paid,
		.timed = timed,
		.timed_ns = timed * mean_ns,
		.unpaid_timed = utimed,
		.unpaid_timed_ns = utimed * umean_ns,
	};

	return c;
}

UT_TEST(counts_from_stats)
{
	struct ut_ring_stats s = { 0 };
	struct bill_counts c;

	s.busy_windows = 10;
	s.busy_paid = 4;
	s.busy_ns = 3000;
	s.busy_hist[9] = 1;
	s.busy_hist[10] = 2;
	s.unpaid_timed = 2;
	s.unpaid_timed_ns = 70 * US;
	s.windows_sampled = 7;
	s.windows_unstamped = 1;
	s.windows_overlong = 1;
	bill_counts_of(&s, &c);
	UT_ASSERT_EQ_INT(c.windows, 10);
	UT_ASSERT_EQ_INT(c.paid, 4);
	UT_ASSERT_EQ_INT(c.timed, 3);
	UT_ASSERT_EQ_INT(c.timed_ns, 3000);
	UT_ASSERT_EQ_INT(c.unpaid_timed, 2);
	UT_ASSERT_EQ_INT(c.unpaid_timed_ns, 70 * US);
}

/* spin: each kind's sampled mean times its count; saved: paid x wake-up cost */
UT_TEST(one_tick)
{
	struct bill_ring b = { 0 };
	struct bill_counts c = counts(1000, 400, 25, 8 * US, 37, 35 * US);
	double eff;

	bill_ring_step(&b, &c, 30 * US, T0, &rule);
	UT_ASSERT_EQ_INT(b.total.windows, 1000);
	UT_ASSERT_EQ_INT(b.total.wakeups_avoided, 400);
	UT_ASSERT_EQ_INT(b.total.paid_ns, 400 * 8 * US);
	UT_ASSERT_EQ_INT(b.total.unpaid_ns, 600 * 35 * US);
	UT_ASSERT_EQ_INT(b.total.unknown, 0);
	UT_ASSERT_EQ_INT(b.total.capped_ns, 0);
	UT_ASSERT_EQ_INT(b.total.saved_ns, 400 * 30 * US);
	UT_ASSERT(bill_efficiency(&b.total, &eff));
	/* 12 ms saved / (3.2 + 21) ms spun */
	UT_ASSERT(eff > 0.4958 && eff < 0.4959);
	UT_ASSERT_EQ_INT(b.bound, BILL_BOUND_UNASKED);
	UT_ASSERT_STR_EQ(bill_bound_state(b.bound), "unknown");
	UT_ASSERT_STR_EQ(bill_bound_why(b.bound), "not_asked");
}

UT_TEST(no_window_no_efficiency)
{
	struct bill_ring b = { 0 };
	struct bill_counts c = { 0 };
	double eff = -1, rate = -1;

	UT_ASSERT(!bill_efficiency(&b.total, &eff));
	UT_ASSERT(!bill_hit_rate(&b.total, &rate));
	bill_ring_step(&b, &c, 30 * US, T0, &rule);
	UT_ASSERT(!bill_efficiency(&b.total, &eff));
	UT_ASSERT(eff == -1 && rate == -1);
	UT_ASSERT_EQ_INT(b.bound, BILL_BOUND_NONE);
	UT_ASSERT(!bill_bound_state(b.bound) && !bill_bound_why(b.bound));
	/* windows that never pay: efficiency 0, not null */
	c = counts(10, 0, 0, 0, 1, 50 * US);
	bill_ring_step(&b, &c, 30 * US, T0 + NSEC, &rule);
	UT_ASSERT(bill_efficiency(&b.total, &eff));
	UT_ASSERT(eff == 0);
	UT_ASSERT(bill_hit_rate(&b.total, &rate));
	UT_ASSERT(rate == 0);
}

/*
 * Each tick's windows at that tick's means and cost: a shorter mean or a
 * lower cost later never takes back what was counted (counters only grow).
 */
UT_TEST(integrated_per_tick)
{
	struct bill_ring b = { 0 };
	struct bill_counts c = counts(100, 100, 10, 40 * US, 0, 0);
	struct bill_sum before;

	bill_ring_step(&b, &c, 300 * US, T0, &rule);
	UT_ASSERT_EQ_INT(b.total.paid_ns, 100 * 40 * US);
	before = b.total;
	/* 100 more paid windows, 10 timed at 4 us; the cost measured lower now */
	c.windows += 100;
	c.paid += 100;
	c.timed += 10;
	c.timed_ns += 10 * 4 * US;
	bill_ring_step(&b, &c, 20 * US, T0 + NSEC, &rule);
	UT_ASSERT_EQ_INT(b.total.paid_ns, 100 * 40 * US + 100 * 4 * US);
	UT_ASSERT_EQ_INT(b.total.saved_ns, 100 * 300 * US + 100 * 20 * US);
	UT_ASSERT(b.total.paid_ns > before.paid_ns && b.total.saved_ns > before.saved_ns);
}

/* paid windows with none timed this tick: the mean so far; none ever: unknown, not billed */
UT_TEST(untimed_paid_windows)
{
	struct bill_ring b = { 0 };
	struct bill_counts c = counts(10, 10, 0, 0, 0, 0);
	double eff;

	bill_ring_step(&b, &c, 30 * US, T0, &rule);
	UT_ASSERT_EQ_INT(b.total.paid_ns, 0);
	UT_ASSERT_EQ_INT(b.total.unknown, 10);
	UT_ASSERT_EQ_INT(b.total.wakeups_avoided, 10);
	/* nothing billed: no efficiency, whatever was saved */
	UT_ASSERT(!bill_efficiency(&b.total, &eff));
	c = counts(20, 20, 4, 10 * US, 0, 0);
	bill_ring_step(&b, &c, 30 * US, T0 + NSEC, &rule);
	UT_ASSERT_EQ_INT(b.total.paid_ns, 10 * 10 * US);
	UT_ASSERT_EQ_INT(b.total.unknown, 10);
	c.windows += 5;
	c.paid += 5;
	bill_ring_step(&b, &c, 30 * US, T0 + 2 * NSEC, &rule);
	UT_ASSERT_EQ_INT(b.total.paid_ns, 15 * 10 * US);
	UT_ASSERT_EQ_INT(b.total.unknown, 10);
}

/* unpaid windows likewise, at their own mean: never at the timeout */
UT_TEST(untimed_unpaid_windows)
{
	struct bill_ring b = { 0 };
	struct bill_counts c = counts(100, 40, 4, 5 * US, 0, 0);

	bill_ring_step(&b, &c, 30 * US, T0, &rule);
	UT_ASSERT_EQ_INT(b.total.paid_ns, 40 * 5 * US);
	UT_ASSERT_EQ_INT(b.total.unpaid_ns, 0);
	UT_ASSERT_EQ_INT(b.total.unknown, 60);
	/* 3 unpaid timed at 20 us this tick */
	c = counts(200, 80, 8, 5 * US, 3, 20 * US);
	bill_ring_step(&b, &c, 30 * US, T0 + NSEC, &rule);
	UT_ASSERT_EQ_INT(b.total.unpaid_ns, 60 * 20 * US);
	UT_ASSERT_EQ_INT(b.total.unknown, 60);
	/* none timed this tick: the mean so far */
	c.windows += 10;
	bill_ring_step(&b, &c, 30 * US, T0 + 2 * NSEC, &rule);
	UT_ASSERT_EQ_INT(b.total.unpaid_ns, 70 * 20 * US);
	/* this tick's mean, not the mean so far */
	c.windows += 10;
	c.unpaid_timed += 1;
	c.unpaid_timed_ns += 2 * US;
	bill_ring_step(&b, &c, 30 * US, T0 + 3 * NSEC, &rule);
	UT_ASSERT_EQ_INT(b.total.unpaid_ns, 70 * 20 * US + 10 * 2 * US);
	UT_ASSERT_EQ_INT(b.total.windows, 220);
	UT_ASSERT_EQ_INT(b.total.unknown, 60);
}

/* a reused map slot: its counters start again from zero; the totals keep growing */
UT_TEST(counters_going_back)
{
	struct bill_ring b = { 0 };
	struct bill_counts c = counts(100, 50, 5, 10 * US, 5, 50 * US);
	struct bill_step st;

	bill_ring_step(&b, &c, 30 * US, T0, &rule);
	c = counts(10, 5, 1, 10 * US, 1, 50 * US);
	bill_ring_price(&b, &c, 30 * US, T0 + NSEC, &st);
	/* since the counters began: when, not known */
	UT_ASSERT(st.span_ns == BILL_SPAN_UNKNOWN);
	bill_ring_commit(&b, &st, T0 + NSEC, &rule);
	UT_ASSERT_EQ_INT(b.total.windows, 110);
	UT_ASSERT_EQ_INT(b.total.wakeups_avoided, 55);
	UT_ASSERT_EQ_INT(b.total.unpaid_ns, 55 * 50 * US);
	/* the next step spans the second between */
	c.windows += 1;
	bill_ring_price(&b, &c, 30 * US, T0 + 2 * NSEC, &st);
	UT_ASSERT_EQ_INT(st.span_ns, NSEC);
}

/* a map value copied while paid ran one ahead of windows: no unpaid window below zero */
UT_TEST(paid_ahead)
{
	struct bill_ring b = { 0 };
	struct bill_counts c = counts(10, 11, 1, 10 * US, 1, 50 * US);

	bill_ring_step(&b, &c, 30 * US, T0, &rule);
	UT_ASSERT_EQ_INT(b.total.unpaid_ns, 0);
	UT_ASSERT_EQ_INT(b.total.unknown, 0);
}

/* a thread's rings: scaled together to what it ran, the rest counted as capped */
UT_TEST(cap_thread)
{
	struct bill_ring r1 = { 0 }, r2 = { 0 };
	struct bill_counts c1 = counts(1000, 1000, 10, 500 * US, 0, 0);
	struct bill_counts c2 = counts(1000, 0, 0, 0, 10, 1500 * US);
	struct bill_step s1, s2, *steps[] = { &s1, &s2 };

	/* a first step: since the counters began, no span to bound it */
	bill_ring_price(&r1, &c1, 30 * US, T0, &s1);
	bill_ring_price(&r2, &c2, 30 * US, T0, &s2);
	bill_cap_thread(steps, 2, BILL_CPU_UNKNOWN);
	UT_ASSERT_EQ_INT(s1.bound, BILL_BOUND_UNASKED);
	UT_ASSERT_EQ_INT(s1.add.paid_ns + s2.add.unpaid_ns, 2 * NSEC);
	/* 2 s billed, 1 s ran: halved */
	bill_cap_thread(steps, 2, NSEC);
	UT_ASSERT_EQ_INT(s1.bound, BILL_BOUND_CPU);
	UT_ASSERT_EQ_INT(s2.bound, BILL_BOUND_CPU);
	UT_ASSERT_EQ_INT(s1.add.paid_ns, NSEC / 4);
	UT_ASSERT_EQ_INT(s2.add.unpaid_ns, 3 * NSEC / 4);
	UT_ASSERT_EQ_INT(s1.add.capped_ns, NSEC / 4);
	UT_ASSERT_EQ_INT(s2.add.capped_ns, 3 * NSEC / 4);
	/* again, tighter: each bound holds after the last */
	bill_cap_thread(steps, 2, NSEC / 2);
	UT_ASSERT(s1.add.paid_ns + s2.add.unpaid_ns <= NSEC / 2);
	UT_ASSERT_EQ_INT(s1.add.paid_ns + s1.add.capped_ns, NSEC / 2);
	bill_ring_commit(&r1, &s1, T0, &rule);
	bill_ring_commit(&r2, &s2, T0, &rule);
	UT_ASSERT_EQ_INT(r1.bound, BILL_BOUND_CPU);
	UT_ASSERT_STR_EQ(bill_bound_state(r1.bound), "known");
	UT_ASSERT_EQ_INT(r1.total.capped_ns + r1.total.paid_ns, NSEC / 2);
	UT_ASSERT_EQ_INT(r2.total.capped_ns + r2.total.unpaid_ns, 3 * NSEC / 2);
	/* a step of 100 ms: the thread ran "more" (a stale reading), one CPU at most */
	c1.windows += 1000;
	c1.paid += 1000;
	bill_ring_price(&r1, &c1, 30 * US, T0 + NSEC / 10, &s1);
	UT_ASSERT_EQ_INT(s1.span_ns, NSEC / 10);
	UT_ASSERT_EQ_INT(s1.add.paid_ns, NSEC / 2);
	bill_cap_thread(steps, 1, 10 * NSEC);
	UT_ASSERT_EQ_INT(s1.add.paid_ns, NSEC / 10);
	UT_ASSERT_EQ_INT(s1.add.capped_ns, NSEC / 2 - NSEC / 10);
	/* within the bound: nothing taken off */
	bill_ring_price(&r1, &c1, 30 * US, T0 + NSEC, &s1);
	bill_cap_thread(steps, 1, NSEC);
	UT_ASSERT_EQ_INT(s1.add.capped_ns, 0);
	UT_ASSERT_EQ_INT(s1.add.paid_ns, NSEC / 2);
}

/* a thread that did not run: nothing billed, all capped; unknown windows untouched */
UT_TEST(cap_to_zero)
{
	struct bill_ring b = { 0 };
	struct bill_counts c = counts(100, 50, 5, 10 * US, 0, 0);
	struct bill_step st, *steps[] = { &st };

	bill_ring_price(&b, &c, 30 * US, T0, &st);
	bill_cap_thread(steps, 1, 0);
	UT_ASSERT_EQ_INT(st.add.paid_ns, 0);
	UT_ASSERT_EQ_INT(st.add.capped_ns, 50 * 10 * US);
	UT_ASSERT_EQ_INT(st.add.unknown, 50);
	UT_ASSERT_EQ_INT(st.add.wakeups_avoided, 50);
}

/* a period closes at the first tick with min_windows new windows; recent is that period */
UT_TEST(period_by_windows)
{
	struct bill_ring b = { 0 };
	struct bill_counts c = counts(5000, 5000, 1, 10 * US, 1, 50 * US);
	double rate;

	/* the first step begins a period: what came before is in the totals only */
	bill_ring_step(&b, &c, 30 * US, T0, &rule);
	UT_ASSERT_EQ_INT(b.period.last_ns, 0);
	c.windows = 5600;
	c.paid = 5100;
	bill_ring_step(&b, &c, 30 * US, T0 + NSEC, &rule);
	UT_ASSERT_EQ_INT(b.period.last_ns, 0);
	c.windows = 6000;
	c.paid = 5200;
	bill_ring_step(&b, &c, 30 * US, T0 + 2 * NSEC, &rule);
	UT_ASSERT_EQ_INT(b.period.last_ns, 2 * NSEC);
	UT_ASSERT_EQ_INT(b.period.last.windows, 1000);
	UT_ASSERT_EQ_INT(b.period.last.wakeups_avoided, 200);
	UT_ASSERT_EQ_INT(b.period.last.unpaid_ns, 800 * 50 * US);
	UT_ASSERT(bill_hit_rate(&b.period.last, &rate));
	UT_ASSERT(rate == 0.2);
	/* the lifetime hit rate is another figure */
	UT_ASSERT(bill_hit_rate(&b.total, &rate));
	UT_ASSERT(rate > 0.86);
	/* the next period starts where that one ended */
	c.windows = 7000;
	c.paid = 6200;
	bill_ring_step(&b, &c, 30 * US, T0 + 3 * NSEC, &rule);
	UT_ASSERT_EQ_INT(b.period.last_ns, NSEC);
	UT_ASSERT_EQ_INT(b.period.last.windows, 1000);
	UT_ASSERT_EQ_INT(b.period.last.wakeups_avoided, 1000);
}

/* a period's unknown windows and capped spin are its own */
UT_TEST(period_unknown_and_capped)
{
	const struct bill_rule one = { .min_windows = 1, .min_ns = 1 };
	struct bill_ring b = { 0 };
	struct bill_counts c = counts(100, 100, 0, 0, 0, 0);
	struct bill_step st, *steps[] = { &st };

	bill_ring_step(&b, &c, 30 * US, T0, &one);
	UT_ASSERT_EQ_INT(b.total.unknown, 100);
	c = counts(300, 200, 10, 100 * US, 0, 0);
	bill_ring_price(&b, &c, 30 * US, T0 + NSEC / 1000, &st);
	/* 100 paid at 100 us: 10 ms in 1 ms; the unpaid 100 unknown */
	UT_ASSERT_EQ_INT(st.add.paid_ns, 10 * NSEC / 1000);
	bill_cap_thread(steps, 1, NSEC);
	bill_ring_commit(&b, &st, T0 + NSEC / 1000, &one);
	UT_ASSERT_EQ_INT(b.period.last.unknown, 100);
	UT_ASSERT_EQ_INT(b.period.last.paid_ns, NSEC / 1000);
	UT_ASSERT_EQ_INT(b.period.last.capped_ns, 9 * NSEC / 1000);
	UT_ASSERT_EQ_INT(b.total.unknown, 200);
}

/* a refresh sooner than a tick after the period began (a status request) closes nothing */
UT_TEST(period_lasts_a_tick)
{
	struct bill_ring b = { 0 };
	struct bill_counts c = counts(0, 0, 0, 0, 0, 0);

	bill_ring_step(&b, &c, 30 * US, T0, &rule);
	c = counts(5000, 5000, 0, 0, 0, 0);
	bill_ring_step(&b, &c, 30 * US, T0 + NSEC / 2, &rule);
	UT_ASSERT_EQ_INT(b.period.last_ns, 0);
	bill_ring_step(&b, &c, 30 * US, T0 + NSEC, &rule);
	UT_ASSERT_EQ_INT(b.period.last_ns, NSEC);
	UT_ASSERT_EQ_INT(b.period.last.windows, 5000);
}

/* a ring that stopped busy-polling: after BILL_PERIOD_MAX_S its recent bill is empty */
UT_TEST(period_by_time)
{
	struct bill_ring b = { 0 };
	struct bill_counts c = counts(1000, 500, 0, 0, 0, 0);
	double eff;

	bill_ring_step(&b, &c, 30 * US, T0, &rule);
	c = counts(2000, 1000, 0, 0, 0, 0);
	bill_ring_step(&b, &c, 30 * US, T0 + NSEC, &rule);
	UT_ASSERT_EQ_INT(b.period.last.windows, 1000);
	for (uint64_t s = 2; s < 1 + BILL_PERIOD_MAX_S; s++)
		bill_ring_step(&b, &c, 30 * US, T0 + s * NSEC, &rule);
	UT_ASSERT_EQ_INT(b.period.last.windows, 1000);
	bill_ring_step(&b, &c, 30 * US, T0 + (1 + BILL_PERIOD_MAX_S) * NSEC, &rule);
	UT_ASSERT_EQ_INT(b.period.last_ns, BILL_PERIOD_MAX_S * NSEC);
	UT_ASSERT_EQ_INT(b.period.last.windows, 0);
	UT_ASSERT(!bill_efficiency(&b.period.last, &eff));
}

/* the host: its rings' totals; a ring that goes keeps its part */
UT_TEST(host_never_goes_back)
{
	struct bill_ring r1 = { 0 }, r2 = { 0 };
	struct bill_counts c1 = counts(1000, 100, 10, 5 * US, 10, 50 * US);
	struct bill_counts c2 = counts(3000, 3000, 100, 7 * US, 0, 0);
	struct bill_host h = { 0 };
	struct bill_sum before;

	bill_ring_step(&r1, &c1, 30 * US, T0, &rule);
	bill_ring_step(&r2, &c2, 30 * US, T0, &rule);
	bill_host_begin(&h);
	bill_host_add(&h, &r1);
	bill_host_add(&h, &r2);
	bill_host_end(&h, T0, &rule);
	UT_ASSERT_EQ_INT(h.total.windows, 4000);
	UT_ASSERT_EQ_INT(h.total.wakeups_avoided, 3100);
	UT_ASSERT_EQ_INT(h.total.paid_ns, 100 * 5 * US + 3000 * 7 * US);
	UT_ASSERT_EQ_INT(h.total.unpaid_ns, 900 * 50 * US);
	before = h.total;
	/* r2 goes away */
	bill_host_forget(&h, &r2);
	c1 = counts(2500, 200, 20, 5 * US, 20, 50 * US);
	bill_ring_step(&r1, &c1, 30 * US, T0 + NSEC, &rule);
	bill_host_begin(&h);
	bill_host_add(&h, &r1);
	bill_host_end(&h, T0 + NSEC, &rule);
	UT_ASSERT_EQ_INT(h.total.windows, 5500);
	UT_ASSERT(h.total.paid_ns >= before.paid_ns && h.total.unpaid_ns > before.unpaid_ns &&
		  h.total.saved_ns > before.saved_ns);
	/* the host's period: 1500 windows in a second */
	UT_ASSERT_EQ_INT(h.period.last_ns, NSEC);
	UT_ASSERT_EQ_INT(h.period.last.windows, 1500);
	UT_ASSERT_EQ_INT(h.period.last.unpaid_ns, 1400 * 50 * US);
}

/* random cases: a xorshift64*, seeded, the same cases every run */
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(uint64_t n)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return n ? (rng * 0x2545f4914f6cdd1dULL) % n : 0;
}

#define MAX_THREADS	4
#define MAX_RINGS	8

static bool sum_grew(const struct bill_sum *now, const struct bill_sum *then)
{
	return now->windows >= then->windows && now->wakeups_avoided >= then->wakeups_avoided &&
	       now->paid_ns >= then->paid_ns && now->unpaid_ns >= then->unpaid_ns &&
	       now->unknown >= then->unknown && now->capped_ns >= then->capped_ns &&
	       now->saved_ns >= then->saved_ns;
}

/* one step of a ring's counters: some windows, a few timed, at lengths from 0 to 2 ms */
static void grow(struct bill_counts *c)
{
	uint64_t windows = rnd(4) ? rnd(5000) : 0;
	uint64_t paid = rnd(windows + 1), unpaid = windows - paid;
	uint64_t timed = rnd(3) ? rnd(paid / 16 + 1) : 0;
	uint64_t utimed = rnd(3) ? rnd(unpaid / 16 + 1) : 0;

	/* now and then a reused slot: counters from zero */
	if (!rnd(50))
		memset(c, 0, sizeof(*c));
	c->windows += windows;
	c->paid += paid;
	c->timed += timed;
	c->timed_ns += timed * rnd(2000 * US);
	c->unpaid_timed += utimed;
	c->unpaid_timed_ns += utimed * rnd(2000 * US);
}

/*
 * Thousands of cases of a few threads and rings over a few steps: per thread
 * the spin billed in a step is at most its CPU time and (past the rings'
 * first steps) the step's length; the host's at most the CPU time of the
 * threads that spun; totals never go back; a kind never timed is unknown,
 * never priced; the bound takes off only what it counts as capped.
 */
UT_TEST(bound_holds_at_random)
{
	uint64_t n_capped = 0, n_unknown = 0, n_known = 0;

	for (int k = 0; k < 4000; k++) {
		struct bill_ring rings[MAX_RINGS];
		struct bill_host host = { 0 };
		unsigned int n_threads = 1 + rnd(MAX_THREADS), n_rings = 1 + rnd(MAX_RINGS);
		unsigned int thread_of[MAX_RINGS], n_steps = 1 + rnd(20);
		struct bill_counts c[MAX_RINGS];
		uint64_t now = T0;

		memset(rings, 0, sizeof(rings));
		memset(c, 0, sizeof(c));
		for (unsigned int i = 0; i < n_rings; i++)
			thread_of[i] = rnd(n_threads);
		for (unsigned int s = 0; s < n_steps; s++) {
			struct bill_step st[MAX_RINGS], *group[MAX_RINGS];
			uint64_t step_ns = 1 + rnd(2 * NSEC), host_cpu = 0, host_spun = 0;
			struct bill_sum host_before = host.total;
			bool all_known = true;

			now += step_ns;
			for (unsigned int i = 0; i < n_rings; i++) {
				const struct bill_counts seen = rings[i].seen;
				bool back;
				uint64_t d_paid, d_win, want = 0;

				grow(&c[i]);
				bill_ring_price(&rings[i], &c[i], rnd(100 * US), now, &st[i]);
				back = c[i].windows < seen.windows || c[i].paid < seen.paid ||
				       c[i].timed < seen.timed || c[i].timed_ns < seen.timed_ns ||
				       c[i].unpaid_timed < seen.unpaid_timed ||
				       c[i].unpaid_timed_ns < seen.unpaid_timed_ns;
				d_paid = back ? c[i].paid : c[i].paid - seen.paid;
				d_win = back ? c[i].windows : c[i].windows - seen.windows;
				/* a kind none of which was ever timed: unknown, at no price */
				if (!c[i].timed) {
					want += d_paid;
					UT_ASSERT_EQ_INT(st[i].add.paid_ns, 0);
				}
				if (!c[i].unpaid_timed) {
					/* paid ahead of windows (a reset that looks like growth): none */
					want += d_win > d_paid ? d_win - d_paid : 0;
					UT_ASSERT_EQ_INT(st[i].add.unpaid_ns, 0);
				}
				UT_ASSERT_EQ_INT(st[i].add.unknown, want);
				UT_ASSERT_EQ_INT(st[i].add.windows, d_win);
				UT_ASSERT_EQ_INT(st[i].add.capped_ns, 0);
				n_unknown += want > 0;
				n_known += want < d_win;
			}
			for (unsigned int t = 0; t < n_threads; t++) {
				uint64_t cpu = rnd(5) ? rnd(2 * step_ns) : BILL_CPU_UNKNOWN;
				uint64_t before = 0, after = 0, capped = 0, span = 0;
				size_t n = 0;

				for (unsigned int i = 0; i < n_rings; i++) {
					if (thread_of[i] != t)
						continue;
					group[n++] = &st[i];
					before += st[i].add.paid_ns + st[i].add.unpaid_ns;
					if (st[i].span_ns > span)
						span = st[i].span_ns;
				}
				bill_cap_thread(group, n, cpu);
				for (size_t j = 0; j < n; j++) {
					after += group[j]->add.paid_ns + group[j]->add.unpaid_ns;
					capped += group[j]->add.capped_ns;
				}
				UT_ASSERT_EQ_INT(after + capped, before);
				n_capped += capped > 0;
				if (cpu == BILL_CPU_UNKNOWN) {
					UT_ASSERT_EQ_INT(capped, 0);
					if (n)
						all_known = false;
					continue;
				}
				/* per thread: at most what it ran, and one CPU over the step */
				UT_ASSERT(after <= cpu);
				if (n && span != BILL_SPAN_UNKNOWN) {
					UT_ASSERT_EQ_INT(span, step_ns);
					UT_ASSERT(after <= step_ns);
				}
				if (after)
					host_cpu += cpu;
				host_spun += after;
			}
			bill_host_begin(&host);
			for (unsigned int i = 0; i < n_rings; i++) {
				struct bill_sum then = rings[i].total;

				bill_ring_commit(&rings[i], &st[i], now, &rule);
				UT_ASSERT(sum_grew(&rings[i].total, &then));
				bill_host_add(&host, &rings[i]);
			}
			bill_host_end(&host, now, &rule);
			UT_ASSERT(sum_grew(&host.total, &host_before));
			/* the host: at most the CPU time of the threads that spun */
			UT_ASSERT(host_spun <= host_cpu);
			if (all_known)
				UT_ASSERT(bill_spin_ns(&host.total) - bill_spin_ns(&host_before) <=
					  host_cpu);
		}
		if (ut_msg[0])
			return;
	}
	/* the cases did reach each branch, often */
	UT_ASSERT(n_capped > 1000 && n_unknown > 1000 && n_known > 1000);
}

int main(void)
{
	ut_run("counts_from_stats", counts_from_stats);
	ut_run("one_tick", one_tick);
	ut_run("no_window_no_efficiency", no_window_no_efficiency);
	ut_run("integrated_per_tick", integrated_per_tick);
	ut_run("untimed_paid_windows", untimed_paid_windows);
	ut_run("untimed_unpaid_windows", untimed_unpaid_windows);
	ut_run("counters_going_back", counters_going_back);
	ut_run("paid_ahead", paid_ahead);
	ut_run("cap_thread", cap_thread);
	ut_run("cap_to_zero", cap_to_zero);
	ut_run("period_by_windows", period_by_windows);
	ut_run("period_unknown_and_capped", period_unknown_and_capped);
	ut_run("period_lasts_a_tick", period_lasts_a_tick);
	ut_run("period_by_time", period_by_time);
	ut_run("host_never_goes_back", host_never_goes_back);
	ut_run("bound_holds_at_random", bound_holds_at_random);
	return ut_finish();
}
