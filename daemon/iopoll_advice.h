/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What an IOPOLL ring's completion times say, and whether hybrid polling
 * (IORING_SETUP_HYBRID_IOPOLL, 6.13+) would pay for it. Pure.
 *
 * The kernel's rule (io_uring/rw.c): a hybrid ring sleeps once per request
 * for half of hybrid_poll_time, its running minimum of completion times,
 * then polls. Classic IOPOLL spins the whole time. So per request hybrid
 * saves about (min / 2) / mean of the CPU a classic ring spins.
 */
#ifndef UT_IOPOLL_ADVICE_H
#define UT_IOPOLL_ADVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "uringtune.h"

/* below this many completions there is nothing to say yet */
#define IOPOLL_ADVICE_MIN_COMPLETIONS	100
/* recommend hybrid from this fraction of spinning saved */
#define IOPOLL_ADVICE_MIN_SAVING	0.25

struct iopoll_summary {
	uint64_t completions;
	uint64_t in_flight;
	__u64 hist[UT_HIST_SLOTS];	/* every class merged */
	uint64_t p50_ns;
	uint64_t p99_ns;
	uint64_t mean_ns;
	uint64_t min_ns;		/* lower edge of the lowest non-empty slot */
};

struct iopoll_advice {
	double cpu_saving;		/* fraction of spinning hybrid saves (or saved) */
	bool recommend;
	char why[240];
};

/*
 * The value at pct percent, interpolated inside its log2 slot (the spread
 * of completion times matters here, not a bound): hist_quantile_ns() at
 * HIST_AT_INTERPOLATED. 0 if empty.
 */
uint64_t hist_percentile_ns(const __u64 *hist, unsigned int pct);

void iopoll_summarize(const struct ut_iopoll_stats *s, struct iopoll_summary *out);

void iopoll_advise(const struct iopoll_summary *sum, bool hybrid,
		   uint64_t hybrid_poll_time_ns, struct iopoll_advice *out);

#endif /* UT_IOPOLL_ADVICE_H */
