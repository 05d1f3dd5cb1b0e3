// SPDX-License-Identifier: GPL-2.0-only
/*
 * The log2 histogram convention (common/hist.h): which slot a duration
 * lands in, the slots' edges, and the two ways a quantile is placed inside
 * the slot that holds it.
 */
#include <stdint.h>
#include <string.h>

#include "hist.h"
#include "unit.h"

/* slot i holds [2^i, 2^(i+1)); slot 0 also holds 0 */
UT_TEST(slot_of_value)
{
	UT_ASSERT_EQ_INT(hist_log2(0), 0);
	UT_ASSERT_EQ_INT(hist_log2(1), 0);
	UT_ASSERT_EQ_INT(hist_log2(2), 1);
	UT_ASSERT_EQ_INT(hist_log2(3), 1);
	UT_ASSERT_EQ_INT(hist_log2(1023), 9);
	UT_ASSERT_EQ_INT(hist_log2(1024), 10);
	UT_ASSERT_EQ_INT(hist_log2(UINT64_MAX), 63);
	for (unsigned int i = 0; i < UT_HIST_SLOTS; i++) {
		UT_ASSERT_EQ_INT(hist_slot(hist_slot_lo(i)), i);
		UT_ASSERT_EQ_INT(hist_slot(hist_slot_max(i)), i);
		UT_ASSERT_EQ_INT(hist_slot_hi(i), hist_slot_max(i) + 1);
	}
	/* the BPF index mask: 2^32 ns and more wrap (see hist_slot()) */
	UT_ASSERT_EQ_INT(hist_slot(UINT64_C(1) << 32), 0);
}

UT_TEST(slot_edges)
{
	UT_ASSERT_EQ_INT(hist_slot_lo(0), 0);
	UT_ASSERT_EQ_INT(hist_slot_hi(0), 2);
	UT_ASSERT_EQ_INT(hist_slot_max(0), 1);
	UT_ASSERT_EQ_INT(hist_slot_lo(13), 8192);
	UT_ASSERT_EQ_INT(hist_slot_hi(13), 16384);
	UT_ASSERT_EQ_INT(hist_slot_max(13), 16383);
	/* the top slot's Prometheus le: 4.294967295 s */
	UT_ASSERT_EQ_INT(hist_slot_max(UT_HIST_SLOTS - 1), 4294967295LL);
	UT_ASSERT(hist_slot_hi(63) == UINT64_MAX);
	UT_ASSERT(hist_slot_max(63) == UINT64_MAX);
	UT_ASSERT(hist_slot_mid(0) == 1.0);
	UT_ASSERT(hist_slot_mid(1) == 3.0);
	UT_ASSERT(hist_slot_mid(13) == 12288.0);
}

UT_TEST(quantile_empty)
{
	__u64 h[UT_HIST_SLOTS] = { 0 };

	UT_ASSERT_EQ_INT(hist_quantile_ns(h, 0, HIST_AT_SLOT_END), 0);
	UT_ASSERT_EQ_INT(hist_quantile_ns(h, 50, HIST_AT_INTERPOLATED), 0);
	UT_ASSERT_EQ_INT(hist_quantile_ns(h, 100, HIST_AT_SLOT_END), 0);
}

/* the slot is the first whose running count reaches ceil(total * pct / 100) */
UT_TEST(quantile_slot)
{
	__u64 h[UT_HIST_SLOTS] = { 0 };

	h[10] = 95;			/* [1024, 2048) */
	h[13] = 5;			/* [8192, 16384) */
	UT_ASSERT_EQ_INT(hist_quantile_ns(h, 95, HIST_AT_SLOT_END), 2048);
	UT_ASSERT_EQ_INT(hist_quantile_ns(h, 96, HIST_AT_SLOT_END), 16384);
	/* pct 0 is the lowest non-empty slot, above 100 is 100 */
	UT_ASSERT_EQ_INT(hist_quantile_ns(h, 0, HIST_AT_SLOT_END), 2048);
	UT_ASSERT_EQ_INT(hist_quantile_ns(h, 0, HIST_AT_INTERPOLATED), 1024);
	UT_ASSERT_EQ_INT(hist_quantile_ns(h, 250, HIST_AT_SLOT_END), 16384);
	UT_ASSERT_EQ_INT(hist_quantile_ns(h, 250, HIST_AT_INTERPOLATED), 16384);
	/* fractional ranks round up: 95% of 3 is the third */
	h[10] = 2;
	h[13] = 1;
	UT_ASSERT_EQ_INT(hist_quantile_ns(h, 95, HIST_AT_SLOT_END), 16384);
	UT_ASSERT_EQ_INT(hist_quantile_ns(h, 66, HIST_AT_SLOT_END), 2048);
	/* both ways agree on the slot: interpolated is within [lo, hi] of it */
	for (unsigned int pct = 0; pct <= 100; pct++) {
		uint64_t end = hist_quantile_ns(h, pct, HIST_AT_SLOT_END);
		uint64_t in = hist_quantile_ns(h, pct, HIST_AT_INTERPOLATED);

		UT_ASSERT(in <= end);
		UT_ASSERT(in >= hist_slot_lo(hist_log2(end - 1)));
	}
}

/* interpolated: linear through [lo, hi) of the slot */
UT_TEST(quantile_interpolated)
{
	__u64 h[UT_HIST_SLOTS] = { 0 };

	h[13] = 100;
	UT_ASSERT_EQ_INT(hist_quantile_ns(h, 50, HIST_AT_INTERPOLATED), 8192 + 4096);
	UT_ASSERT_EQ_INT(hist_quantile_ns(h, 25, HIST_AT_INTERPOLATED), 8192 + 2048);
	UT_ASSERT_EQ_INT(hist_quantile_ns(h, 100, HIST_AT_INTERPOLATED), 16384);
	UT_ASSERT_EQ_INT(hist_quantile_ns(h, 100, HIST_AT_SLOT_END), 16384);
}

/* counts whose sum overflows are taken in units of 64; a lone top value counts */
UT_TEST(quantile_overflow)
{
	__u64 h[UT_HIST_SLOTS] = { 0 };

	h[0] = UINT64_MAX;
	h[UT_HIST_SLOTS - 1] = UINT64_MAX;
	UT_ASSERT_EQ_INT(hist_quantile_ns(h, 50, HIST_AT_SLOT_END), 2);
	UT_ASSERT(hist_quantile_ns(h, 51, HIST_AT_SLOT_END) == UINT64_C(1) << 32);
	memset(h, 0, sizeof(h));
	h[5] = UINT64_MAX;
	h[6] = UINT64_MAX;
	h[UT_HIST_SLOTS - 1] = 1;
	UT_ASSERT(hist_quantile_ns(h, 100, HIST_AT_SLOT_END) == UINT64_C(1) << 32);
	UT_ASSERT_EQ_INT(hist_quantile_ns(h, 99, HIST_AT_SLOT_END), 128);
}

int main(void)
{
	ut_run("slot_of_value", slot_of_value);
	ut_run("slot_edges", slot_edges);
	ut_run("quantile_empty", quantile_empty);
	ut_run("quantile_slot", quantile_slot);
	ut_run("quantile_interpolated", quantile_interpolated);
	ut_run("quantile_overflow", quantile_overflow);
	return ut_finish();
}
