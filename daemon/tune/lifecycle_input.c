// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the tuner is given each tick: one function for tune mode's decisions
 * (lifecycle.c) and observe mode's advice (lifecycle_advice.c), so the two
 * see the same evidence and advice is what tune mode would do.
 */
#include <string.h>

#include "lifecycle.h"
#include "lifecycle_priv.h"
#include "ring.h"

void lc_input_of(const struct lifecycle *lc, const struct ut_ring *ring, uint64_t now,
		 struct tuner_input *in)
{
	const struct ut_ring_stats *a = &ring->obs.stats, *b = &ring->tune.last_stats;

	/* statistics since the previous tick */
	memset(in, 0, sizeof(*in));
	in->now_ns = now;
	in->waits = a->waits - b->waits;
	in->waits_nosleep = a->waits_nosleep - b->waits_nosleep;
	in->busy_windows = a->busy_windows - b->busy_windows;
	in->busy_paid = a->busy_paid - b->busy_paid;
	for (int i = 0; i < UT_HIST_SLOTS; i++)
		in->hist[i] = a->busy_hist[i] - b->busy_hist[i];
	in->napi_ids = a->napi_ids;
	in->n_ids = lc_count_ids(a->napi_ids);
	in->ids_changed_ns = a->napi_ids_changed_ns;
	in->kernel_ids = ring->obs.kernel_napi_ids;
	in->n_kernel_ids = ring->obs.n_kernel_ids;
	in->kernel_ids_known = a->kernel_ids_reads != 0;
	in->kernel_ids_reads = a->kernel_ids_reads;
	in->no_static = lc->napi_no_static;
	in->wakeup_ns = ring->obs.wakeup_ns;
}

void lc_input_from_sleeps(const struct ut_ring *ring, unsigned int timeout_us,
			  struct tuner_input *in)
{
	const struct ut_ring_stats *a = &ring->obs.stats, *b = &ring->tune.last_stats;
	uint64_t gaps[UT_HIST_SLOTS];

	for (int i = 0; i < UT_HIST_SLOTS; i++)
		gaps[i] = a->sleep_gap_hist[i] - b->sleep_gap_hist[i];
	tuner_input_from_sleeps(in, gaps, timeout_us);
}
