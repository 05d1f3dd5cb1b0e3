// SPDX-License-Identifier: GPL-2.0-only
/* IOPOLL summaries (percentiles from log2 slots) and the hybrid advisor. */
#include <string.h>

#include "iopoll_summary.h"
#include "unit.h"

UT_TEST(percentile_empty)
{
	__u64 hist[UT_HIST_SLOTS] = {};

	UT_ASSERT_EQ_INT(hist_percentile_ns(hist, 50), 0);
}

/* all in one slot: the percentile moves linearly through [2^i, 2^(i+1)) */
UT_TEST(percentile_interpolates)
{
	__u64 hist[UT_HIST_SLOTS] = {};

	hist[13] = 100;			/* [8192, 16384) ns */
	UT_ASSERT_EQ_INT(hist_percentile_ns(hist, 50), 8192 + 4096);
	UT_ASSERT_EQ_INT(hist_percentile_ns(hist, 100), 16384);
	UT_ASSERT(hist_percentile_ns(hist, 1) >= 8192);
	UT_ASSERT(hist_percentile_ns(hist, 1) < 8192 + 200);
}

UT_TEST(percentile_spans_slots)
{
	__u64 hist[UT_HIST_SLOTS] = {};

	hist[10] = 90;			/* [1024, 2048) */
	hist[20] = 10;			/* [1M, 2M) */
	UT_ASSERT(hist_percentile_ns(hist, 50) < 2048);
	UT_ASSERT(hist_percentile_ns(hist, 99) >= (1ULL << 20));
	UT_ASSERT(hist_percentile_ns(hist, 101) == (1ULL << 21));
}

UT_TEST(summary_merges_classes)
{
	struct ut_iopoll_stats s = {};
	struct iopoll_summary sum;

	s.completions[UT_IOP_READ] = 30;
	s.completions[UT_IOP_WRITE] = 10;
	s.hist[UT_IOP_READ][12] = 30;
	s.hist[UT_IOP_WRITE][14] = 10;
	s.submitted = 43;
	iopoll_summarize(&s, &sum);
	UT_ASSERT_EQ_INT(sum.completions, 40);
	UT_ASSERT_EQ_INT(sum.in_flight, 3);
	UT_ASSERT_EQ_INT(sum.hist[12], 30);
	UT_ASSERT_EQ_INT(sum.hist[14], 10);
	UT_ASSERT_EQ_INT(sum.min_ns, 4096);
	/* midpoints: 30 * 6144 + 10 * 24576 over 40 */
	UT_ASSERT_EQ_INT(sum.mean_ns, (30 * 6144 + 10 * 24576) / 40);
}

int main(void)
{
	ut_run("percentile_empty", percentile_empty);
	ut_run("percentile_interpolates", percentile_interpolates);
	ut_run("percentile_spans_slots", percentile_spans_slots);
	ut_run("summary_merges_classes", summary_merges_classes);
	return ut_finish();
}
