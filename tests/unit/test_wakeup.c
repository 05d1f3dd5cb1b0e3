// SPDX-License-Identifier: GPL-2.0-only
/*
 * wakeup: the running mean of timed wake-ups, and which figure a ring gets:
 * the override, its own, the host's, or the prior.
 */
#include <stdint.h>

#include "unit.h"
#include "wakeup.h"

#define US	1000ULL

/* the first batch sets the mean; later ones move it by their weight */
UT_TEST(running_mean)
{
	struct wakeup_est e = { 0 };

	wakeup_add(&e, 0, 0);
	UT_ASSERT(e.samples == 0);
	wakeup_add(&e, 10, 10 * 30 * US);
	UT_ASSERT(e.samples == 10);
	UT_ASSERT(e.mean_ns == 30 * US);
	/* one wake-up of 286 us moves a mean of 30 us by 1/256 of the gap: 31 us */
	wakeup_add(&e, 1, 286 * US);
	UT_ASSERT(e.mean_ns > 30.99 * US && e.mean_ns < 31.01 * US);
	/* thousands at 300 us: the mean is theirs, the 30 us forgotten */
	wakeup_add(&e, 5000, 5000 * 300 * US);
	UT_ASSERT(e.mean_ns > 299 * US && e.mean_ns < 301 * US);
	UT_ASSERT(e.samples == 5011);
}

UT_TEST(resolve_order)
{
	struct wakeup_est ring = { 0 }, host = { 0 };
	enum wakeup_source src;

	UT_ASSERT(wakeup_resolve(&ring, &host, 0, &src) == WAKEUP_PRIOR_US * US);
	UT_ASSERT_STR_EQ(wakeup_source_name(src), "prior");
	wakeup_add(&host, WAKEUP_MIN_SAMPLES, WAKEUP_MIN_SAMPLES * 40 * US);
	UT_ASSERT(wakeup_resolve(&ring, &host, 0, &src) == 40 * US);
	UT_ASSERT_STR_EQ(wakeup_source_name(src), "host");
	/* a ring's own figure needs WAKEUP_MIN_SAMPLES wake-ups */
	wakeup_add(&ring, WAKEUP_MIN_SAMPLES - 1, (WAKEUP_MIN_SAMPLES - 1) * 300 * US);
	UT_ASSERT(wakeup_resolve(&ring, &host, 0, &src) == 40 * US);
	wakeup_add(&ring, 1, 300 * US);
	UT_ASSERT(wakeup_resolve(&ring, &host, 0, &src) == 300 * US);
	UT_ASSERT_STR_EQ(wakeup_source_name(src), "ring");
	/* NULL ring: the host's figure */
	UT_ASSERT(wakeup_resolve(NULL, &host, 0, &src) == 40 * US);
	/* the override beats everything */
	UT_ASSERT(wakeup_resolve(&ring, &host, 12, &src) == 12 * US);
	UT_ASSERT_STR_EQ(wakeup_source_name(src), "configured");
	UT_ASSERT_STR_EQ(wakeup_source_name(WAKEUP_SRC_NONE), "none");
}

int main(void)
{
	ut_run("running_mean", running_mean);
	ut_run("resolve_order", resolve_order);
	return ut_finish();
}
