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
#include "program_exe.h"
#include "ring.h"
#include "uring_abi.h"

void iopoll_ring_window(struct inventory *inv, struct ut_ring *ring)
{
	struct iopoll_window *w = ring->obs.iopw;
	const struct ut_iopoll_stats *s = ring->obs.iop;
	const struct sleep_probe_result *probe = inv->sleep_probe ?
						 sleep_probe_result(inv->sleep_probe) : NULL;
	struct hybrid_sleep_figures f;
	struct hybrid_model_in in;
	uint64_t cpu_ns = 0;
	bool cpu_known;

	/* a thread's own /proc entry answers by its id alone */
	cpu_known = s->submit_tid &&
		    proc_task_cpu_ns((pid_t)s->submit_tid, (pid_t)s->submit_tid, &cpu_ns) == 0;
	if (!iopoll_window_step(w, s, now_ns(), cpu_known, cpu_ns))
		return;
	if (w->closed == 1)
		program_exe(ring->obs.holder.pid, w->exe, sizeof(w->exe));
	/*
	 * A hybrid ring's own window says what hybrid did, and with its
	 * program's classic window what a sleep costs here; the model is for
	 * classic rings.
	 */
	if (ring->obs.setup_flags & UT_SETUP_HYBRID_IOPOLL) {
		hybrid_sleep_note_hybrid(&inv->hybrid_sleep, ring->obs.holder.comm, w->exe, &w->recent,
					 probe);
	} else {
		hybrid_sleep_note_classic(&inv->hybrid_sleep, ring->obs.holder.comm, w->exe, &w->recent);
		hybrid_sleep_figures_for(&inv->hybrid_sleep, probe, ring->obs.holder.comm, w->exe, &f);
		hybrid_model_input(&w->recent, &f, &in);
		hybrid_model_predict(&in, &w->pred);
	}
	if (inv->on_iopoll_window)
		inv->on_iopoll_window(inv->on_iopoll_window_arg, ring);
}
