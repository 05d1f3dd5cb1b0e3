// SPDX-License-Identifier: GPL-2.0-only
/* The host's histogram of paid-off busy-poll windows: see paid_hist.h. */
#include <stdbool.h>

#include "paid_hist.h"

void paid_hist_step(struct paid_hist *host, struct paid_hist *seen,
		    const struct ut_ring_stats *s)
{
	bool back = s->busy_ns < seen->ns;

	for (unsigned int i = 0; i < UT_HIST_SLOTS && !back; i++)
		back = s->busy_hist[i] < seen->hist[i];
	/* went back: a new ring in a reused slot, all it has is new */
	if (back)
		*seen = (struct paid_hist){ 0 };
	for (unsigned int i = 0; i < UT_HIST_SLOTS; i++) {
		host->hist[i] += s->busy_hist[i] - seen->hist[i];
		seen->hist[i] = s->busy_hist[i];
	}
	host->ns += s->busy_ns - seen->ns;
	seen->ns = s->busy_ns;
}
