// SPDX-License-Identifier: GPL-2.0-only
/* Closed IOPOLL windows into the per-program verdicts: see window_feed.h. */
#include <time.h>

#include "iopoll_window.h"
#include "ring.h"
#include "uring_abi.h"
#include "verdicts.h"
#include "window_feed.h"

void window_feed(void *arg, struct ut_ring *ring)
{
	struct verdicts *v = arg;
	const struct iopoll_window *w = ring->obs.iopw;
	const struct iopoll_window_result *r = &w->last;
	bool hybrid = ring->obs.setup_flags & UT_SETUP_HYBRID_IOPOLL;
	const char *comm = ring->obs.holder.comm;
	uint64_t now = (uint64_t)time(NULL);
	struct hv_sample s;

	/* a window without its thread's CPU says nothing of CPU per read */
	if (!r->cpu_known)
		return;
	if (w->closed == 1)
		verdicts_note_ring(v, comm, w->exe, hybrid, now);
	/* IOPS over busy time, as the model reads them */
	s = (struct hv_sample){ .reads = r->reads, .cpu_ns = r->cpu_ns, .wall_ns = r->busy_ns };
	verdicts_note_window(v, comm, w->exe, hybrid, &s, now);
	if (!hybrid && w->pred.valid)
		verdicts_note_prediction(v, comm, w->exe, &w->pred, now);
}
