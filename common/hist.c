// SPDX-License-Identifier: GPL-2.0-only
/* Quantiles of log2 histograms: see hist.h for the slot convention. */
#include <stdbool.h>
#include <stdint.h>

#include "hist.h"

/* @hist into @c, in units of 64 if the total overflows; returns the total */
static uint64_t counts(const __u64 *hist, uint64_t c[UT_HIST_SLOTS])
{
	uint64_t total = 0;
	bool wrapped = false;

	for (unsigned int i = 0; i < UT_HIST_SLOTS; i++) {
		c[i] = hist[i];
		if (__builtin_add_overflow(total, c[i], &total))
			wrapped = true;
	}
	if (!wrapped)
		return total;
	/* 32 slots of at most 2^58 + 1 cannot overflow */
	total = 0;
	for (unsigned int i = 0; i < UT_HIST_SLOTS; i++) {
		c[i] = (c[i] >> 6) + (c[i] != 0);
		total += c[i];
	}
	return total;
}

uint64_t hist_quantile_ns(const __u64 *hist, unsigned int pct, enum hist_at at)
{
	uint64_t c[UT_HIST_SLOTS], total, need, below = 0;
	unsigned int i;
	double rank;

	if (pct > 100)
		pct = 100;
	total = counts(hist, c);
	if (!total)
		return 0;
	/* ceil(total * pct / 100) without overflow; pct 0 means the first value */
	need = total / 100 * pct + (total % 100 * pct + 99) / 100;
	if (!need)
		need = 1;
	for (i = 0; i < UT_HIST_SLOTS - 1; i++) {
		if (below + c[i] >= need)
			break;
		below += c[i];
	}
	if (at == HIST_AT_SLOT_END)
		return hist_slot_hi(i);
	/* the rank's fraction through the slot's own values */
	rank = (double)total * pct / 100.0;
	return hist_slot_lo(i) +
	       (uint64_t)((rank - below) / c[i] * (hist_slot_hi(i) - hist_slot_lo(i)));
}
