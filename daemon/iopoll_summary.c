// SPDX-License-Identifier: GPL-2.0-only
/* IOPOLL completion summaries. */
#include <stdio.h>
#include <string.h>

#include "hist.h"
#include "iopoll_summary.h"

uint64_t hist_percentile_ns(const __u64 *hist, unsigned int pct)
{
	return hist_quantile_ns(hist, pct, HIST_AT_INTERPOLATED);
}

void iopoll_summarize(const struct ut_iopoll_stats *s, struct iopoll_summary *out)
{
	double sum = 0;

	memset(out, 0, sizeof(*out));
	for (int c = 0; c < UT_IOP_CLASSES; c++) {
		out->completions += s->completions[c];
		for (int i = 0; i < UT_HIST_SLOTS; i++)
			out->hist[i] += s->hist[c][i];
	}
	out->in_flight = s->submitted > out->completions ? s->submitted - out->completions : 0;
	for (int i = 0; i < UT_HIST_SLOTS; i++) {
		if (!out->hist[i])
			continue;
		if (!out->min_ns)
			out->min_ns = i ? hist_slot_lo(i) : 1;
		sum += (double)out->hist[i] * hist_slot_mid(i);
	}
	if (out->completions)
		out->mean_ns = (uint64_t)(sum / out->completions);
	out->p50_ns = hist_percentile_ns(out->hist, 50);
	out->p99_ns = hist_percentile_ns(out->hist, 99);
}
