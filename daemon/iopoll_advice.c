// SPDX-License-Identifier: GPL-2.0-only
/* IOPOLL completion summaries and the hybrid-polling advisor. */
#include <stdio.h>
#include <string.h>

#include "hist.h"
#include "iopoll_advice.h"

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

void iopoll_advise(const struct iopoll_summary *sum, bool hybrid,
		   uint64_t hybrid_poll_time_ns, struct iopoll_advice *out)
{
	uint64_t sleep_ns;

	memset(out, 0, sizeof(*out));
	if (sum->completions < IOPOLL_ADVICE_MIN_COMPLETIONS || !sum->mean_ns) {
		snprintf(out->why, sizeof(out->why), "%llu completions so far: too few to judge",
			 (unsigned long long)sum->completions);
		return;
	}
	/* the kernel sleeps half its minimum; ours is the histogram's floor */
	sleep_ns = (hybrid && hybrid_poll_time_ns ? hybrid_poll_time_ns : sum->min_ns) / 2;
	out->cpu_saving = (double)sleep_ns / sum->mean_ns;
	if (out->cpu_saving > 1)
		out->cpu_saving = 1;
	if (hybrid) {
		snprintf(out->why, sizeof(out->why),
			 "hybrid: sleeps %.1f us per request (half of hybrid_poll_time), ~%.0f%% of "
			 "a classic ring's spinning for a %.1f us mean completion",
			 sleep_ns / 1000.0, out->cpu_saving * 100, sum->mean_ns / 1000.0);
		return;
	}
	out->recommend = out->cpu_saving >= IOPOLL_ADVICE_MIN_SAVING;
	snprintf(out->why, sizeof(out->why),
		 "completions take %.1f us on average, at least %.1f us: hybrid would sleep "
		 "%.1f us of each, ~%.0f%% less spinning; %s",
		 sum->mean_ns / 1000.0, sum->min_ns / 1000.0, sleep_ns / 1000.0,
		 out->cpu_saving * 100,
		 out->recommend ? "recommended (set at ring setup: uringtune exec --hybrid)" :
				  "not worth it: completions are too uneven or too short");
}
