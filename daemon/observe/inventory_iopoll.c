// SPDX-License-Identifier: GPL-2.0-only
/*
 * IOPOLL rings' measurement windows: the map value just read, the submitting
 * thread's CPU time from /proc, and when a window closes the hybrid model
 * on it (classic rings) and whoever listens (the per-program verdicts).
 */
#include <string.h>

#include "clock.h"
#include "hybrid_model.h"
#include "inventory.h"
#include "iopoll_window.h"
#include "proc_task.h"
#include "ring.h"
#include "uring_abi.h"

static void model_input(const struct inventory *inv, const struct iopoll_window_result *r,
			struct hybrid_model_in *in)
{
	const struct sleep_probe_result *probe = inv->sleep_probe ?
						 sleep_probe_result(inv->sleep_probe) : NULL;
	struct hybrid_sleep_figures f;

	memset(in, 0, sizeof(*in));
	in->fine = r->fine;
	in->mean_ns = r->mean_ns;
	in->reads = r->reads;
	in->iops = r->iops;
	in->cpu_util = r->cpu_known ? r->cpu_util : -1;
	in->qd = r->qd;
	in->submit_ns = r->submit_ns;
	in->turn_ns = r->turn_ns;
	in->hybrid_poll_time_ns = r->hybrid_poll_time_ns;
	hybrid_sleep_figures(&inv->hybrid_sleep, probe, &f);
	in->have_sleep = f.source != HYBRID_SLEEP_NONE;
	in->overshoot_ns = f.off_ns;
	in->sleep_cpu_ns = f.cpu_ns;
	in->syscall_ns = f.syscall_ns;
}

void iopoll_ring_window(struct inventory *inv, struct ut_ring *ring)
{
	struct iopoll_window *w = ring->obs.iopw;
	const struct ut_iopoll_stats *s = ring->obs.iop;
	struct hybrid_model_in in;
	uint64_t cpu_ns = 0;
	bool cpu_known;

	/* a thread's own /proc entry answers by its id alone */
	cpu_known = s->submit_tid &&
		    proc_task_cpu_ns((pid_t)s->submit_tid, (pid_t)s->submit_tid, &cpu_ns) == 0;
	if (!iopoll_window_step(w, s, now_ns(), cpu_known, cpu_ns))
		return;
	if (!w->exe[0] && proc_exe(ring->obs.holder.pid, w->exe, sizeof(w->exe)))
		w->exe[0] = '\0';
	/* a hybrid ring's own window says what hybrid did; the model is for classic */
	if (ring->obs.setup_flags & UT_SETUP_HYBRID_IOPOLL) {
		hybrid_sleep_learn(&inv->hybrid_sleep, &w->last);
	} else {
		model_input(inv, &w->last, &in);
		hybrid_model_predict(&in, &w->pred);
	}
	if (inv->on_iopoll_window)
		inv->on_iopoll_window(inv->on_iopoll_window_arg, ring);
}
