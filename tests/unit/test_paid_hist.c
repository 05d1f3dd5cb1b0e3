// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host's histogram of paid windows (daemon/paid_hist.c): the rings'
 * growth summed, so that it only grows, rings gone and slots reused included.
 */
#include <stdint.h>

#include "paid_hist.h"
#include "unit.h"

/* a ring's statistics with @n windows timed in slot @slot, @ns long in all */
static struct ut_ring_stats stats(unsigned int slot, uint64_t n, uint64_t ns)
{
	struct ut_ring_stats s = { 0 };

	s.busy_hist[slot] = n;
	s.busy_ns = ns;
	return s;
}

/* the windows timed: the sum of the slots */
static uint64_t paid_hist_count(const struct paid_hist *h)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < UT_HIST_SLOTS; i++)
		n += h->hist[i];
	return n;
}

UT_TEST(sums_rings_growth)
{
	struct paid_hist host = { 0 }, a = { 0 }, b = { 0 };
	struct ut_ring_stats s;

	s = stats(10, 5, 5000);
	paid_hist_step(&host, &a, &s);
	s = stats(12, 3, 12000);
	paid_hist_step(&host, &b, &s);
	UT_ASSERT_EQ_INT(host.hist[10], 5);
	UT_ASSERT_EQ_INT(host.hist[12], 3);
	UT_ASSERT_EQ_INT(host.ns, 17000);
	UT_ASSERT_EQ_INT(paid_hist_count(&host), 8);
	/* a's next refresh: only what grew is added */
	s = stats(10, 7, 7000);
	paid_hist_step(&host, &a, &s);
	UT_ASSERT_EQ_INT(host.hist[10], 7);
	UT_ASSERT_EQ_INT(host.ns, 19000);
	/* the same counts again: nothing */
	paid_hist_step(&host, &a, &s);
	UT_ASSERT_EQ_INT(paid_hist_count(&host), 10);
	UT_ASSERT_EQ_INT(host.ns, 19000);
}

UT_TEST(ring_gone_takes_nothing_back)
{
	struct paid_hist host = { 0 }, a = { 0 }, b = { 0 };
	struct ut_ring_stats s = stats(3, 4, 40);

	paid_hist_step(&host, &a, &s);
	/* ring a is gone: no more steps; b comes */
	s = stats(3, 1, 10);
	paid_hist_step(&host, &b, &s);
	UT_ASSERT_EQ_INT(host.hist[3], 5);
	UT_ASSERT_EQ_INT(host.ns, 50);
}

UT_TEST(counters_back_count_from_zero)
{
	struct paid_hist host = { 0 }, a = { 0 };
	struct ut_ring_stats s = stats(5, 100, 1000);

	paid_hist_step(&host, &a, &s);
	/* a reused slot: fewer than seen, all of it new */
	s = stats(6, 2, 20);
	paid_hist_step(&host, &a, &s);
	UT_ASSERT_EQ_INT(host.hist[5], 100);
	UT_ASSERT_EQ_INT(host.hist[6], 2);
	UT_ASSERT_EQ_INT(host.ns, 1020);
	UT_ASSERT_EQ_INT(a.hist[5], 0);
	UT_ASSERT_EQ_INT(a.hist[6], 2);
	/* only the time went back: also a reset */
	s = stats(6, 2, 10);
	paid_hist_step(&host, &a, &s);
	UT_ASSERT_EQ_INT(host.hist[6], 4);
	UT_ASSERT_EQ_INT(host.ns, 1030);
}

int main(void)
{
	ut_run("sums_rings_growth", sums_rings_growth);
	ut_run("ring_gone_takes_nothing_back", ring_gone_takes_nothing_back);
	ut_run("counters_back_count_from_zero", counters_back_count_from_zero);
	return ut_finish();
}
