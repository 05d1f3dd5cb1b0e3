// SPDX-License-Identifier: GPL-2.0-only
/*
 * sweep_budget: the full host sweep's CPU share, its floor between sweeps,
 * the periodic backstop, requests, and "never" at share 0.
 */
#include <stdint.h>

#include "sweep_budget.h"
#include "unit.h"

#define MS	1000000ULL
#define S	(1000 * MS)

/* 0.1% of a core: a sweep of 210 ms CPU waits 210 s, asked or not */
UT_TEST(share_sets_the_gap)
{
	struct sweep_budget b;

	sweep_budget_init(&b, 0.001, 1 * S, 300 * S);
	sweep_budget_done(&b, 1000 * S, 210 * MS);
	UT_ASSERT(sweep_budget_earliest(&b) == 1210 * S);
	sweep_budget_request(&b, "lost");
	UT_ASSERT(!sweep_budget_due(&b, 1209 * S));
	UT_ASSERT(sweep_budget_due(&b, 1210 * S));
	UT_ASSERT_STR_EQ(b.reason, "lost");
	sweep_budget_done(&b, 1211 * S, 210 * MS);
	UT_ASSERT(!b.requested && !b.reason);
	UT_ASSERT(b.runs == 2 && b.total_cpu_ns == 420 * MS);
}

/* a cheap sweep: the floor holds (one tick), and without a reason the period */
UT_TEST(floor_and_period)
{
	struct sweep_budget b;

	sweep_budget_init(&b, 0.001, 1 * S, 300 * S);
	sweep_budget_done(&b, 100 * S, 100000);	/* 0.1 ms: 100 ms by share */
	UT_ASSERT(sweep_budget_earliest(&b) == 101 * S);
	UT_ASSERT(!sweep_budget_due(&b, 102 * S));		/* no reason yet */
	UT_ASSERT(!sweep_budget_due(&b, 399 * S));
	UT_ASSERT(sweep_budget_due(&b, 400 * S));		/* the periodic backstop */
	sweep_budget_request(&b, "events lost");
	UT_ASSERT(!sweep_budget_due(&b, 100 * S + 500 * MS));	/* the floor */
	UT_ASSERT(sweep_budget_due(&b, 101 * S));
}

/* averaged over a run of sweeps asked for back to back: at most the share */
UT_TEST(back_to_back_requests_stay_within_share)
{
	struct sweep_budget b;
	uint64_t now = 0, cpu = 0, start = 0;

	sweep_budget_init(&b, 0.001, 1 * S, 300 * S);
	for (int i = 0; i < 100; i++) {
		uint64_t c = (uint64_t)(50 + 20 * (i % 7)) * MS;

		sweep_budget_request(&b, "again");
		while (!sweep_budget_due(&b, now))
			now += 100 * MS;
		if (!i)
			start = now;
		now += c;	/* it runs */
		cpu += c;
		sweep_budget_done(&b, now, c);
	}
	/* the last sweep's own cost is not yet paid back: count up to its start */
	UT_ASSERT((double)(cpu - b.last_cpu_ns) / (double)(now - b.last_cpu_ns - start) <= 0.001 * 1.01);
}

/* share 0: never after the start-up sweep, even when asked */
UT_TEST(zero_share_never)
{
	struct sweep_budget b;

	sweep_budget_init(&b, 0, 1 * S, 300 * S);
	sweep_budget_done(&b, 5 * S, 1 * MS);
	sweep_budget_request(&b, "lost");
	UT_ASSERT(sweep_budget_earliest(&b) == UINT64_MAX);
	UT_ASSERT(!sweep_budget_due(&b, UINT64_MAX - 1));
}

/* a cost so large the gap passes the clock's range: never, not a wrap */
UT_TEST(huge_cost_does_not_wrap)
{
	struct sweep_budget b;

	sweep_budget_init(&b, 1e-9, 1 * S, 300 * S);
	sweep_budget_done(&b, UINT64_MAX - 10 * S, 100 * S);
	UT_ASSERT(sweep_budget_earliest(&b) == UINT64_MAX);
	UT_ASSERT(!sweep_budget_due(&b, 20 * S));
}

int main(void)
{
	ut_run("share_sets_the_gap", share_sets_the_gap);
	ut_run("floor_and_period", floor_and_period);
	ut_run("back_to_back_requests_stay_within_share", back_to_back_requests_stay_within_share);
	ut_run("zero_share_never", zero_share_never);
	ut_run("huge_cost_does_not_wrap", huge_cost_does_not_wrap);
	return ut_finish();
}
