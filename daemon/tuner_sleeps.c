// SPDX-License-Identifier: GPL-2.0-only
/*
 * The windows a ring that does not busy-poll would have had (tuner.h's
 * tuner_input_from_sleeps()): what lets observe mode's advice, computed by
 * the tuner, say more than "start at initial_us".
 */
#include <string.h>

#include "hist.h"
#include "tuner.h"

/* the lengths a wait that did not sleep counts at: about an arm-to-wait */
#define NOSLEEP_WINDOW_NS	1024

void tuner_input_from_sleeps(struct tuner_input *in, const uint64_t *gap_hist,
			     unsigned int timeout_us)
{
	const uint64_t t = (uint64_t)timeout_us * 1000;
	uint64_t paid = in->waits_nosleep, woken = 0, slept;

	memset(in->hist, 0, sizeof(in->hist));
	in->hist[hist_slot(NOSLEEP_WINDOW_NS)] = in->waits_nosleep;
	for (unsigned int i = 0; i < UT_HIST_SLOTS; i++) {
		uint64_t k = gap_hist[i], lo = hist_slot_lo(i), hi = hist_slot_hi(i), part;

		if (!k)
			continue;
		woken += k;
		if (lo >= t)
			continue;
		/* a slot across the timeout: its part below, the slot taken as evenly filled */
		part = hi <= t ? k : (uint64_t)((double)k * (double)(t - lo) / (double)(hi - lo));
		paid += part;
		in->hist[i] += part;
	}
	slept = in->waits > in->waits_nosleep ? in->waits - in->waits_nosleep : 0;
	/* every wait would have had a window: those that slept and those that did not */
	in->busy_windows = in->waits_nosleep + (slept > woken ? slept : woken);
	in->busy_paid = paid;
}
