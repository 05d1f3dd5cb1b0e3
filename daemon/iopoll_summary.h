/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An IOPOLL ring's completion times over its life, every operation class
 * together: count, in flight, p50/p99 and mean from the log2 histograms.
 * What hybrid polling would do is the model's (daemon/hybrid/). Pure.
 */
#ifndef UT_IOPOLL_SUMMARY_H
#define UT_IOPOLL_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "uringtune.h"


struct iopoll_summary {
	uint64_t completions;
	uint64_t in_flight;
	__u64 hist[UT_HIST_SLOTS];	/* every class merged */
	uint64_t p50_ns;
	uint64_t p99_ns;
	uint64_t mean_ns;
	uint64_t min_ns;		/* lower edge of the lowest non-empty slot */
};

/*
 * The value at pct percent, interpolated inside its log2 slot (the spread
 * of completion times matters here, not a bound): hist_quantile_ns() at
 * HIST_AT_INTERPOLATED. 0 if empty.
 */
uint64_t hist_percentile_ns(const __u64 *hist, unsigned int pct);

void iopoll_summarize(const struct ut_iopoll_stats *s, struct iopoll_summary *out);

#endif /* UT_IOPOLL_SUMMARY_H */
