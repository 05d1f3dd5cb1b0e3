// SPDX-License-Identifier: GPL-2.0-only
/* The bill (daemon/bill.c): counters in, spin, saved and efficiency out. */
#include <stdint.h>
#include <string.h>

#include "bill.h"
#include "unit.h"

#define NSEC		1000000000ULL
#define T0		(1000 * NSEC)
#define US		1000ULL

/* the defaults: 1000 windows, a tick of a second */
static const struct bill_rule rule = { .min_windows = 1000, .min_ns = NSEC };

/* a ring's counters after @windows windows, @paid paid; @timed of those timed at @mean_ns */
static struct bill_counts counts(uint64_t windows, uint64_t paid, uint64_t timeout_ns,
				 uint64_t timed, uint64_t mean_ns)
{
	struct bill_counts c = {
		.windows = windows,
		.paid = paid,
		.unpaid_ns = (windows - paid) * timeout_ns,
		.timed = timed,
		.timed_ns = timed * mean_ns,
	};

	return c;
}

UT_TEST(counts_from_stats)
{
	struct ut_ring_stats s = { 0 };
	struct bill_counts c;

	s.busy_windows = 10;
	s.busy_paid = 4;
	s.unpaid_spin_ns = 6 * 50 * US;
	s.busy_ns = 3000;
	s.busy_hist[9] = 1;
	s.busy_hist[10] = 2;
	bill_counts_of(&s, &c);
	UT_ASSERT_EQ_INT(c.windows, 10);
	UT_ASSERT_EQ_INT(c.paid, 4);
	UT_ASSERT_EQ_INT(c.unpaid_ns, 300 * US);
	UT_ASSERT_EQ_INT(c.timed, 3);
	UT_ASSERT_EQ_INT(c.timed_ns, 3000);
}

/* paid spin: the sampled mean times every paid window; saved: paid x wake-up cost */
UT_TEST(one_tick)
{
	struct bill_ring b = { 0 };
	struct bill_counts c = counts(1000, 400, 50 * US, 25, 8 * US);
	double eff;

	bill_ring_step(&b, &c, 30 * US, 50 * US, T0, &rule);
	UT_ASSERT_EQ_INT(b.total.windows, 1000);
	UT_ASSERT_EQ_INT(b.total.wakeups_avoided, 400);
	UT_ASSERT_EQ_INT(b.total.paid_ns, 400 * 8 * US);
	UT_ASSERT_EQ_INT(b.total.unpaid_ns, 600 * 50 * US);
	UT_ASSERT_EQ_INT(b.total.saved_ns, 400 * 30 * US);
	UT_ASSERT(bill_efficiency(&b.total, &eff));
	/* 12 ms saved / (3.2 + 30) ms spun */
	UT_ASSERT(eff > 0.3614 && eff < 0.3615);
}

UT_TEST(no_window_no_efficiency)
{
	struct bill_ring b = { 0 };
	struct bill_counts c = { 0 };
	double eff = -1, rate = -1;

	UT_ASSERT(!bill_efficiency(&b.total, &eff));
	UT_ASSERT(!bill_hit_rate(&b.total, &rate));
	bill_ring_step(&b, &c, 30 * US, 50 * US, T0, &rule);
	UT_ASSERT(!bill_efficiency(&b.total, &eff));
	UT_ASSERT(eff == -1 && rate == -1);
	/* windows that never pay: efficiency 0, not null */
	c = counts(10, 0, 50 * US, 0, 0);
	bill_ring_step(&b, &c, 30 * US, 50 * US, T0 + NSEC, &rule);
	UT_ASSERT(bill_efficiency(&b.total, &eff));
	UT_ASSERT(eff == 0);
	UT_ASSERT(bill_hit_rate(&b.total, &rate));
	UT_ASSERT(rate == 0);
}

/*
 * Each tick's paid windows at that tick's mean and cost: a shorter mean or
 * a lower cost later never takes back what was counted (counters only grow).
 */
UT_TEST(integrated_per_tick)
{
	struct bill_ring b = { 0 };
	struct bill_counts c = counts(100, 100, 50 * US, 10, 40 * US);
	struct bill_sum before;

	bill_ring_step(&b, &c, 300 * US, 50 * US, T0, &rule);
	UT_ASSERT_EQ_INT(b.total.paid_ns, 100 * 40 * US);
	before = b.total;
	/* 100 more paid windows, 10 timed at 4 us; the cost measured lower now */
	c.windows += 100;
	c.paid += 100;
	c.timed += 10;
	c.timed_ns += 10 * 4 * US;
	bill_ring_step(&b, &c, 20 * US, 50 * US, T0 + NSEC, &rule);
	UT_ASSERT_EQ_INT(b.total.paid_ns, 100 * 40 * US + 100 * 4 * US);
	UT_ASSERT_EQ_INT(b.total.saved_ns, 100 * 300 * US + 100 * 20 * US);
	UT_ASSERT(b.total.paid_ns > before.paid_ns && b.total.saved_ns > before.saved_ns);
}

/* paid windows with none timed this tick: the mean so far; none ever: the timeout */
UT_TEST(untimed_paid_windows)
{
	struct bill_ring b = { 0 };
	struct bill_counts c = counts(10, 10, 50 * US, 0, 0);

	bill_ring_step(&b, &c, 30 * US, 50 * US, T0, &rule);
	UT_ASSERT_EQ_INT(b.total.paid_ns, 10 * 50 * US);
	c = counts(20, 20, 50 * US, 4, 10 * US);
	bill_ring_step(&b, &c, 30 * US, 50 * US, T0 + NSEC, &rule);
	UT_ASSERT_EQ_INT(b.total.paid_ns, 10 * 50 * US + 10 * 10 * US);
	c.windows += 5;
	c.paid += 5;
	bill_ring_step(&b, &c, 30 * US, 50 * US, T0 + 2 * NSEC, &rule);
	UT_ASSERT_EQ_INT(b.total.paid_ns, 10 * 50 * US + 15 * 10 * US);
}

/* a reused map slot: its counters start again from zero; the totals keep growing */
UT_TEST(counters_going_back)
{
	struct bill_ring b = { 0 };
	struct bill_counts c = counts(100, 50, 50 * US, 5, 10 * US);

	bill_ring_step(&b, &c, 30 * US, 50 * US, T0, &rule);
	c = counts(10, 5, 50 * US, 1, 10 * US);
	bill_ring_step(&b, &c, 30 * US, 50 * US, T0 + NSEC, &rule);
	UT_ASSERT_EQ_INT(b.total.windows, 110);
	UT_ASSERT_EQ_INT(b.total.wakeups_avoided, 55);
	UT_ASSERT_EQ_INT(b.total.unpaid_ns, 55 * 50 * US);
}

/* a period closes at the first tick with min_windows new windows; recent is that period */
UT_TEST(period_by_windows)
{
	struct bill_ring b = { 0 };
	struct bill_counts c = counts(5000, 5000, 50 * US, 0, 0);
	double rate;

	/* the first step begins a period: what came before is in the totals only */
	bill_ring_step(&b, &c, 30 * US, 50 * US, T0, &rule);
	UT_ASSERT_EQ_INT(b.period.last_ns, 0);
	c = counts(5600, 5100, 50 * US, 0, 0);
	bill_ring_step(&b, &c, 30 * US, 50 * US, T0 + NSEC, &rule);
	UT_ASSERT_EQ_INT(b.period.last_ns, 0);
	c = counts(6000, 5200, 50 * US, 0, 0);
	bill_ring_step(&b, &c, 30 * US, 50 * US, T0 + 2 * NSEC, &rule);
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
	c = counts(7000, 6200, 50 * US, 0, 0);
	bill_ring_step(&b, &c, 30 * US, 50 * US, T0 + 3 * NSEC, &rule);
	UT_ASSERT_EQ_INT(b.period.last_ns, NSEC);
	UT_ASSERT_EQ_INT(b.period.last.windows, 1000);
	UT_ASSERT_EQ_INT(b.period.last.wakeups_avoided, 1000);
}

/* a refresh sooner than a tick after the period began (a status request) closes nothing */
UT_TEST(period_lasts_a_tick)
{
	struct bill_ring b = { 0 };
	struct bill_counts c = counts(0, 0, 50 * US, 0, 0);

	bill_ring_step(&b, &c, 30 * US, 50 * US, T0, &rule);
	c = counts(5000, 5000, 50 * US, 0, 0);
	bill_ring_step(&b, &c, 30 * US, 50 * US, T0 + NSEC / 2, &rule);
	UT_ASSERT_EQ_INT(b.period.last_ns, 0);
	bill_ring_step(&b, &c, 30 * US, 50 * US, T0 + NSEC, &rule);
	UT_ASSERT_EQ_INT(b.period.last_ns, NSEC);
	UT_ASSERT_EQ_INT(b.period.last.windows, 5000);
}

/* a ring that stopped busy-polling: after BILL_PERIOD_MAX_S its recent bill is empty */
UT_TEST(period_by_time)
{
	struct bill_ring b = { 0 };
	struct bill_counts c = counts(1000, 500, 50 * US, 0, 0);
	double eff;

	bill_ring_step(&b, &c, 30 * US, 50 * US, T0, &rule);
	c = counts(2000, 1000, 50 * US, 0, 0);
	bill_ring_step(&b, &c, 30 * US, 50 * US, T0 + NSEC, &rule);
	UT_ASSERT_EQ_INT(b.period.last.windows, 1000);
	for (uint64_t s = 2; s < 1 + BILL_PERIOD_MAX_S; s++)
		bill_ring_step(&b, &c, 30 * US, 50 * US, T0 + s * NSEC, &rule);
	UT_ASSERT_EQ_INT(b.period.last.windows, 1000);
	bill_ring_step(&b, &c, 30 * US, 50 * US, T0 + (1 + BILL_PERIOD_MAX_S) * NSEC, &rule);
	UT_ASSERT_EQ_INT(b.period.last_ns, BILL_PERIOD_MAX_S * NSEC);
	UT_ASSERT_EQ_INT(b.period.last.windows, 0);
	UT_ASSERT(!bill_efficiency(&b.period.last, &eff));
}

/* the host: its rings' totals; a ring that goes keeps its part */
UT_TEST(host_never_goes_back)
{
	struct bill_ring r1 = { 0 }, r2 = { 0 };
	struct bill_counts c1 = counts(1000, 100, 50 * US, 10, 5 * US);
	struct bill_counts c2 = counts(3000, 3000, 50 * US, 100, 7 * US);
	struct bill_host h = { 0 };
	struct bill_sum before;

	bill_ring_step(&r1, &c1, 30 * US, 50 * US, T0, &rule);
	bill_ring_step(&r2, &c2, 30 * US, 50 * US, T0, &rule);
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
	c1 = counts(2500, 200, 50 * US, 20, 5 * US);
	bill_ring_step(&r1, &c1, 30 * US, 50 * US, T0 + NSEC, &rule);
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

int main(void)
{
	ut_run("counts_from_stats", counts_from_stats);
	ut_run("one_tick", one_tick);
	ut_run("no_window_no_efficiency", no_window_no_efficiency);
	ut_run("integrated_per_tick", integrated_per_tick);
	ut_run("untimed_paid_windows", untimed_paid_windows);
	ut_run("counters_going_back", counters_going_back);
	ut_run("period_by_windows", period_by_windows);
	ut_run("period_lasts_a_tick", period_lasts_a_tick);
	ut_run("period_by_time", period_by_time);
	ut_run("host_never_goes_back", host_never_goes_back);
	return ut_finish();
}
